package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/tree"
	"github.com/elicitty/elicitty/tui/form"
)

// maxRenderInput bounds what render reads from a file or stdin.
const maxRenderInput = 16 << 20

func (a *app) renderCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "render SCHEMA.json | render -",
		Short: "Show a requestedSchema as the form it becomes, and print the response JSON",
		Long: `Renders an elicitation requestedSchema without a server: prints lint findings for the
protocol version (--protocol, default 2025-11-25), shows the form (on a terminal, or
answered from --answers), and prints the response JSON that would be sent after the
defaults merge and validation. Server authors use it to preview their schemas.

The file (or stdin, with -) holds either a bare requestedSchema or the whole params of
an elicitation/create request ({"message": ..., "requestedSchema": ...}, or a URL-mode
request with "mode": "url"), as a wire log shows them; then the form shows that message.`,
		Example: "  elicitty render schema.json\n  elicitty render schema.json --protocol 2025-06-18 --answers answers.yaml\n" +
			"  elicitty render - --answers answers.yaml < params.json",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, data, err := a.readRenderInput(args[0])
			if err != nil {
				return err
			}
			if _, err := tree.ParseJSON(data, &tree.Options{KeepLastDuplicate: true}); err != nil {
				var te *tree.Error
				if errors.As(err, &te) && te.Loc.Line > 0 {
					return usagef("%s:%d:%d: schema is not valid JSON: %s", name, te.Loc.Line, te.Loc.Column, strings.TrimPrefix(te.Msg, "invalid JSON: "))
				}
				return usagef("%s: schema is not valid JSON: %w", name, err)
			}
			p, err := a.plan(config.Server{Name: "render", Protocol: protocol.Version20251125}, frontEnd{showsFindings: true}, nil)
			if err != nil {
				return err
			}
			req, isParams, err := paramsRequest(data, p.server.Protocol)
			if err != nil {
				return usagef("%s: %w", name, err)
			}
			if isParams {
				req.FileInputs = p.options.FileInputs // --experimental file-inputs
			}
			if isParams {
				err = form.Preview(cmd.Context(), req, form.PreviewText{}, p.options.Answerer, a.stdout, a.stderr)
			} else {
				err = form.Render(cmd.Context(), data, p.server.Protocol, p.options.Answerer, a.stdout, a.stderr)
			}
			if err != nil {
				return err
			}
			if err := a.writeRecords(); err != nil {
				return fmt.Errorf("render: %w", err)
			}
			return nil
		},
	}
}

// readRenderInput reads render's argument: a file, or stdin for "-", at most
// maxRenderInput bytes. It returns the name errors give the input.
func (a *app) readRenderInput(arg string) (string, []byte, error) {
	if arg != "-" {
		// A regular file only: a FIFO or device is refused without blocking.
		data, err := boundedfile.Read(arg, maxRenderInput)
		if errors.Is(err, boundedfile.ErrTooLarge) {
			return "", nil, usagef("%s: larger than %d MiB", arg, maxRenderInput>>20)
		}
		if err != nil {
			return "", nil, usagef("read schema: %w", err)
		}
		return arg, data, nil
	}
	name := "stdin"
	data, err := io.ReadAll(io.LimitReader(a.stdin, maxRenderInput+1))
	if err != nil {
		return "", nil, usagef("read schema from %s: %w", name, err)
	}
	if len(data) > maxRenderInput {
		return "", nil, usagef("%s: larger than %d MiB", name, maxRenderInput>>20)
	}
	return name, data, nil
}

// paramsRequest turns data into the request it describes when data is the params of an
// elicitation/create request (it has "requestedSchema", or "mode": "url"); ok is false
// for a bare schema.
func paramsRequest(data []byte, proto string) (req *elicit.Request, ok bool, err error) {
	var p struct {
		Mode            string          `json:"mode"`
		Message         *string         `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		URL             string          `json:"url"`
		ElicitationID   string          `json:"elicitationId"`
	}
	if json.Unmarshal(data, &p) != nil || (p.RequestedSchema == nil && p.Mode != "url") {
		return nil, false, nil
	}
	if p.Message == nil {
		return nil, false, errors.New(`elicitation/create params without "message"`)
	}
	req = &elicit.Request{Server: "render", Protocol: proto, Mode: elicit.ModeForm, Message: *p.Message,
		Schema: p.RequestedSchema, Params: json.RawMessage(data)}
	if p.Mode == "url" {
		req.Mode, req.URL, req.ElicitationID, req.URLDeclared = elicit.ModeURL, p.URL, p.ElicitationID, true
	}
	return req, true, nil
}
