package form

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// Render previews a requestedSchema as the form it becomes (`elicitty render`): it writes
// the lint findings for protocol to diag, asks a, and writes the response JSON to out.
// a answers as a session's answerer does: behind an *elicit.Engine, which merges
// defaults and validates (or not: the engine's NoValidate). Its errors, such as
// *elicit.ViolationsError, are returned unwrapped.
func Render(ctx context.Context, schema []byte, protocol string, a elicit.Answerer, out, diag io.Writer) error {
	if !json.Valid(schema) {
		return errors.New("ui: render: schema is not valid JSON")
	}
	writeFindings(diag, elicit.Parse(schema, protocol).Findings)
	req := &elicit.Request{
		Server:   "render",
		Protocol: protocol,
		Mode:     elicit.ModeForm,
		Message:  "Preview of a requestedSchema",
		Schema:   json.RawMessage(schema),
	}
	resp, err := a.Answer(ctx, req)
	if err != nil {
		return err
	}
	return writeResponse(out, resp)
}

// PreviewText is the documentation prose of a declared elicitation (MCP Description):
// when it is asked and what a decline or cancel leads to. Empty strings are not shown.
type PreviewText struct {
	When, OnDecline, OnCancel string
}

// Preview shows a declared elicitation as the user would meet it (`elicitty desc
// preview`): the prose of text on diag, then the request through a (behind an Engine,
// as for Render), then the response JSON on out and, on diag, what the declaration says
// follows from a decline or cancel.
func Preview(ctx context.Context, req *elicit.Request, text PreviewText, a elicit.Answerer, out, diag io.Writer) error {
	if req.Mode != elicit.ModeURL && len(req.Schema) > 0 {
		writeFindings(diag, req.ParsedForm().Findings)
	}
	if diag != nil && text.When != "" {
		fmt.Fprintf(diag, "asked when: %s\n", safe.Block(text.When))
	}
	resp, err := a.Answer(ctx, req)
	if err != nil {
		return err
	}
	if diag != nil {
		switch {
		case resp.Action == elicit.Decline && text.OnDecline != "":
			fmt.Fprintf(diag, "on decline: %s\n", safe.Block(text.OnDecline))
		case resp.Action == elicit.Cancel && text.OnCancel != "":
			fmt.Fprintf(diag, "on cancel: %s\n", safe.Block(text.OnCancel))
		}
	}
	return writeResponse(out, resp)
}

func writeFindings(diag io.Writer, findings []elicit.Finding) {
	if diag == nil {
		return
	}
	for _, fd := range findings {
		fmt.Fprintln(diag, fd.String())
	}
}

func writeResponse(out io.Writer, resp elicit.Response) error {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(resp); err != nil {
		return fmt.Errorf("ui: encode response: %w", err)
	}
	// The content holds the server's defaults: no raw C1, bidi or zero-width character.
	if _, err := out.Write(safe.JSON(buf.Bytes())); err != nil {
		return fmt.Errorf("ui: write response: %w", err)
	}
	return nil
}
