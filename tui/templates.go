package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/transport"
)

// openCompleteForm opens the argument form of a resource template or a prompt whose
// server offers completions: its values are typed with the server's suggestions.
func (m *Model) openCompleteForm(kind catKind, it catItem) tea.Cmd {
	if it.varsErr != nil {
		m.status = it.server + ": " + it.varsErr.Error()
		return nil
	}
	button, template := "Get", ""
	if kind == catResources {
		button, template = "Read", it.name
	}
	so := m.screenSize()
	f := newCompleteForm(m.ctx, template, it.desc, button, it.vars, m.lastArgs[argsKey(kind, it)], m.completer(kind, it), &m.st, so)
	m.push(&argForm{kind: kind, item: it, screen: f})
	return f.Init()
}

// completer returns the completion/complete function for it's arguments, or nil when
// its server does not offer completions.
func (m *Model) completer(kind catKind, it catItem) completeFunc {
	cs, ok := m.servers.session(it.server).(completionSession)
	if !ok || !cs.SupportsCompletions() {
		return nil
	}
	ref := transport.CompletionRef{Prompt: it.name}
	if kind == catResources {
		ref = transport.CompletionRef{Resource: it.name}
	}
	return func(ctx context.Context, arg, value string, others map[string]string) (transport.Completion, error) {
		return cs.Complete(ctx, ref, arg, value, others)
	}
}

// expandWith expands the URI template tmpl with the values in content.
func expandWith(tmpl string, content map[string]any) (string, error) {
	vals := map[string]string{}
	for k, v := range content {
		if s, ok := v.(string); ok {
			vals[k] = s
		} else {
			vals[k] = fmt.Sprint(v)
		}
	}
	return transport.ExpandTemplate(tmpl, vals)
}

// readTemplate reads the URI that the values in content make of template it.
func (m *Model) readTemplate(it catItem, content map[string]any) tea.Cmd {
	uri, err := expandWith(it.name, content)
	if err != nil {
		m.status = err.Error()
		return nil
	}
	read := it
	read.name, read.template, read.vars = uri, false, nil
	return m.startCall(catResources, read, nil)
}

// varsText lists a template's variables for its detail view, one a line.
func varsText(it catItem) string {
	if it.varsErr != nil {
		return it.varsErr.Error()
	}
	var lines []string
	for _, v := range it.vars {
		line := oneLine(v.name)
		if !v.required {
			line += " (optional)"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
