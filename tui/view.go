package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/internal/safe"
)

// View renders the whole screen: tab bar, servers pane beside the main area, status
// bar and help bar. It does no I/O.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "elicitty"
	return v
}

func (m *Model) render() string {
	bodyH := m.bodyHeight()
	mw := m.listWidth()
	if m.screenShown() {
		mw = m.screenWidth()
	}
	var main string
	switch top := m.top(); {
	case m.statusOpen:
		main = m.statusView(mw, bodyH)
	case top != nil:
		main = top.view(m, mw, bodyH)
	case m.tab == tabLog:
		main = m.log.View()
	case m.tab == tabInbox:
		main = m.inbox.View(m.now)
	default:
		c := m.cats[m.tab]
		c.empty = m.servers.emptyList(c.kind)
		main = c.View() + "\n" + m.calls.View()
	}
	main = lipgloss.NewStyle().Width(mw).MaxWidth(mw).Height(bodyH).MaxHeight(bodyH).Render(main)
	body := main
	if m.serversShown() {
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.servers.View(), main)
	}
	return strings.Join([]string{m.tabBar(), body, m.statusBar(), m.helpBar()}, "\n")
}

// tabBar is the top line: the tabs and the badge of questions not seen yet. In a
// narrow terminal the program's name goes, then the tab names shorten, so that the
// badge stays in view.
func (m *Model) tabBar() string {
	badge := ""
	if m.unseen > 0 {
		badge = " " + m.st.Badge.Render(fmt.Sprintf(" %d new ", m.unseen))
	}
	var bar string
	for _, short := range []bool{false, true} {
		var parts []string
		for t := range numTabs {
			name := tabNames[t]
			if short {
				name = shortTabNames[t]
			}
			if t == tabInbox && len(m.inbox.items) > 0 {
				name = fmt.Sprintf("%s %d", name, len(m.inbox.items))
			}
			if t == m.tab && m.active == nil && m.args == nil {
				parts = append(parts, m.st.ActiveTab.Render(name))
			} else {
				parts = append(parts, m.st.Tab.Render(name))
			}
		}
		tabs := strings.Join(parts, "|")
		if bar = "elicitty " + tabs + badge; lipgloss.Width(bar) <= m.w {
			break
		}
		if bar = tabs + badge; lipgloss.Width(bar) <= m.w {
			break
		}
	}
	return lipgloss.NewStyle().MaxWidth(m.w).Render(bar)
}

// shortTabNames are the tab names of a narrow terminal.
var shortTabNames = [numTabs]string{"Tools", "Prompts", "Res.", "Log", "Inbox"}

func (m *Model) screenView(w, h int) string {
	var head, body string
	switch {
	case m.active != nil:
		others := len(m.inbox.items) - 1
		head = "Answering " + describe(m.active.req)
		// The time left and the count go first when the line is cut: they are cut last.
		var tail string
		if d := m.active.req.Deadline; !d.IsZero() {
			tail += " · " + max(d.Sub(m.now).Truncate(time.Second), 0).String() + " left"
		}
		if others > 0 {
			tail += fmt.Sprintf(" · %d more pending", others)
		}
		if lipgloss.Width(oneLine(head+tail)) > w {
			head = trunc(oneLine(head), max(w-lipgloss.Width(tail), 10))
		}
		head += tail
		if m.active.fs != nil {
			body = m.active.fs.View()
		} else if m.active.cs != nil {
			body = m.active.cs.View()
		}
	case m.args != nil:
		head = callName(m.args.kind, m.args.item) + " on " + m.args.item.server
		body = m.args.screen.View()
	}
	lines := append([]string{m.st.Title.Render(trunc(oneLine(head), w))}, strings.Split(body, "\n")...)
	return fitLines(lines, h)
}

// detailsView shows the selected server's full state and failure text, wrapped.
func (m *Model) detailsView(w, h int) string {
	var stderr []string
	if r := m.servers.selected(); r != nil {
		stderr = m.log.stderrTail(r.srv.Name, detailStderr)
	}
	title, body := m.servers.detail(stderr)
	lines := []string{m.st.Title.Render(trunc(oneLine(title), w))}
	for _, para := range strings.Split(body, "\n") {
		if strings.TrimSpace(para) == "" {
			lines = append(lines, "")
			continue
		}
		indent := para[:len(para)-len(strings.TrimLeft(para, " "))]
		for _, l := range wrapWords(oneLine(para), max(w-1-len(indent), 1)) {
			lines = append(lines, indent+l)
		}
	}
	for len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	keys := "r restart · s next server · any other key: close"
	if room := h - 1; len(lines) > room {
		// The end matters most (the failure, the stderr tail): the title, then the
		// last lines that fit.
		lines = append(lines[:1:1], lines[len(lines)-room+1:]...)
	}
	lines = append(lines, m.st.Dim.Render(trunc(keys, w)))
	return fitLines(lines, h)
}

// detailStderr is how many stderr lines the server details show.
const detailStderr = 10

// describeView shows, from line *off on, the selected tool, prompt or resource in full: its description,
// annotations and input schema (in the server's order), sanitized and wrapped.
func (m *Model) describeView(w, h int, off *int) string {
	it, _ := m.cats[m.tab].selected()
	what := map[tab]string{tabTools: "Tool", tabPrompts: "Prompt", tabResources: "Resource"}[m.tab]
	if it.template {
		what = "Resource template"
	}
	title := what + " " + oneLine(safe.Block(it.name)) + " on " + oneLine(safe.Block(it.server))
	lines := []string{m.st.Title.Render(trunc(title, w))}
	// quoted marks the lines of a server's free text with a bar, so that none of
	// them can pass for a line of ours.
	quoted := m.st.Dim.Render("┆") + " "
	para := func(head, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		lead := "  "
		if head == "Description" {
			lead = quoted
		}
		lines = append(lines, "", m.st.Dim.Render(head))
		for _, l := range strings.Split(body, "\n") {
			for _, wl := range wrapLine(l, max(w-3, 1)) {
				lines = append(lines, lead+wl)
			}
		}
	}
	if it.title != "" {
		para("Title", oneLine(safe.Block(it.title)))
	}
	para("Description", safe.Block(it.desc))
	if it.template {
		para("URI template", safe.Block(it.name))
		para("Variables", varsText(it))
	}
	para("MIME type", oneLine(it.mime))
	para("Annotations", indentRaw(it.annotations))
	para("Input schema", indentRaw(it.schema))
	hint := "any key: close"
	if room := h - 2; len(lines) > h-1 && room > 0 {
		// Scroll the body; the title and the hint stay in view.
		body := lines[1:]
		*off = max(0, min(*off, len(body)-room))
		hint = fmt.Sprintf("lines %d-%d of %d · ↑/↓ pgup/pgdn scroll · any other key: close",
			*off+1, min(*off+room, len(body)), len(body))
		if lipgloss.Width(hint) > w {
			hint = fmt.Sprintf("%d-%d/%d · ↑/↓ pgup/pgdn · other key: close",
				*off+1, min(*off+room, len(body)), len(body))
		}
		lines = append([]string{lines[0]}, body[*off:min(*off+room, len(body))]...)
	}
	lines = append(lines, m.st.Dim.Render(trunc(hint, w)))
	return fitLines(lines, h)
}

// indentRaw indents raw JSON keeping its member order, sanitized; "" for none.
func indentRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return safe.Block(string(raw))
	}
	return safe.Block(b.String())
}

// wrapLine wraps s at word boundaries into lines of at most w cells, keeping its
// indentation; a line that fits is kept as it is, and only a word longer than a whole
// line (a long URL) is cut.
func wrapLine(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return wordWrap(s, w)
}

func (m *Model) statusBar() string {
	right := m.statusRight()
	left := m.statusLeft()
	gap := max(m.w-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return m.st.Status.Render(left + strings.Repeat(" ", gap) + right)
}

// statusRight is the right end of the status bar: the counts, and the servers ready
// when the servers pane is not drawn.
func (m *Model) statusRight() string {
	counts := fmt.Sprintf("%d in flight · %d pending", m.calls.inFlight(), len(m.inbox.items))
	if m.w >= narrowScreen {
		return counts
	}
	// Narrow: the servers' states, and only the counts that are not zero.
	counts = ""
	if n := m.calls.inFlight(); n > 0 {
		counts += fmt.Sprintf(" · %d in flight", n)
	}
	if n := len(m.inbox.items); n > 0 {
		counts += fmt.Sprintf(" · %d pending", n)
	}
	if len(m.servers.rows) == 0 && m.servers.proxies != nil {
		return fmt.Sprintf("%d prox.", len(m.servers.proxies)) + counts
	}
	ready, failed := 0, 0
	for _, r := range m.servers.rows {
		switch r.state {
		case stateReady:
			ready++
		case stateFailed:
			failed++
		}
	}
	s := fmt.Sprintf("●%d", ready)
	if failed > 0 {
		s += fmt.Sprintf(" ✗%d", failed)
	}
	return s + counts
}

func (m *Model) helpBar() string {
	if m.confirm != nil {
		// The keys stay in view: the question is cut first.
		keys := " y yes · other key no"
		if a := m.confirm.again; a != "" && a != "y" {
			// Pressed again, the key that asked confirms too; as short as the plain
			// keys, so that a question that fitted still fits.
			keys = " y, " + a + " yes · other no"
		}
		q := trunc(m.confirm.question, max(m.w-lipgloss.Width(keys), 10))
		return fitLines([]string{m.st.Warn.Render(trunc(q+keys, m.w))}, m.helpHeight())
	}
	if m.active != nil || m.args != nil {
		return fitLines([]string{m.st.Dim.Render(trunc("ctrl+b set aside (then q quits)", m.w))}, m.helpHeight())
	}
	if f := m.filter(); f != nil && f.editing && !m.screenShown() {
		return fitLines([]string{m.st.Dim.Render(trunc(filterHelp, m.w))}, m.helpHeight())
	}
	if m.helpAsScreen() {
		return m.st.Dim.Render(trunc("? or any other key: close help", m.w))
	}
	if m.help.ShowAll {
		lines := strings.Split(m.help.View(m.keys), "\n")
		return lipgloss.NewStyle().MaxWidth(m.w).Render(strings.Join(lines[:min(len(lines), m.helpHeight())], "\n"))
	}
	return lipgloss.NewStyle().MaxWidth(m.w).Render(m.shortHelp())
}
