package cli

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/charmbracelet/colorprofile"
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
		Use:   "demo",
		Short: "Open the terminal UI on the built-in demo server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv, err := demoServer()
			if err != nil {
				return err
			}
			return a.tui(cmd.Context(), []config.Server{srv}, false)
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
		// TUI's Connect refuses them (untrustedDir) with how to trust the folder.
		servers = append(slices.Clone(cfg.Servers), cfg.Untrusted...)
	}
	if len(servers) == 0 {
		servers = cfg.Builtin
	}
	a.untrustedDir = ""
	if !cfg.Project.Trusted {
		a.untrustedDir = cfg.Project.Dir
	}
	if len(servers) == 0 {
		_, err := demoServer()
		return err
	}
	return a.tui(cmd.Context(), servers, false)
}

// tui runs the terminal UI over servers, attached to the running elicitty proxies
// (their questions appear in the Inbox); inboxOnly is `elicitty inbox`.
func (a *app) tui(ctx context.Context, servers []config.Server, inboxOnly bool) error {
	if !a.isTTY() && !a.accessible {
		return usagef("the terminal UI needs a terminal; use a command such as `elicitty tools TARGET`, or --accessible")
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
			if srv.Project != "" && srv.Project == a.untrustedDir {
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
