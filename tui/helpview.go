package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpAsScreen reports whether the full help (key ?) is too wide or too tall for the
// help bar: then it fills the main area, in as many columns as fit, and scrolls.
func (m *Model) helpAsScreen() bool {
	if !m.help.ShowAll {
		return false
	}
	h := m.help
	h.SetWidth(0) // unbounded: measure it whole
	v := h.View(m.keys)
	return lipgloss.Width(v) > m.w || len(strings.Split(v, "\n")) > max(m.h/3, 1)
}

// helpLines is every binding of the full help, one "key  what" line each, in columns
// of at most w cells.
func (m *Model) helpLines(w int) []string {
	var binds []key.Binding
	for _, col := range m.keys.FullHelp() {
		for _, b := range col {
			if b.Enabled() {
				binds = append(binds, b)
			}
		}
	}
	kw, dw := 0, 0
	for _, b := range binds {
		kw = max(kw, lipgloss.Width(b.Help().Key))
		dw = max(dw, lipgloss.Width(b.Help().Desc))
	}
	cellW := kw + 1 + dw
	cols := max(1, (w+2)/(cellW+2))
	rows := (len(binds) + cols - 1) / cols
	lines := make([]string, rows)
	for i, b := range binds {
		r, c := i%rows, i/rows
		cell := fmt.Sprintf("%-*s %-*s", kw, b.Help().Key, dw, b.Help().Desc)
		if c > 0 {
			cell = "  " + cell
		}
		lines[r] += cell
	}
	for i, l := range lines {
		lines[i] = trunc(strings.TrimRight(l, " "), w)
	}
	return lines
}

// helpView is the full help over the main area: a title, the bindings, from line *off.
func (m *Model) helpView(w, h int, off *int) string {
	body := m.helpLines(w)
	room := max(h-1, 1)
	*off = max(0, min(*off, len(body)-room))
	title := "Keys"
	if len(body) > room {
		title = fmt.Sprintf("Keys %d-%d of %d · ↑/↓ scroll", *off+1, min(*off+room, len(body)), len(body))
	}
	lines := append([]string{m.st.Title.Render(trunc(title, w))}, body[*off:min(*off+room, len(body))]...)
	return fitLines(lines, h)
}

// narrowHelp is the short help of a terminal too narrow for all of it: help and quit
// first, so that a cut line still says how to see the rest and how to leave.
type narrowHelp struct{ programKeys }

// ShortHelp implements help.KeyMap.
func (k narrowHelp) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Quit, k.Next, k.Enter, k.Filter, k.Inbox, k.Copy}
}

// shortHelp is the one-line help bar. In a narrow terminal it keeps the keys that fit
// whole, help and quit first, rather than cutting one.
func (m *Model) shortHelp() string {
	h := m.help
	h.SetWidth(0)
	if v := h.View(m.keys); lipgloss.Width(v) <= m.w {
		return v
	}
	all := narrowHelp{m.keys}.ShortHelp()
	v := ""
	for n := 1; n <= len(all); n++ {
		try := h.ShortHelpView(all[:n])
		if lipgloss.Width(try) > m.w {
			break
		}
		v = try
	}
	return v
}

// scrollKey moves *off, the first line shown of a screen that scrolls (the full help,
// a description), for ↑/↓ and pgup/pgdn; it reports whether msg was one of them. The
// view clamps *off.
func (m *Model) scrollKey(msg tea.KeyPressMsg, off *int) bool {
	switch {
	case key.Matches(msg, m.keys.Up):
		*off--
	case key.Matches(msg, m.keys.Down):
		*off++
	case key.Matches(msg, m.keys.PageUp):
		*off -= m.bodyHeight() - 2
	case key.Matches(msg, m.keys.PageDown):
		*off += m.bodyHeight() - 2
	default:
		return false
	}
	return true
}
