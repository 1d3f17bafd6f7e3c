package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// withSession connects to srv, runs fn, records answers and closes the session.
func (a *app) withSession(ctx context.Context, srv config.Server, fn func(context.Context, *transport.Session) error) error {
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s, err := a.connect(ctx, srv, log)
	if err != nil {
		return err
	}
	a.urlWaits.begin(s, cancel)
	err = fn(ctx, s)
	a.urlWaits.end()
	if errors.Is(context.Cause(ctx), errCancelledByUser) {
		fmt.Fprintf(a.stderr, "elicitty: %v\n", errCancelledByUser)
		err = &silentError{code: ExitCancel}
	}
	a.progress.finish()
	if cerr := s.Close(); err == nil && cerr != nil && ctx.Err() == nil {
		fmt.Fprintf(a.stderr, "elicitty: close %q: %v\n", srv.Name, cerr)
	}
	if rerr := a.writeRecords(); err == nil {
		err = rerr
	}
	return err
}

func (a *app) listCommand(what, short string) *cobra.Command {
	return &cobra.Command{
		Use:   what + " TARGET | " + what + " -- command args...",
		Short: short,
		Example: "  elicitty " + what + " demo\n  elicitty " + what + " https://mcp.example.com/mcp --json\n" +
			"  elicitty " + what + " -- npx -y @modelcontextprotocol/server-everything",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("%s takes only a TARGET, got extra arguments %q", what, rest)
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				switch what {
				case "tools":
					tools, err := s.Tools(ctx)
					if err != nil {
						return err
					}
					return a.printTools(tools, s.TaskSupport)
				case "prompts":
					prompts, err := s.Prompts(ctx)
					if err != nil {
						return err
					}
					return a.printPrompts(prompts)
				default:
					res, tmpls, err := s.Resources(ctx)
					if err != nil {
						return err
					}
					return a.printResources(res, tmpls)
				}
			})
		},
	}
}

// printJSON writes v as indented JSON. Server strings may hold C1, bidi or zero-width
// characters that JSON allows raw: they are written as \u escapes (safe.JSON).
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(safe.NewJSONWriter(a.stdout))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// firstLine returns the first line of s, sanitized.
func firstLine(s string) string {
	s = safe.Block(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// printTools writes tools as JSON or one line each; taskSupport gives a tool's
// execution.taskSupport, shown in front of the description when the tool runs as a task.
func (a *app) printTools(tools []*mcp.Tool, taskSupport func(string) string) error {
	if a.jsonOut {
		return a.printJSON(decodedSchemas(tools))
	}
	return printTable(a.stdout, len(tools), func(i int) (string, string) {
		desc := firstLine(tools[i].Description)
		switch v := taskSupport(tools[i].Name); v {
		case transport.TaskSupportRequired, transport.TaskSupportOptional:
			desc = "[task " + v + "] " + desc
		}
		return safe.Field(tools[i].Name), desc
	})
}

// decodedSchemas returns copies of tools whose input and output schemas, which the
// listing keeps as the server sent them, are decoded: --json prints each schema's
// members sorted by name, as it always has. A schema that does not decode is printed
// as sent.
func decodedSchemas(tools []*mcp.Tool) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		c := *t
		c.InputSchema, c.OutputSchema = decodedSchema(t.InputSchema), decodedSchema(t.OutputSchema)
		out = append(out, &c)
	}
	return out
}

func decodedSchema(schema any) any {
	raw, ok := schema.(json.RawMessage)
	if !ok {
		return schema
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	return v
}

func (a *app) printPrompts(prompts []*mcp.Prompt) error {
	if a.jsonOut {
		if prompts == nil {
			prompts = []*mcp.Prompt{}
		}
		return a.printJSON(prompts)
	}
	return printTable(a.stdout, len(prompts), func(i int) (string, string) {
		p := prompts[i]
		name := safe.Field(p.Name)
		for _, arg := range p.Arguments {
			if arg.Required {
				name += " " + safe.Field(arg.Name) + "="
			} else {
				name += " [" + safe.Field(arg.Name) + "=]"
			}
		}
		return name, firstLine(p.Description)
	})
}

func (a *app) printResources(res []*mcp.Resource, tmpls []*mcp.ResourceTemplate) error {
	if a.jsonOut {
		if res == nil {
			res = []*mcp.Resource{}
		}
		if tmpls == nil {
			tmpls = []*mcp.ResourceTemplate{}
		}
		return a.printJSON(map[string]any{"resources": res, "resourceTemplates": tmpls})
	}
	if err := printTable(a.stdout, len(res), func(i int) (string, string) {
		return safe.Field(res[i].URI), firstLine(res[i].Name + "  " + res[i].Description)
	}); err != nil {
		return err
	}
	return printTable(a.stdout, len(tmpls), func(i int) (string, string) {
		return safe.Field(tmpls[i].URITemplate), firstLine("(template) " + tmpls[i].Name + "  " + tmpls[i].Description)
	})
}

// printTable prints two aligned columns.
func printTable(w io.Writer, n int, row func(int) (string, string)) error {
	width := 0
	for i := range n {
		k, _ := row(i)
		width = max(width, len([]rune(k)))
	}
	width = min(width, 40)
	for i := range n {
		k, v := row(i)
		pad := width - len([]rune(k))
		if pad < 0 {
			pad = 0
		}
		line := k
		if v != "" {
			line += strings.Repeat(" ", pad) + "  " + v
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
