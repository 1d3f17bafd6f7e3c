package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

// frontEnd says who answers a session's elicitations and sees its events. The zero
// value is the headless commands' front end: an answers file, an inline prompt on a
// terminal, else the unanswered report (answerer chooses); completions and server
// cancellations printed on stderr.
type frontEnd struct {
	// answerer, when set, answers every elicitation (the TUI's Bridge).
	answerer elicit.Answerer
	// onEvent, when set, receives the session's events (the TUI).
	onEvent func(transport.Event)
	// showsFindings says the command prints every schema finding itself (render, desc
	// preview); otherwise a headless front end reports the dropped defaults.
	showsFindings bool
	// resolved says the server entry already went through resolveServer (the TUI's,
	// whose roots the user may have changed since: they must not be reset).
	resolved bool
}

// plan is what one server runs with once the config and the common flags are resolved.
type plan struct {
	// server is the config entry with the flags applied.
	server config.Server
	// options are the session's options; OAuth is left to the caller (it depends on
	// whether a browser can be shown, and render and desc preview have no session).
	options transport.Options
}

// plan resolves the config entry srv and the common flags into what a session to srv,
// its forms and its answerer use. It is the one place where a flag turns into an
// option: every command that asks elicitations (the TUI, call/prompt/read, list,
// render, desc preview) goes through it, so a flag means the same on every path.
//
// The answerer is front's, or the headless choice; it is recorded with --record and
// wrapped in the Engine, whose validation switch (--no-validate, or validation: false
// for the server) then travels on each request to the form (Request.NoValidate).
func (a *app) plan(srv config.Server, front frontEnd, log *wire.Log) (plan, error) {
	pinnedBy := ""
	if srv.Protocol != "" {
		pinnedBy = "the server's protocol: setting"
	}
	if a.protocol != "" {
		pinnedBy = "--protocol"
	}
	if !front.resolved {
		srv = a.resolveServer(srv)
	}
	inner := front.answerer
	if inner == nil {
		var err error
		if inner, err = a.answerer(srv); err != nil {
			return plan{}, err
		}
	}
	if front.answerer == nil && !front.showsFindings {
		inner = a.reportDroppedDefaults(inner, log)
	}
	if front.answerer == nil {
		inner = a.clearProgressFirst(inner)
	}
	if len(a.samplingCmd) > 0 {
		inner = elicit.NewDrafter(inner, a.samplingCmd, 0)
	}
	opts := transport.ForServer(srv, a.record(inner))
	opts.ClientName, opts.ClientVersion = "elicitty", currentVersion().Version
	opts.Log, opts.OnEvent = log, front.onEvent
	opts.PinnedBy = pinnedBy
	opts.Procs = a.procs
	opts.Sampling = a.canSample(front)
	opts.TaskWait = a.taskWait
	if front.answerer == nil {
		opts.Answerer = a.reportProtocolErrors(opts.Answerer)
		if a.script != nil {
			script := a.script
			opts.RetryNow = func(r *elicit.Request) bool { return script.RetryPolicy(r) == "now" }
		}
		// Without a terminal nobody can press "retry now" or answer again: the wait
		// for a -32042 completion is bounded (urlWait:, --url-wait, else
		// transport.DefaultURLWait), so a scripted run never hangs on it, and an
		// invalid MRTR answer fails at once.
		headless := !a.isTTY()
		if headless {
			opts.URLWait = srv.URLWait
			if opts.URLWait <= 0 {
				opts.URLWait = transport.DefaultURLWait
			}
			opts.NoReask = true
		}
		if opts.OnEvent == nil {
			opts.OnEvent = func(ev transport.Event) {
				server := safe.Field(ev.Server)
				if ev.Kind == transport.EventProgress {
					a.progress.show(progressText(server, ev.Text.Line()))
					return
				}
				if ev.Kind == transport.EventTask {
					a.taskEvent(server, ev)
					return
				}
				switch {
				case ev.Kind == transport.EventElicitationComplete:
					// The inline wait, when one shows, ends with its own line saying so.
					ended := a.urlWaits.completed(ev.Server, ev.ID)
					a.progress.clear()
					if !ended {
						a.urlWaits.println(a.stderr, fmt.Sprintf("elicitty: %s: %s", server, ev.Text.Line()))
					}
				case ev.Kind == transport.EventCancelled:
					a.progress.clear()
					a.urlWaits.println(a.stderr, fmt.Sprintf("elicitty: %s: %s", server, ev.Text.Line()))
				case ev.Kind == transport.EventLog && srv.LogLevel != "":
					// Asked for with --log-level or logLevel:.
					a.progress.clear()
					a.urlWaits.println(a.stderr, fmt.Sprintf("elicitty: %s: log %s", server, ev.Text.Line()))
				case ev.Kind == transport.EventReconnected || ev.Kind == transport.EventRefused,
					ev.Kind == transport.EventURLWait && headless:
					a.progress.clear()
					a.urlWaits.println(a.stderr, fmt.Sprintf("elicitty: %s: %s", server, ev.Text.Line()))
				}
			}
		}
	}
	return plan{server: srv, options: opts}, nil
}

// resolveServer applies the common flags to a server's config entry: --protocol,
// --timeout, --handshake-timeout, --url-wait, --no-validate, --no-url and --log-level
// override what the config says; --root and --no-roots add to or drop its roots.
func (a *app) resolveServer(srv config.Server) config.Server {
	if a.protocol != "" {
		srv.Protocol = a.protocol
	}
	a.applyBounds(&srv)
	if a.noValidate {
		off := false
		srv.Validation = &off
	}
	if a.noURL {
		srv.URLPolicy.Disabled = true
	}
	if a.logLevel != "" {
		srv.LogLevel = a.logLevel
	}
	for _, e := range a.experimental {
		if !srv.Experiment(e) {
			srv.Experimental = append(slices.Clip(srv.Experimental), e)
		}
	}
	a.resolveRoots(&srv)
	return srv
}

// canSample reports whether someone can answer sampling requests, so the session may
// declare the sampling capability: a person always can in the TUI and at an inline
// prompt on a terminal; an answers file only when it has sampling entries.
func (a *app) canSample(front frontEnd) bool {
	switch {
	case front.answerer != nil:
		return true
	case a.script != nil:
		return a.script.HasSampling()
	}
	return a.answersPath == "" && a.isTTY()
}

// resolveRoots sets the roots declared to srv: the working directory, then --root
// flags, then the server's roots: list, each once; --no-roots or noRoots: declare none.
// Applying it twice changes nothing.
func (a *app) resolveRoots(srv *config.Server) {
	if a.noRoots || srv.NoRoots {
		srv.NoRoots, srv.Roots = true, nil
		return
	}
	var all []string
	if wd, err := os.Getwd(); err == nil {
		all = append(all, wd)
	}
	all = append(append(all, a.roots...), srv.Roots...)
	seen := map[string]bool{}
	srv.Roots = nil
	for _, r := range all {
		if !seen[r] {
			seen[r] = true
			srv.Roots = append(srv.Roots, r)
		}
	}
}
