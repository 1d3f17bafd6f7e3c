package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// completeCommand is `complete TARGET (--resource TEMPLATE | --prompt NAME) --arg
// name=value...`: the server's completion/complete suggestions for the last --arg, the
// earlier ones sent as context.
func (a *app) completeCommand() *cobra.Command {
	var (
		resource, prompt string
		argv             []string
	)
	cmd := &cobra.Command{
		Use:   "complete TARGET (--resource TEMPLATE | --prompt NAME) --arg name=value...",
		Short: "Ask a server to complete a resource template variable or prompt argument (completion/complete)",
		Long: `complete prints the values a server suggests for an argument of a prompt or a variable
of a resource template, one per line (--json: {"values":[...],"total":N,"hasMore":bool}).
The last --arg is the one completed, with what is typed so far; earlier --arg values are
sent as context (arguments already chosen).`,
		Example: `  elicitty complete demo --resource 'demo://items/{id}' --arg id=4
  elicitty complete demo --prompt greet --arg name=A --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) != 0 {
				return usagef("complete takes only TARGET; name the argument with --arg name=value")
			}
			if (resource == "") == (prompt == "") {
				return usagef("give exactly one of --resource TEMPLATE and --prompt NAME")
			}
			if len(argv) == 0 {
				return usagef("missing --arg name=value: the argument to complete")
			}
			others := map[string]string{}
			var name, value string
			for i, kv := range argv {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usagef("--arg %q is not name=value", kv)
				}
				if i == len(argv)-1 {
					name, value = k, v
				} else {
					others[k] = v
				}
			}
			if resource != "" {
				if err := checkTemplateVars(resource, append(keys(others), name)); err != nil {
					return err
				}
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				c, err := s.Complete(ctx, transport.CompletionRef{Prompt: prompt, Resource: resource}, name, value, others)
				if errors.Is(err, transport.ErrNoCompletions) {
					return fmt.Errorf("%s: %w (it declares no completions capability)", safe.Line(s.Name()), err)
				}
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(c)
				}
				for _, v := range c.Values {
					fmt.Fprintln(a.stdout, safe.Field(v))
				}
				if c.HasMore || c.Total > len(c.Values) {
					fmt.Fprintf(a.stderr, "(%d of %s shown)\n", len(c.Values), totalWord(c))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&resource, "resource", "", "the resource template (its URI template) whose variable to complete")
	f.StringVar(&prompt, "prompt", "", "the prompt whose argument to complete")
	f.StringArrayVar(&argv, "arg", nil, "name=value; the last one is completed, earlier ones are context (repeatable)")
	return cmd
}

// totalWord says how many suggestions the server has in all.
func totalWord(c transport.Completion) string {
	if c.Total > len(c.Values) {
		return fmt.Sprint(c.Total)
	}
	return "more"
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkTemplateVars reports a name that is not a variable of the URI template tmpl.
func checkTemplateVars(tmpl string, names []string) error {
	vars, err := transport.TemplateVars(tmpl)
	if err != nil {
		return &usageError{err: err}
	}
	known := map[string]bool{}
	var list []string
	for _, v := range vars {
		known[v.Name] = true
		list = append(list, v.Name)
	}
	for _, n := range names {
		if !known[n] {
			return usagef("%q is not a variable of %s (it has: %s)", safe.Line(n), safe.Line(tmpl), strings.Join(list, ", "))
		}
	}
	return nil
}

// readURI is the URI read reads: uri itself, or the URI template uri expanded with the
// name=value arguments.
func readURI(uri string, kv []string) (string, error) {
	if !transport.IsTemplate(uri) {
		if len(kv) > 0 {
			return "", usagef("%s is not a URI template: name=value arguments fill only {variables}", safe.Line(uri))
		}
		return uri, nil
	}
	vals := map[string]string{}
	for _, p := range kv {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return "", usagef("%q is not name=value", p)
		}
		vals[k] = v
	}
	expanded, err := transport.ExpandTemplate(uri, vals)
	if err != nil {
		return "", &usageError{err: err}
	}
	return expanded, nil
}
