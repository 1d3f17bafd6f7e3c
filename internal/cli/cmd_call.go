package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

func (a *app) callCommand() *cobra.Command {
	var asTask bool
	var taskTTL time.Duration
	cmd := &cobra.Command{
		Use:   "call TARGET TOOL [JSON | key=value...]",
		Short: "Call a tool; elicitations are answered from --answers, a terminal prompt, or not at all (exit 3)",
		Example: `  elicitty call demo deploy env=prod
  elicitty call https://mcp.example.com/mcp deploy '{"env":"prod"}'
  elicitty call add a=1 b=2 -- elicitty serve-demo
  elicitty call demo form_all_kinds --answers answers.yaml --json
  elicitty call demo upload_file file=@notes.txt --experimental file-inputs`,
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usagef("missing TOOL name")
			}
			name := rest[0]
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				// key=value arguments are typed by the tool's input schema; a JSON object
				// or no arguments need no tools/list round trip.
				var schema any
				if kv := rest[1:]; len(kv) > 0 && !(len(kv) == 1 && strings.HasPrefix(strings.TrimSpace(kv[0]), "{")) {
					if tools, err := s.Tools(ctx); err == nil {
						for _, t := range tools {
							if t.Name == name {
								schema = t.InputSchema
							}
						}
					}
				}
				argv, err := parseArgs(rest[1:], schema)
				if err != nil {
					return err
				}
				for _, w := range unknownArgs(name, argv, schema) {
					fmt.Fprintln(a.stderr, "elicitty: warning: "+w)
				}
				if err := fileArgs(s, name, schema, argv, a.stderr); err != nil {
					return err
				}
				var res *mcp.CallToolResult
				var rounds []transport.Round
				if asTask {
					// A tool whose taskSupport is "required" runs as a task without --task.
					if _, err := s.WantsTask(ctx, name, true); err != nil {
						return usagef("%v", err)
					}
					res, rounds, err = s.CallToolTask(ctx, name, argv, taskTTL)
				} else {
					res, rounds, err = s.CallTool(ctx, name, argv)
				}
				a.urlWaits.end() // the call is over, and so is any wait for its link
				if err != nil {
					return err
				}
				if a.jsonOut {
					out := a.resultJSON(s, res, rounds)
					if t := callTask(s, res); t != nil {
						out["task"] = t
					}
					if err := a.printJSON(out); err != nil {
						return err
					}
				} else {
					a.printContent(res.Content, res.StructuredContent)
				}
				if res.IsError {
					return &silentError{code: ExitToolError}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asTask, "task", false, "call the tool as a task (MCP 2025-11-25; tools whose taskSupport is required always are)")
	cmd.Flags().DurationVar(&taskTTL, "task-ttl", transport.DefaultTaskTTL, "with --task: how long the server should keep the task")
	return cmd
}

func (a *app) promptCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "prompt TARGET NAME [JSON | key=value...]",
		Short:   "Get a prompt (prompts/get)",
		Example: "  elicitty prompt demo greet name=Ada",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usagef("missing prompt NAME")
			}
			raw, err := parseArgs(rest[1:], nil)
			if err != nil {
				return err
			}
			sargs := map[string]string{}
			for k, v := range raw {
				if s, ok := v.(string); ok {
					sargs[k] = s
				} else {
					b, _ := json.Marshal(v)
					sargs[k] = string(b)
				}
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				res, rounds, err := s.GetPrompt(ctx, rest[0], sargs)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(a.resultJSON(s, res, rounds))
				}
				if res.Description != "" {
					fmt.Fprintf(a.stdout, "# %s\n", firstLine(res.Description))
				}
				for _, m := range res.Messages {
					fmt.Fprintf(a.stdout, "[%s]\n", safe.Field(string(m.Role)))
					a.printContent([]mcp.Content{m.Content}, nil)
				}
				return nil
			})
		},
	}
}

func (a *app) readCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "read TARGET URI [name=value...]",
		Short: "Read a resource (resources/read); a URI template's {variables} are filled from name=value",
		Example: `  elicitty read demo demo://readme
  elicitty read demo 'demo://items/{id}' id=42`,
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usagef("missing URI")
			}
			uri, err := readURI(rest[0], rest[1:])
			if err != nil {
				return err
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				res, rounds, err := s.ReadResource(ctx, uri)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(a.resultJSON(s, res, rounds))
				}
				for _, c := range res.Contents {
					if c.Text != "" {
						fmt.Fprintln(a.stdout, safe.Block(c.Text))
					} else {
						fmt.Fprintf(a.stdout, "[blob %s, %d bytes, %s]\n", safe.Field(c.URI), len(c.Blob), safe.Field(c.MIMEType))
					}
				}
				return nil
			})
		},
	}
}

func nonNilRounds(r []transport.Round) []transport.Round {
	if r == nil {
		return []transport.Round{}
	}
	return r
}

// printContent prints a result's content blocks as text, with summaries for media.
func (a *app) printContent(content []mcp.Content, structured any) {
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(a.stdout, safe.Block(c.Text))
		case *mcp.ImageContent:
			fmt.Fprintf(a.stdout, "[image %s, %d bytes]\n", safe.Field(c.MIMEType), len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(a.stdout, "[audio %s, %d bytes]\n", safe.Field(c.MIMEType), len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(a.stdout, "[resource link %s %s]\n", safe.Field(c.URI), safe.Field(c.Name))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				fmt.Fprintln(a.stdout, safe.Block(c.Resource.Text))
			} else if c.Resource != nil {
				fmt.Fprintf(a.stdout, "[resource %s, %d bytes]\n", safe.Field(c.Resource.URI), len(c.Resource.Blob))
			}
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintln(a.stdout, safe.Block(string(b)))
		}
	}
	if structured != nil && len(content) == 0 {
		b, _ := json.MarshalIndent(structured, "", "  ")
		fmt.Fprintln(a.stdout, safe.Block(string(b)))
	}
}

// parseArgs turns the command line's arguments into a tool's arguments: one JSON object,
// or key=value pairs whose values are converted by the property's type in schema.
func parseArgs(args []string, schema any) (map[string]any, error) {
	out := map[string]any{}
	if len(args) == 1 && strings.HasPrefix(strings.TrimSpace(args[0]), "{") {
		if err := json.Unmarshal([]byte(args[0]), &out); err != nil {
			return nil, usagef("arguments are not a JSON object: %w", err)
		}
		return out, nil
	}
	props := schemaProps(schema)
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("argument %q is not key=value (or give one JSON object)", kv)
		}
		val, err := coerce(v, props[k])
		if err != nil {
			return nil, usagef("argument %q: %w", k, err)
		}
		out[k] = val
	}
	return out, nil
}

// unknownArgs names each argument of argv that tool's input schema (decoded any, nil:
// not known) has no property for, with the nearest property name; none when the schema
// lets any property through (additionalProperties true or a schema).
func unknownArgs(tool string, argv map[string]any, schema any) []string {
	m := schemaMap(schema)
	if m == nil {
		return nil
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		return nil
	}
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	keys := make([]string, 0, len(argv))
	for k := range argv {
		if _, ok := props[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		msg := fmt.Sprintf("tool %q has no argument %q, sent anyway", safe.Block(tool), safe.Block(k))
		switch near := elicit.NearestName(k, names); {
		case near != "":
			msg += fmt.Sprintf("; did you mean %q?", safe.Block(near))
		case len(names) > 0:
			msg += " (its arguments: " + safe.Field(strings.Join(names, ", ")) + ")"
		default:
			msg += " (it takes no arguments)"
		}
		out = append(out, msg)
	}
	return out
}

// schemaMap decodes a JSON schema given as any (a map, raw JSON or a typed value);
// nil when it is none.
func schemaMap(schema any) map[string]any {
	var m map[string]any
	switch s := schema.(type) {
	case nil:
		return nil
	case map[string]any:
		m = s
	case json.RawMessage:
		_ = json.Unmarshal(s, &m)
	default:
		b, err := json.Marshal(s)
		if err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	return m
}

// schemaProps returns the property types of a JSON object schema (decoded any).
func schemaProps(schema any) map[string]string {
	props := map[string]string{}
	p, _ := schemaMap(schema)["properties"].(map[string]any)
	for name, v := range p {
		if ps, ok := v.(map[string]any); ok {
			if t, ok := ps["type"].(string); ok {
				props[name] = t
			}
		}
	}
	return props
}

// coerce converts a command-line value by its schema type; untyped values are JSON
// when they parse as JSON scalars/arrays/objects, else strings.
func coerce(v, typ string) (any, error) {
	switch typ {
	case "string":
		return v, nil
	case "":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err == nil {
			return x, nil
		}
		return v, nil
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return nil, fmt.Errorf("%q is not a valid %s", v, typ)
	}
	return x, nil
}

// resultJSON is the --json output of call, prompt and read: the result, the MRTR
// rounds, the protocol era, and which server answered (its config name and its own
// serverInfo; printJSON sanitizes the server's strings).
func (a *app) resultJSON(s *transport.Session, res any, rounds []transport.Round) map[string]any {
	server := map[string]any{"name": s.Name()}
	if info := s.ServerInfo(); info != nil {
		server["info"] = info
	}
	out := map[string]any{"result": res, "rounds": nonNilRounds(rounds), "protocol": s.Era(), "server": server}
	if f := a.reportedFindings(); len(f) > 0 {
		out["findings"] = f
	}
	return out
}
