package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// statusHint is what the status bar shows after a status it had to cut; the key
// (keymap.Map.Status) is a control key so that it works on every screen, forms included.
const statusHint = " · ctrl+o full"

// statusCut reports whether the status bar cannot show the whole status.
func (m *Model) statusCut() bool {
	return lipgloss.Width(oneLine(m.status)) > m.statusRoom()
}

// statusRoom is the width the status bar leaves for the status itself.
func (m *Model) statusRoom() int {
	return max(m.w-lipgloss.Width(m.statusRight())-1, 0)
}

// statusLeft is the status as the status bar shows it: cut to its room, with the key
// that shows it in full when it was cut.
func (m *Model) statusLeft() string {
	s := oneLine(m.status)
	room := m.statusRoom()
	if lipgloss.Width(s) <= room {
		return s
	}
	return trunc(s, max(room-lipgloss.Width(statusHint), 0)) + statusHint
}

// statusView shows the whole status message, wrapped, over the main area.
func (m *Model) statusView(w, h int) string {
	lines := []string{m.st.Title.Render(trunc("Status", w))}
	lines = append(lines, wrapWords(oneLine(m.status), max(w-1, 1))...)
	lines = append(lines, "", m.st.Dim.Render(trunc("any key: close", w)))
	if len(lines) > h && h > 1 {
		lines = append(lines[:h-1], lines[len(lines)-1])
	}
	return fitLines(lines, h)
}

// onStatusKey opens and closes the full status; it reports whether it took msg.
func (m *Model) onStatusKey(msg tea.KeyPressMsg) bool {
	if m.statusOpen {
		m.statusOpen = false // any key closes it
		return true
	}
	if key.Matches(msg, m.keys.Status) && m.statusCut() {
		m.statusOpen = true
		return true
	}
	return false
}
