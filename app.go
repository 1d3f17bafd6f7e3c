package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
)

// app holds the streams and the common flags shared by every command.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configPath   string
	answersPath  string
	recordPath   string
	jsonOut      bool
	protocol     string
	timeout      time.Duration
	noValidate   bool
	noURL        bool
	accessible   bool
	logPath      string
	onUnanswered string
	noImports    bool
	noWait       bool

	colorOnce sync.Once
	profile   colorprofile.Profile

	tokensOnce sync.Once
	tokens     oauth.Choice
	tokensErr  error

	recMu     sync.Mutex
	recorders []*elicit.Recorder
	script    *elicit.Script
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr}
}

// isTTY reports whether r and the error stream are both terminals, so an interactive
// prompt can be shown.
func (a *app) isTTY() bool {
	in, ok := a.stdin.(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return false
	}
	errf, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(errf.Fd())
}

// loadConfig loads the server catalog.
func (a *app) loadConfig() (config.Config, error) {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	cfgDir := os.Getenv("XDG_CONFIG_HOME")
	if cfgDir == "" && home != "" {
		cfgDir = home + "/.config"
	}
	cfg, err := config.Load(config.LoadOptions{
		Path:      a.configPath,
		Getenv:    os.Getenv,
		HomeDir:   home,
		ConfigDir: cfgDir,
		WorkDir:   wd,
		NoImports: a.noImports,
	})
	if err != nil {
		return config.Config{}, &usageError{err: err}
	}
	return cfg, nil
}

// splitTarget separates the TARGET of a command from its other arguments. With a stdio
// command after "--", that command is the target; otherwise the first argument is.
func (a *app) splitTarget(cmd *cobra.Command, args []string) (config.Server, []string, error) {
	dash := cmd.ArgsLenAtDash()
	if dash >= 0 {
		argv := args[dash:]
		if len(argv) == 0 {
			return config.Server{}, nil, usagef("nothing after --: give the server's command line")
		}
		return config.CommandServer(argv), args[:dash], nil
	}
	if len(args) == 0 {
		return config.Server{}, nil, usagef("missing TARGET: a server name from the config, an http(s) URL, or -- command args")
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return config.Server{}, nil, err
	}
	srv, err := config.ParseTarget(args[0], cfg)
	if err != nil {
		return config.Server{}, nil, &usageError{err: err}
	}
	return srv, args[1:], nil
}

// openLog builds the wire log and, with --log, its JSONL file. The returned func closes it.
func (a *app) openLog() (*wire.Log, func(), error) {
	log := wire.New(10000)
	if a.logPath == "" {
		return log, func() {}, nil
	}
	f, err := os.OpenFile(a.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, usagef("open log file: %w", err)
	}
	log.SetFile(f)
	return log, func() { log.SetFile(nil); f.Close() }, nil
}

// connect opens a session to srv with the command's answerer, the flags applied.
func (a *app) connect(ctx context.Context, srv config.Server, log *wire.Log) (*transport.Session, error) {
	if a.protocol != "" {
		srv.Protocol = a.protocol
	}
	if a.timeout > 0 {
		srv.Timeout = a.timeout
	}
	if a.noValidate {
		off := false
		srv.Validation = &off
	}
	answerer, err := a.answerer(srv)
	if err != nil {
		return nil, err
	}
	auth, err := a.oauthOptions(srv)
	if err != nil {
		return nil, err
	}
	var retryNow func(*elicit.Request) bool
	if a.script != nil {
		retryNow = func(r *elicit.Request) bool { return a.script.RetryPolicy(r) == "now" }
	}
	// Without a terminal nobody can press "retry now": the wait for a -32042 completion
	// is bounded by the request timeout, so a scripted run never hangs on it.
	var urlWait time.Duration
	if !a.isTTY() {
		urlWait = srv.Timeout
	}
	return transport.Connect(ctx, srv, transport.Options{
		ClientName:    "elicitty",
		ClientVersion: currentVersion().Version,
		Answerer:      answerer,
		URLMode:       !a.noURL && !srv.URLPolicy.Disabled,
		Protocol:      srv.Protocol,
		Log:           log,
		MaxRounds:     srv.MaxRounds,
		RetryNow:      retryNow,
		URLWait:       urlWait,
		NoReask:       !a.isTTY(),
		OAuth:         auth,
		OnEvent: func(ev transport.Event) {
			if ev.Kind == "elicitation-complete" || ev.Kind == "cancelled" {
				fmt.Fprintf(a.stderr, "elicitty: %s: %s %s\n", ev.Server, ev.Kind, ev.Text)
			}
		},
	})
}

// addCommonFlags registers the flags every command shares.
func (a *app) addCommonFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&a.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/elicitty/config.yaml)")
	f.BoolVar(&a.noImports, "no-imports", false, "do not import other clients' MCP configs")
	f.StringVar(&a.answersPath, "answers", "", "answer elicitations from this answers file (YAML or JSON)")
	f.StringVar(&a.recordPath, "record", "", "write the answers given in this session to FILE, in answers-file format")
	f.BoolVar(&a.jsonOut, "json", false, "print results as JSON")
	f.StringVar(&a.protocol, "protocol", "", "pin the protocol version (2025-06-18, 2025-11-25, 2026-07-28)")
	f.DurationVar(&a.timeout, "timeout", 0, "per-request timeout (e.g. 30s; paused while you answer a form)")
	f.BoolVar(&a.noValidate, "no-validate", false, "send what was answered without validating it against the schema")
	f.BoolVar(&a.noURL, "no-url", false, "do not declare URL-mode elicitation")
	f.BoolVar(&a.accessible, "accessible", false, "line prompts instead of full-screen forms (screen readers)")
	f.StringVar(&a.logPath, "log", "", "write every JSON-RPC message to FILE as JSON lines")
	f.BoolVar(&a.noWait, "no-wait", false, "without a TTY: fail (exit 4) instead of waiting for an OAuth sign-in")
	f.StringVar(&a.onUnanswered, "on-unanswered", "", "without a TTY or answers entry: decline or cancel instead of failing (exit 3)")
	_ = cmd.RegisterFlagCompletionFunc("protocol", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"2025-06-18", "2025-11-25", "2026-07-28"}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("on-unanswered", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"decline", "cancel"}, cobra.ShellCompDirectiveNoFileComp
	})
}

// isCobraUsage reports whether err is one of cobra's command-line errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
