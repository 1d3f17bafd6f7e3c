package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
	"github.com/elicitty/elicitty/tui"
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
	handshake    time.Duration
	urlWait      time.Duration
	taskWait     time.Duration
	noValidate   bool
	noURL        bool
	accessible   bool
	logPath      string
	onUnanswered string
	noImports    bool
	trust        bool
	noWait       bool
	roots        []string
	noRoots      bool
	logLevel     string
	experimental []string

	// untrustedDir is the project folder whose servers the TUI lists but must not
	// start ("" when it is trusted or has none); the TUI's trust screen clears it from
	// another goroutine (untrusted, setUntrusted).
	untrustedMu  sync.Mutex
	untrustedDir string
	// trustAsk is the TUI's trust screen for untrustedDir (nil: none).
	trustAsk *tui.TrustAsk

	colorOnce sync.Once
	colorDone chan struct{}        // closed once the fields below are set
	profile   colorprofile.Profile // the run's, under NO_COLOR and CLICOLOR
	// terminal is colorprofile.Detect's profile of terminalOut, the output detected.
	terminal    colorprofile.Profile
	terminalOut io.Writer

	tokensOnce sync.Once
	tokens     oauth.Choice
	tokensErr  error

	recMu     sync.Mutex
	recorders []*elicit.Recorder
	script    *elicit.Script
	// samplingCmd is the config's sampling.command, which drafts sampling replies.
	samplingCmd []string

	// procs holds every stdio server process this run started; stopServers ends them.
	procs *process.Procs
	// logMu guards log, the command's wire log while it is open (for stopServers' note).
	logMu sync.Mutex
	log   *wire.Log
	noted bool // the log says the servers were stopped
	// deadline arms the hard exit deadline once.
	deadline sync.Once
	// findingsMu guards findings, the schema findings reported to the user during a
	// headless command (dropped defaults), for its --json output.
	findingsMu sync.Mutex
	findings   []reportedFinding
	// progress shows a headless request's progress notifications (nil: stderr is no
	// terminal).
	progress *progressLine
	// urlWaits ties the inline prompt's URL wait to the command's session.
	urlWaits urlWaiter
	// proxy is the state of `elicitty proxy` (cmd_proxy.go).
	proxy proxyState
	// launch, when set (tests), replaces systemLauncher for `proxy --install`.
	launch *launcher
}

// launchCommand is the command `proxy --install` writes (launchCommand).
func (a *app) launchCommand() (command, note string, err error) {
	if a.launch != nil {
		return launchCommand(*a.launch)
	}
	return launchCommand(systemLauncher())
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, procs: process.NewProcs(), progress: newProgressLine(stderr)}
}

// stopGrace is how long each step of the final shutdown waits: after closing a
// server's stdin, and after SIGTERM, before SIGKILL.
const stopGrace = 400 * time.Millisecond

// orderlyStart is how long the orderly shutdown runs alone before the servers are
// stopped regardless.
const orderlyStart = 300 * time.Millisecond

// exitDeadline bounds how long elicitty takes to exit once asked to (q, a signal).
const exitDeadline = 2 * time.Second

// stopServers ends every server process still running (whatever the exit path) and
// says so in the wire log, when one is open. Concurrent calls wait for the first.
func (a *app) stopServers() {
	rep := a.procs.Stop(stopGrace)
	if rep.Stopped == 0 {
		return
	}
	a.logMu.Lock()
	defer a.logMu.Unlock()
	if a.log == nil || a.noted {
		return
	}
	a.noted = true
	switch {
	case rep.Left > 0:
		a.log.Notef("", "exiting: %d server process(es) still running after SIGKILL", rep.Left)
	case rep.Killed > 0:
		a.log.Notef("", "exiting: stopped %d server process(es), %d of them with SIGKILL", rep.Stopped, rep.Killed)
	default:
		a.log.Notef("", "exiting: stopped %d server process(es)", rep.Stopped)
	}
}

// exitWithin makes sure the process ends within exitDeadline from now: the orderly
// shutdown (calls cancelled, servers told) gets a head start, then the servers are
// stopped, and if the run has still not returned the process exits with code. Only
// the first call counts.
func (a *app) exitWithin(finished <-chan struct{}, code int, exit func(int)) {
	a.deadline.Do(func() {
		go func() {
			hard := time.NewTimer(exitDeadline - 200*time.Millisecond)
			defer hard.Stop()
			head := time.NewTimer(orderlyStart)
			defer head.Stop()
			select {
			case <-finished:
				return
			case <-head.C:
			}
			go a.stopServers()
			select {
			case <-finished:
			case <-hard.C:
				a.stopServers()
				exit(code)
			}
		}()
	})
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

// loadOptions says where the server catalog and other clients' configs are: the
// process's environment and working directory, and the --config and --no-imports flags.
func (a *app) loadOptions() config.LoadOptions {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	cfgDir := os.Getenv("XDG_CONFIG_HOME")
	if cfgDir == "" && home != "" {
		cfgDir = home + "/.config"
	}
	var builtin []config.Server
	if demo, err := demoServer(); err == nil {
		builtin = append(builtin, demo)
	}
	return config.LoadOptions{
		Path:      a.configPath,
		Getenv:    os.Getenv,
		HomeDir:   home,
		ConfigDir: cfgDir,
		WorkDir:   wd,
		NoImports: a.noImports,
		Builtin:   builtin,
	}
}

// loadConfig loads the server catalog. With --trust, the working directory's project
// files are trusted as they are (and that is stored) before their servers are resolved.
func (a *app) loadConfig() (config.Config, error) {
	opts := a.loadOptions()
	cfg, err := config.Load(opts)
	if err != nil {
		return config.Config{}, &usageError{err: err}
	}
	if a.trust && !cfg.Project.Trusted && len(cfg.Project.Files) > 0 {
		if err := config.Trust(opts, cfg.Project); err != nil {
			return config.Config{}, &usageError{err: err}
		}
		fmt.Fprintf(a.stderr, "elicitty: trusted %s (%s)\n", safe.Line(cfg.Project.Dir), safe.Line(projectFileNames(cfg.Project)))
		if cfg, err = config.Load(opts); err != nil {
			return config.Config{}, &usageError{err: err}
		}
	}
	a.warnImports(cfg)
	a.samplingCmd = cfg.Sampling.Command
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

// openPrivate opens a file we write for --log or --record with wire.OpenFile (no
// symlink followed, nothing but a regular file, 0600) and prints its warning, if any.
func (a *app) openPrivate(path string, flag int) (*os.File, error) {
	f, warning, err := wire.OpenFile(path, flag)
	if warning != "" {
		fmt.Fprintf(a.stderr, "elicitty: warning: %s\n", warning)
	}
	return f, err
}

// openLog builds the wire log and, with --log, its JSONL file. The returned func closes it.
func (a *app) openLog() (*wire.Log, func(), error) {
	log := wire.New(10000)
	if a.logPath == "" {
		return log, a.stopServers, nil
	}
	f, err := a.openPrivate(a.logPath, os.O_TRUNC)
	if err != nil {
		return nil, nil, usagef("open log file: %w", err)
	}
	log.SetFile(safe.NewJSONWriter(f)) // server text in frames: no raw C1, bidi or zero-width bytes
	a.logMu.Lock()
	a.log = log
	a.logMu.Unlock()
	return log, func() {
		// The servers stop before the log closes, so the log says they did.
		a.stopServers()
		a.logMu.Lock()
		a.log = nil
		a.logMu.Unlock()
		log.SetFile(nil)
		f.Close()
	}, nil
}

// connect opens a session to srv with the headless answerer, the flags applied.
func (a *app) connect(ctx context.Context, srv config.Server, log *wire.Log) (*transport.Session, error) {
	p, err := a.plan(srv, frontEnd{}, log)
	if err != nil {
		return nil, err
	}
	if p.options.OAuth, err = a.oauthOptions(p.server); err != nil {
		return nil, err
	}
	defer a.showStarting(p.server)()
	return transport.Connect(ctx, p.server, p.options)
}

// applyBounds applies --timeout, --handshake-timeout and --url-wait to srv.
func (a *app) applyBounds(srv *config.Server) {
	if a.timeout > 0 {
		srv.Timeout = a.timeout
	}
	if a.handshake > 0 {
		srv.HandshakeTimeout = a.handshake
	}
	if a.urlWait > 0 {
		srv.URLWait = a.urlWait
	}
}

// addCommonFlags registers the flags every command shares.
func (a *app) addCommonFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&a.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/elicitty/config.yaml)")
	f.BoolVar(&a.noImports, "no-imports", false, "do not import other clients' MCP configs")
	f.BoolVar(&a.trust, "trust", false, "trust the working directory's project MCP files (.mcp.json, .vscode/mcp.json, ...) as they are now, and remember it")
	f.StringVar(&a.answersPath, "answers", "", "answer elicitations from this answers file (YAML or JSON)")
	f.StringVar(&a.recordPath, "record", "", "write the answers given in this session to FILE, in answers-file format")
	f.BoolVar(&a.jsonOut, "json", false, "print results as JSON")
	f.StringVar(&a.protocol, "protocol", "", "pin the protocol version (2025-06-18, 2025-11-25, 2026-07-28)")
	f.DurationVar(&a.timeout, "timeout", 0, "per-request idle timeout (default 60s; reset by progress, paused while you answer a form)")
	f.DurationVar(&a.handshake, "handshake-timeout", 0, "bound on connecting and initialize (default 30s; 120s for a server started through npx, uvx, pnpm dlx, bunx, npm exec or pipx run, which may download it first)")
	f.DurationVar(&a.urlWait, "url-wait", 0, "without a TTY: how long to wait for a URL-mode completion (default 2m)")
	f.DurationVar(&a.taskWait, "task-wait", 0, "how long to wait for a tool call that runs as a task, outside prompts; then it is cancelled (default 10m)")
	f.BoolVar(&a.noValidate, "no-validate", false, "send what was answered without validating it against the schema")
	f.BoolVar(&a.noURL, "no-url", false, "do not declare URL-mode elicitation")
	f.BoolVar(&a.accessible, "accessible", false, "line prompts instead of full-screen forms (screen readers)")
	f.StringVar(&a.logPath, "log", "", "write every JSON-RPC message to FILE as JSON lines")
	f.BoolVar(&a.noWait, "no-wait", false, "without a TTY: fail (exit 4) instead of waiting for an OAuth sign-in")
	f.StringVar(&a.onUnanswered, "on-unanswered", "", "without a TTY or answers entry: decline or cancel instead of failing (exit 3)")
	f.StringArrayVar(&a.roots, "root", nil, "declare DIR as a root too, besides the working directory (repeatable)")
	f.BoolVar(&a.noRoots, "no-roots", false, "declare no roots capability (servers cannot list your directories)")
	f.StringSliceVar(&a.experimental, "experimental", nil, "turn on a draft protocol feature: file-inputs (file fields in forms, SEP-2356)")
	f.StringVar(&a.logLevel, "log-level", "", "ask servers that log for this level and above (logging/setLevel: debug, info, notice, warning, error, ...)")
	_ = cmd.RegisterFlagCompletionFunc("protocol", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return protocol.Supported(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("log-level", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return config.LogLevels(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("root", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	_ = cmd.RegisterFlagCompletionFunc("on-unanswered", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"decline", "cancel"}, cobra.ShellCompDirectiveNoFileComp
	})
}

// untrusted returns the project folder whose servers must not start ("" when none).
func (a *app) untrusted() string {
	a.untrustedMu.Lock()
	defer a.untrustedMu.Unlock()
	return a.untrustedDir
}

// setUntrusted sets the project folder whose servers must not start.
func (a *app) setUntrusted(dir string) {
	a.untrustedMu.Lock()
	defer a.untrustedMu.Unlock()
	a.untrustedDir = dir
}
