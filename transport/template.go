package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/elicitty/elicitty/internal/safe"
)

// TemplateVar is one variable of a resource's URI template (RFC 6570).
type TemplateVar struct {
	Name string
	// Optional is true for a variable used only in query expressions ({?x} and {&x}):
	// left empty, it is left out of the URI.
	Optional bool
}

// TemplateVars returns the variables of a URI template in the order they appear.
func TemplateVars(tmpl string) ([]TemplateVar, error) {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, fmt.Errorf("uri template %q: %w", safe.Line(tmpl), err)
	}
	required := map[string]bool{}
	for rest := tmpl; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		expr := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		if strings.HasPrefix(expr, "?") || strings.HasPrefix(expr, "&") {
			continue
		}
		expr = strings.TrimLeft(expr, "+#./;")
		for _, spec := range strings.Split(expr, ",") {
			name, _, _ := strings.Cut(strings.TrimSuffix(spec, "*"), ":")
			required[name] = true
		}
	}
	var out []TemplateVar
	for _, n := range t.Varnames() {
		out = append(out, TemplateVar{Name: n, Optional: !required[n]})
	}
	return out, nil
}

// IsTemplate reports whether s looks like a URI template rather than a URI: it has an
// expression in braces.
func IsTemplate(s string) bool {
	open := strings.IndexByte(s, '{')
	return open >= 0 && strings.IndexByte(s[open:], '}') > 0
}

// ExpandTemplate fills the variables of a URI template (RFC 6570) with vals. Every
// variable that is not optional must have a non-empty value, and every value must
// name a variable of the template.
func ExpandTemplate(tmpl string, vals map[string]string) (string, error) {
	vars, err := TemplateVars(tmpl)
	if err != nil {
		return "", err
	}
	known := map[string]bool{}
	var missing []string
	for _, v := range vars {
		known[v.Name] = true
		if !v.Optional && vals[v.Name] == "" {
			missing = append(missing, v.Name)
		}
	}
	for k := range vals {
		if !known[k] {
			return "", fmt.Errorf("uri template %q has no variable %q", safe.Line(tmpl), safe.Line(k))
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("uri template %q needs %s", safe.Line(tmpl), strings.Join(missing, ", "))
	}
	return FillTemplate(tmpl, vals), nil
}

// FillTemplate expands tmpl with the non-empty values in vals, leaving out the
// variables without one; a template that does not parse comes back as it is. It shows
// the URI being built; ExpandTemplate is the one to read.
func FillTemplate(tmpl string, vals map[string]string) string {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return tmpl
	}
	values := uritemplate.Values{}
	for k, v := range vals {
		if v != "" {
			values.Set(k, uritemplate.String(v))
		}
	}
	uri, err := t.Expand(values)
	if err != nil {
		return tmpl
	}
	return uri
}

// CompletionRef names what a completion/complete request is about: a prompt (by
// name) or a resource template (by its URI template).
type CompletionRef struct {
	Prompt   string
	Resource string
}

// Completion is what a server suggests for one argument, sanitized and bounded.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore"`
}

// maxCompletions bounds the suggestions kept (the protocol's own limit is 100), and
// maxCompletionLen the bytes of each.
const (
	maxCompletions   = 100
	maxCompletionLen = 1024
)

// ErrNoCompletions reports a server that does not offer the completions capability.
var ErrNoCompletions = errors.New("the server does not offer completions")

// SupportsCompletions reports whether the server declared the completions capability.
func (s *Session) SupportsCompletions() bool {
	c := s.Capabilities()
	return c != nil && c.Completions != nil
}

// Complete asks the server for suggestions for argument arg, typed so far as value, of
// a prompt or resource template; others are the arguments already filled in
// (completion/complete's context). The values come back one line each, sanitized,
// de-duplicated and at most 100; the request is bounded by the server's timeout.
func (s *Session) Complete(ctx context.Context, ref CompletionRef, arg, value string, others map[string]string) (Completion, error) {
	if !s.SupportsCompletions() {
		return Completion{}, ErrNoCompletions
	}
	p := &mcp.CompleteParams{Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	switch {
	case ref.Prompt != "":
		p.Ref = &mcp.CompleteReference{Type: "ref/prompt", Name: ref.Prompt}
	case ref.Resource != "":
		p.Ref = &mcp.CompleteReference{Type: "ref/resource", URI: ref.Resource}
	default:
		return Completion{}, errors.New("complete: no prompt or resource template named")
	}
	if len(others) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: others}
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	r, err := s.client().Complete(ctx, p)
	if err != nil {
		return Completion{}, s.wrap(ctx, "completion/complete", err)
	}
	return boundCompletion(r.Completion), nil
}

// boundCompletion sanitizes, de-duplicates and bounds a server's suggestions.
func boundCompletion(c mcp.CompletionResultDetails) Completion {
	out := Completion{Values: []string{}, Total: max(c.Total, 0), HasMore: c.HasMore}
	seen := map[string]bool{}
	for _, v := range c.Values {
		if len(v) > maxCompletionLen {
			v = v[:maxCompletionLen]
		}
		v = safe.Line(v)
		if v == "" || seen[v] {
			continue
		}
		if len(out.Values) == maxCompletions {
			out.HasMore = true
			break
		}
		seen[v] = true
		out.Values = append(out.Values, v)
	}
	return out
}
