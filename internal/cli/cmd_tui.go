package cli

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/tui"
)

// demoServer is the built-in demo server as a stdio server of this very binary: the
// config's built-in layer (the target "demo" unless a config names its own) and what
// `elicitty demo` opens.
func demoServer() (config.Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return config.Server{}, fmt.Errorf("find the elicitty binary to start the demo server: %w", err)
	}
	return config.Server{Name: "demo", Kind: config.KindStdio, Command: exe, Args: []string{"serve-demo"}}, nil
}

func (a *app) demoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo [TARGET...] [-- COMMAND [ARG...]]",
		Short: "Open the terminal UI on the built-in demo server (and on other servers given)",
		Long: `Open the terminal UI on the built-in demo server. Other targets (a configured name, a URL,
or a command after --) open beside it, as with "elicitty TARGET demo".`,
		Example: "  elicitty demo\n  elicitty demo https://mcp.example.com/mcp",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, err := demoServer()
			if err != nil {
				return err
			}
			servers := []config.Server{srv}
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if len(args[dash:]) == 0 {
					return usagef("nothing after --: give the server's command line")
				}
				servers = append(servers, config.CommandServer(args[dash:]))
				args = args[:dash]
			}
			if len(args) > 0 {
				cfg, err := a.loadConfig()
				if err != nil {
					return err
				}
				for _, t := range args {
					srv, err := config.ParseTarget(t, cfg)
					if err != nil {
						return &usageError{err: err}
					}
					if srv.Name != "demo" {
						servers = append(servers, srv)
					}
				}
			}
			return a.tui(cmd.Context(), servers, false)
		},
	}
}

// runTUI is the root command: the TUI over the named targets, the configured servers,
// or the demo server.
func (a *app) runTUI(cmd *cobra.Command, args []string) error {
	var servers []config.Server
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if len(args[dash:]) == 0 {
			return usagef("nothing after --: give the server's command line")
		}
		servers = append(servers, config.CommandServer(args[dash:]))
		args = args[:dash]
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	for i, t := range args {
		srv, err := config.ParseTarget(t, cfg)
		if err != nil {
			if i == 0 && len(suggestions(cmd, t)) > 0 {
				return unknownCommand(cmd, t) // a mistyped subcommand, not a server name
			}
			return &usageError{err: err}
		}
		servers = append(servers, srv)
	}
	if len(servers) == 0 {
		// The servers of an untrusted project folder are listed, never started: the
		// TUI's Connect refuses them (untrusted) with how to trust the folder, until
		// the user trusts it on the TUI's trust screen.
		servers = append(slices.Clone(cfg.Servers), cfg.Untrusted...)
	}
	if len(servers) == 0 {
		servers = cfg.Builtin
	}
	a.setUntrusted("")
	a.trustAsk = nil
	if !cfg.Project.Trusted && len(cfg.Untrusted) > 0 {
		a.setUntrusted(cfg.Project.Dir)
		a.trustAsk = a.trustPrompt(cfg)
	}
	if len(servers) == 0 {
		_, err := demoServer()
		return err
	}
	return a.tui(cmd.Context(), servers, false)
}

// uiTerminal reports whether the terminal UI can run: it reads keys from stdin and
// draws on stdout, so both must be terminals; stderr may go to a file.
func (a *app) uiTerminal() bool {
	in, ok := a.stdin.(term.File)
	return ok && term.IsTerminal(in.Fd()) && isTerminal(a.stdout)
}

// tui runs the terminal UI over servers, attached to the running elicitty proxies
// (their questions appear in the Inbox); inboxOnly is `elicitty inbox`.
func (a *app) tui(ctx context.Context, servers []config.Server, inboxOnly bool) error {
	if !a.uiTerminal() && !a.accessible {
		return usagef("the terminal UI needs a terminal on standard input and output; use a command such as `elicitty tools TARGET`, or --accessible")
	}
	open, err := opener()
	if err != nil {
		return err
	}
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	for i := range servers {
		servers[i] = a.resolveServer(servers[i]) // so the screens show what the sessions use
	}
	err = tui.Run(ctx, tui.Options{
		Servers: servers,
		Connect: func(ctx context.Context, srv config.Server, ans elicit.Answerer, onEvent func(transport.Event)) (*transport.Session, error) {
			if srv.Project != "" && srv.Project == a.untrusted() {
				return nil, &config.UntrustedError{Server: srv.Name, Dir: srv.Project}
			}
			p, err := a.plan(srv, frontEnd{answerer: ans, onEvent: onEvent, resolved: true}, log)
			if err != nil {
				return nil, err
			}
			if p.options.OAuth, err = a.tuiOAuth(p.server, ans); err != nil {
				return nil, err
			}
			return transport.Connect(ctx, p.server, p.options)
		},
		Log:    log,
		Opener: open,
		// Detected meanwhile (applyEnvironment began it): the servers start first.
		Colors:     func() (bool, *colorprofile.Profile) { return a.noColor(), a.uiProfile() },
		Accessible: a.accessible,
		In:         a.stdin,
		Out:        a.stdout,
		Remote:     a.remote,
		InboxOnly:  inboxOnly,
		Trust:      a.trustAsk,
	})
	if rerr := a.writeRecords(); err == nil {
		err = rerr
	}
	return err
}

// tuiOAuth is the OAuth setup of an HTTP server in the TUI: that of the headless
// commands (token store, pre-registered client, --timeout as the redirect wait), with
// the sign-in page shown by the TUI (ans, the TUI's Bridge, is an oauth.Browser). Nil
// for stdio servers.
func (a *app) tuiOAuth(srv config.Server, ans elicit.Answerer) (*oauth.Options, error) {
	o, err := a.oauthOptions(srv)
	if err != nil || o == nil {
		return o, err
	}
	if br, ok := ans.(oauth.Browser); ok {
		o.Browser = br
	} else {
		o.Browser = oauth.NoWaitBrowser{}
	}
	return o, nil
}

// trustPrompt is the TUI's trust screen for cfg's untrusted project folder: its Grant
// stores the trust of the files as the user saw them, loads the catalog again and
// returns the folder's servers as they now resolve (their ${VAR} expanded), after which
// the TUI's Connect lets them start.
func (a *app) trustPrompt(cfg config.Config) *tui.TrustAsk {
	opts, p := a.loadOptions(), cfg.Project
	files := make([]string, len(p.Files))
	for i, f := range p.Files {
		files[i] = f.Name
	}
	return &tui.TrustAsk{Dir: p.Dir, Files: files, Grant: func() ([]config.Server, error) {
		if err := config.Trust(opts, p); err != nil {
			return nil, err
		}
		now, err := config.Load(opts)
		if err != nil {
			return nil, err
		}
		if !now.Project.Trusted {
			return nil, fmt.Errorf("the project files of %s changed while you were asked; look again with `elicitty trust`", p.Dir)
		}
		a.setUntrusted("")
		var out []config.Server
		for _, s := range now.Servers {
			if s.Project == p.Dir {
				out = append(out, a.resolveServer(s))
			}
		}
		return out, nil
	}}
}
