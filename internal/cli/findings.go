package cli

import (
	"context"
	"fmt"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// reportedFinding is a schema finding the user was told about, as --json lists it.
type reportedFinding struct {
	Server  string `json:"server"`
	Message string `json:"message"` // the request's message
	Path    string `json:"path"`
	Code    string `json:"code"`
	Detail  string `json:"detail"`
}

// reportDroppedDefaults wraps inner so that each default the form parse dropped (one
// that fails its own field's schema or is not one of its choices, the findings `render`
// reports)
// is reported before the request is answered: one stderr line, a note in the wire log
// (--log), and an entry of the command's --json output.
func (a *app) reportDroppedDefaults(inner elicit.Answerer, log *wire.Log) elicit.Answerer {
	return elicit.AnswererFunc(func(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
		if req.Mode != elicit.ModeURL && len(req.Schema) > 0 {
			for _, f := range req.ParsedForm().Findings {
				if f.Code != elicit.CodeDefaultDropped && f.Code != elicit.CodeDefaultOutsideEnum {
					continue
				}
				line := f.String()
				fmt.Fprintf(a.stderr, "elicitty: %s asks %q: %s\n", req.ServerLabel(), safe.Block(req.Message), line)
				if log != nil {
					log.Notef(req.Server, "schema %s", line)
				}
				a.findingsMu.Lock()
				if len(a.findings) < 1000 {
					a.findings = append(a.findings, reportedFinding{Server: req.Server, Message: req.Message,
						Path: f.Path, Code: f.Code, Detail: f.Message})
				}
				a.findingsMu.Unlock()
			}
		}
		return inner.Answer(ctx, req)
	})
}

// reportedFindings returns the findings reported so far.
func (a *app) reportedFindings() []reportedFinding {
	a.findingsMu.Lock()
	defer a.findingsMu.Unlock()
	return append([]reportedFinding(nil), a.findings...)
}
