package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/transport"
)

// catKind is what a catalog tab lists.
type catKind int

const (
	catTools catKind = iota
	catPrompts
	catResources
)

// catItem is one tool, prompt or resource offered by a server.
type catItem struct {
	server string
	name   string // tool or prompt name, resource URI
	desc   string
	schema json.RawMessage // tool inputSchema, or a schema built from prompt arguments
	// title is the item's own title and annotations a tool's (JSON), for the detail view.
	title       string
	annotations json.RawMessage
	// template marks a resource template (name is its URI template); mime is a
	// resource's or template's MIME type.
	template bool
	mime     string
	// readOnly is a tool whose annotations say readOnlyHint: true and not
	// destructiveHint: true; any other tool may change things, and asks before it
	// runs without a form.
	readOnly bool
	// vars are a prompt's arguments or a template's variables, in order; varsErr says
	// why a template's could not be read.
	vars    []argSpec
	varsErr error
}

// catalogPane lists the tools, prompts or resources of every ready server.
type catalogPane struct {
	kind   catKind
	items  []catItem
	f      filterBox
	only   string            // the one server shown, or "" for all (key s)
	view   []int             // indexes into items that pass the filter and only
	cursor int               // index into view
	marks  map[string]string // resKey -> a mark before the name (Resources: * updated, + subscribed)
	// empty says why the list has no item: "(nothing yet)" while a server connects or
	// lists, else what the Model knows (no server ready, or none offers any).
	empty string
	w, h  int
	st    *styles
}

// SetSize sets the pane's outer size.
func (c *catalogPane) SetSize(w, h int) { c.w, c.h = w, h }

func (c *catalogPane) move(d int) {
	c.cursor = max(0, min(len(c.view)-1, c.cursor+d))
}

// selected returns the item under the cursor.
func (c *catalogPane) selected() (catItem, bool) {
	if c.cursor < 0 || c.cursor >= len(c.view) {
		return catItem{}, false
	}
	return c.items[c.view[c.cursor]], true
}

// refilter recomputes the items shown after the items, the filter or only changed.
func (c *catalogPane) refilter() {
	c.view = c.view[:0]
	words := strings.Fields(c.f.value)
	for i, it := range c.items {
		if c.only != "" && it.server != c.only {
			continue
		}
		if len(words) == 0 { // no filter: everything matches
			c.view = append(c.view, i)
			continue
		}
		hay := it.server + " " + it.name + " " + it.desc
		if it.template {
			hay += " template"
		}
		if !matchAll(c.f.value, hay) {
			continue
		}
		c.view = append(c.view, i)
	}
	c.move(0)
}

// editKey applies a key typed while editing the filter; a changed filter selects its
// first match, so that enter never runs the row that was selected before.
func (c *catalogPane) editKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, changed := c.f.key(msg)
	if changed {
		c.cursor = 0
		c.refilter()
	}
	return cmd
}

// replace swaps the items of server for items, keeping the list sorted by server then name.
func (c *catalogPane) replace(server string, items []catItem) {
	// The other servers' items and the new ones are sorted by pointer (not whole items:
	// thousands of tools), then copied once into the new list.
	var others []*catItem
	for i := range c.items {
		if c.items[i].server != server {
			others = append(others, &c.items[i])
		}
	}
	order := make([]*catItem, 0, len(others)+len(items))
	order = append(order, others...)
	for i := range items {
		order = append(order, &items[i])
	}
	slices.SortStableFunc(order, func(a, b *catItem) int {
		return cmp.Or(strings.Compare(a.server, b.server), strings.Compare(a.name, b.name))
	})
	sorted := make([]catItem, len(order))
	for k, it := range order {
		sorted[k] = *it
	}
	c.items = sorted
	c.refilter()
}

// catalogItems converts a catalogMsg into the items of each tab.
func catalogItems(msg catalogMsg) (tools, prompts, resources []catItem) {
	tools = make([]catItem, 0, len(msg.tools))
	prompts = make([]catItem, 0, len(msg.prompts))
	resources = make([]catItem, 0, len(msg.resources)+len(msg.templates))
	for _, t := range msg.tools {
		// The schema as sent keeps the server's property order, the order to ask in;
		// mcp.Tool's decoded InputSchema would sort it.
		raw := msg.schemas[t.Name]
		if len(raw) == 0 {
			raw, _ = json.Marshal(t.InputSchema)
		}
		it := catItem{server: msg.server, name: t.Name, desc: t.Description, schema: raw, title: t.Title}
		if a := t.Annotations; a != nil {
			it.annotations, _ = json.Marshal(a)
			it.readOnly = a.ReadOnlyHint && (a.DestructiveHint == nil || !*a.DestructiveHint)
		}
		tools = append(tools, it)
	}
	for _, p := range msg.prompts {
		it := catItem{server: msg.server, name: p.Name, desc: p.Description, schema: promptSchema(p.Arguments), title: p.Title}
		for _, a := range p.Arguments {
			if a != nil {
				it.vars = append(it.vars, argSpec{name: a.Name, desc: a.Description, required: a.Required})
			}
		}
		prompts = append(prompts, it)
	}
	for _, r := range msg.resources {
		resources = append(resources, catItem{server: msg.server, name: r.URI, desc: r.Description, title: r.Title, mime: r.MIMEType})
	}
	for _, t := range msg.templates {
		it := catItem{server: msg.server, name: t.URITemplate, desc: t.Description, title: t.Title, mime: t.MIMEType, template: true}
		vars, err := transport.TemplateVars(t.URITemplate)
		for _, v := range vars {
			it.vars = append(it.vars, argSpec{name: v.Name, required: !v.Optional})
		}
		it.varsErr = err
		resources = append(resources, it)
	}
	return tools, prompts, resources
}

// promptSchema builds a flat string schema from prompt arguments, in their order.
func promptSchema(args []*mcp.PromptArgument) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	b := []byte(`{"type":"object","properties":{`)
	var req []string
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(a.Name)
		desc, _ := json.Marshal(a.Description)
		b = fmt.Appendf(b, `%s:{"type":"string","description":%s}`, name, desc)
		if a.Required {
			req = append(req, a.Name)
		}
	}
	b = append(b, '}')
	if len(req) > 0 {
		r, _ := json.Marshal(req)
		b = fmt.Appendf(b, `,"required":%s`, r)
	}
	return append(b, '}')
}

// View renders the list, exactly c.h lines. A head line shows the filter and the
// server the list is narrowed to, when there is either.
func (c catalogPane) View() string {
	var lines []string
	if head := c.head(); head != "" {
		lines = append(lines, c.st.Title.Render(trunc(head, c.w)))
	}
	switch {
	case len(c.items) == 0:
		lines = append(lines, c.st.Dim.Render(cmp.Or(c.empty, "(nothing yet)")))
		return fitLines(lines, c.h)
	case len(c.view) == 0:
		lines = append(lines, c.st.Dim.Render("(nothing matches)"))
		return fitLines(lines, c.h)
	}
	// Keep the cursor visible.
	room := c.h - len(lines)
	start := 0
	if c.cursor >= room {
		start = c.cursor - room + 1
	}
	for i := start; i < len(c.view) && len(lines) < c.h; i++ {
		it := c.items[c.view[i]]
		name := oneLine(it.name)
		if mark := c.marks[resKey(it.server, it.name)]; mark != "" {
			name = mark + " " + name
		}
		desc := oneLine(firstLine(it.desc))
		if it.template {
			desc = "template: " + desc
		}
		line := trunc(fmt.Sprintf("%-10s %s  %s", label(it.server, 10), name, desc), c.w)
		if i == c.cursor {
			line = c.st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	return fitLines(lines, c.h)
}

// head is the list's head line: how many items pass, the server it is narrowed to and
// the filter; "" when the list shows everything.
func (c catalogPane) head() string {
	if c.only == "" && c.f.value == "" && !c.f.editing {
		return ""
	}
	head := fmt.Sprintf("%s: %d/%d", tabNames[c.kind], len(c.view), len(c.items))
	if c.only != "" {
		head += " · only " + oneLine(c.only)
	}
	return head + c.f.label("")
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
