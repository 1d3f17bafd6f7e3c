package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
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
	mw := m.w - m.servers.w
	var main string
	switch {
	case m.active != nil || m.args != nil:
		main = m.screenView(mw, bodyH)
	case m.details:
		main = m.detailsView(mw, bodyH)
	case m.tab == tabLog:
		main = m.log.View()
	case m.tab == tabInbox:
		main = m.inbox.View(m.now)
	default:
		main = m.cats[m.tab].View() + "\n" + m.calls.View()
	}
	main = lipgloss.NewStyle().Width(mw).MaxWidth(mw).Height(bodyH).MaxHeight(bodyH).Render(main)
	body := lipgloss.JoinHorizontal(lipgloss.Top, m.servers.View(), main)
	return strings.Join([]string{m.tabBar(), body, m.statusBar(), m.helpBar()}, "\n")
}

func (m *Model) tabBar() string {
	var parts []string
	for t := range numTabs {
		name := tabNames[t]
		if t == tabInbox && len(m.inbox.items) > 0 {
			name = fmt.Sprintf("Inbox %d", len(m.inbox.items))
		}
		if t == m.tab && m.active == nil && m.args == nil {
			parts = append(parts, m.st.ActiveTab.Render(name))
		} else {
			parts = append(parts, m.st.Tab.Render(name))
		}
	}
	bar := "elicitty " + strings.Join(parts, "|")
	if m.unseen > 0 {
		bar += " " + m.st.Badge.Render(fmt.Sprintf(" %d new ", m.unseen))
	}
	return lipgloss.NewStyle().MaxWidth(m.w).Render(bar)
}

func (m *Model) screenView(w, h int) string {
	var head, body string
	switch {
	case m.active != nil:
		others := len(m.inbox.items) - 1
		head = "Answering " + describe(m.active.req)
		if d := m.active.req.Deadline; !d.IsZero() {
			head += " · " + max(d.Sub(m.now).Truncate(time.Second), 0).String() + " left"
		}
		if others > 0 {
			head += fmt.Sprintf(" · %d more pending", others)
		}
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
	title, body := m.servers.detail()
	lines := []string{m.st.Title.Render(trunc(oneLine(title), w))}
	for _, para := range strings.Split(body, "\n") {
		if strings.TrimSpace(para) == "" {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, wrapWords(oneLine(para), max(w-1, 1))...)
	}
	lines = append(lines, "", m.st.Dim.Render(trunc("r: restart/reconnect · s: next server · any other key: close", w)))
	return fitLines(lines, h)
}

func (m *Model) statusBar() string {
	right := fmt.Sprintf("%d in flight · %d pending", m.calls.inFlight(), len(m.inbox.items))
	left := trunc(oneLine(m.status), max(m.w-lipgloss.Width(right)-1, 0))
	gap := max(m.w-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return m.st.Status.Render(left + strings.Repeat(" ", gap) + right)
}

func (m *Model) helpBar() string {
	if m.active != nil || m.args != nil {
		return fitLines([]string{m.st.Dim.Render(trunc("ctrl+b set aside (then q quits)", m.w))}, m.helpHeight())
	}
	if m.help.ShowAll {
		lines := strings.Split(m.help.View(m.keys), "\n")
		return lipgloss.NewStyle().MaxWidth(m.w).Render(strings.Join(lines[:min(len(lines), m.helpHeight())], "\n"))
	}
	return lipgloss.NewStyle().MaxWidth(m.w).Render(m.help.View(m.keys))
}
