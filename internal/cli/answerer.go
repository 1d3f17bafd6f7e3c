package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/consent"
	"github.com/elicitty/elicitty/tui/form"
)

// opener returns the browser opener: $ELICITTY_OPENER when set, else the system browser.
func opener() (consent.Opener, error) {
	o, err := consent.OpenerFromEnv(os.Getenv)
	if err != nil {
		return nil, &usageError{err: err}
	}
	return o, nil
}

// answerer chooses the Answerer of a headless command for srv (resolved): an answers
// file, an interactive prompt on a TTY, or a refusal that prints what would answer the
// request. plan wraps it in the recorder and the engine.
func (a *app) answerer(srv config.Server) (elicit.Answerer, error) {
	switch a.onUnanswered {
	case "", "decline", "cancel":
	default:
		return nil, usagef("--on-unanswered must be decline or cancel, not %q", a.onUnanswered)
	}
	var inner elicit.Answerer
	pol := transport.URLPolicy(srv.URLPolicy)
	open, err := opener()
	if err != nil {
		return nil, err
	}
	switch {
	case a.answersPath != "":
		s, err := a.loadScript(srv, a.stderr)
		if err != nil {
			return nil, err
		}
		inner = s
	case a.isTTY():
		urlAns := consent.NewAnswerer(a.stdin, a.stderr, consent.AnswererOptions{
			Policy:     pol,
			Opener:     open,
			CopyOnly:   srv.URLPolicy.Open == config.URLCopyOnly,
			Accessible: a.accessible,
			NoColor:    a.noColor(),
			OnRetry:    a.urlWaits.retry,
			OnCancel:   a.urlWaits.cancelCall,
			ShowWait:   true,
		})
		a.urlWaits.setAnswerer(urlAns)
		inner = form.NewPrompter(a.stdin, a.stderr, &form.PrompterOptions{
			Accessible: a.accessible,
			NoColor:    a.noColor(),
			URL:        urlAns,
		})
	default:
		inner = a.unanswered()
	}
	return inner, nil
}

// loadScript loads the --answers file for srv (resolved) as a.script; log (nil: none)
// receives one line per answer given.
func (a *app) loadScript(srv config.Server, log io.Writer) (*elicit.Script, error) {
	open, err := opener()
	if err != nil {
		return nil, err
	}
	s, err := elicit.LoadScript(a.answersPath, &elicit.ScriptOptions{
		Log:      log,
		Open:     open.Open,
		CheckURL: consent.ScriptCheck(transport.URLPolicy(srv.URLPolicy)),
	})
	if err != nil {
		return nil, &usageError{err: err}
	}
	a.script = s
	return s, nil
}

// reportProtocolErrors prints one stderr line for each request the engine refuses as
// malformed (docs/protocol.md, "Request checks": a missing or non-http(s) url, a schema in a URL request,
// ...). Such a request is never shown or scripted, so without this line the user would
// not learn why the server was answered -32602 (or, in 2026-07-28, cancel).
func (a *app) reportProtocolErrors(next elicit.Answerer) elicit.Answerer {
	return elicit.AnswererFunc(func(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
		resp, err := next.Answer(ctx, req)
		var pe *elicit.ProtocolError
		if errors.As(err, &pe) {
			url := ""
			if req.Mode == elicit.ModeURL {
				url = fmt.Sprintf(" (url %q)", safe.Block(req.URL))
			}
			fmt.Fprintf(a.stderr, "elicitty: %s sent an invalid %s-mode request%s, refused without asking: %s\n",
				safe.Field(req.Server), req.ModeOrForm(), url, safe.Line(pe.Reason))
		}
		return resp, err
	})
}

// unanswered answers nothing: it prints the request and an answers-file entry that
// would answer it, then fails with ErrUnanswered, unless --on-unanswered says otherwise.
func (a *app) unanswered() elicit.Answerer {
	return elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
		switch a.onUnanswered {
		case "decline":
			fmt.Fprintf(a.stderr, "elicitty: %s asks %q: declined (--on-unanswered)\n", req.ServerLabel(), safe.Block(req.Message))
			return elicit.Response{Action: elicit.Decline}, nil
		case "cancel":
			fmt.Fprintf(a.stderr, "elicitty: %s asks %q: cancelled (--on-unanswered)\n", req.ServerLabel(), safe.Block(req.Message))
			return elicit.Response{Action: elicit.Cancel}, nil
		}
		fmt.Fprintf(a.stderr, "elicitty: %s asks %q (%s mode) but there is no terminal and no --answers file.\n",
			req.ServerLabel(), safe.Block(req.Message), req.ModeOrForm())
		fmt.Fprintf(a.stderr, "An answers-file entry that would answer it:\n%s", elicit.UnansweredEntry(req))
		return elicit.Response{}, fmt.Errorf("%s: %w", safe.Field(req.Server), elicit.ErrUnanswered)
	})
}

// record wraps inner in a Recorder for --record (inner itself without it). Safe to
// call from several goroutines (the TUI connects its servers concurrently).
func (a *app) record(inner elicit.Answerer) elicit.Answerer {
	if a.recordPath == "" {
		return inner
	}
	rec := elicit.NewRecorder(inner)
	a.recMu.Lock()
	a.recorders = append(a.recorders, rec)
	a.recMu.Unlock()
	return rec
}

// writeRecords writes the --record file, if any: the answers of every recorder, as one
// answers-file list.
func (a *app) writeRecords() error {
	a.recMu.Lock()
	recorders := append([]*elicit.Recorder(nil), a.recorders...)
	a.recMu.Unlock()
	if a.recordPath == "" || len(recorders) == 0 {
		return nil
	}
	// 0600 like --log: recorded answers may hold what the user typed into a secret field.
	f, err := a.openPrivate(a.recordPath, os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("write --record file: %w", err)
	}
	defer f.Close()
	wrote := false
	for _, r := range recorders {
		if len(r.Entries()) == 0 {
			continue // an empty recorder writes "[]", which cannot be concatenated
		}
		if _, err := r.WriteTo(f); err != nil {
			return fmt.Errorf("write --record file: %w", err)
		}
		wrote = true
	}
	if !wrote {
		if _, err := f.WriteString("[]\n"); err != nil {
			return fmt.Errorf("write --record file: %w", err)
		}
	}
	var envs []string
	for _, r := range recorders {
		for _, env := range r.SecretEnvs() {
			if !slices.Contains(envs, env) {
				envs = append(envs, env)
			}
		}
	}
	for _, env := range envs {
		fmt.Fprintf(a.stderr, "elicitty: %s holds ${%s} instead of the secret you typed; set %s to replay it\n", a.recordPath, env, env)
	}
	return f.Close()
}

// declineAll declines every question: the answerer of sessions nobody is there to
// answer for (completion, doctor's era check).
func declineAll(context.Context, *elicit.Request) (elicit.Response, error) {
	return elicit.Response{Action: elicit.Decline}, nil
}
