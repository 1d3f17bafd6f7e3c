package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// screen is one level of the Model's stack of screens (Model.screens): what opens over
// the tabs (a request being answered, an argument form, the trust, roots, waiting and
// Tasks screens, the full help, a description, a server's details, a filter being
// typed). The top screen gets each key first; a key it leaves goes to the screen
// below, and at the bottom to the tabs (baseKey). The main area shows the top screen
// that draws itself. Each opening pushes a screen and each closing drops it, so that
// closing one shows again what was under it.
type screen interface {
	// name names the screen, for tests.
	name() string
	// key handles a key press; handled false leaves it to the screen below.
	key(m *Model, msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	// visible reports whether the screen draws the main area; a screen that only takes
	// keys (a filter being typed) shows the one below.
	visible(m *Model) bool
	// wide reports whether the screen is drawn at the screen width, beside the servers
	// pane only in a wide terminal (screenShown), rather than at the lists' width.
	wide() bool
	// view draws the screen in w×h cells.
	view(m *Model, w, h int) string
}

// push opens s over every screen open; a screen already open moves to the top.
func (m *Model) push(s screen) {
	m.drop(s)
	m.screens = append(m.screens, s)
	m.restack()
}

// pushUnderForm opens s under the request or argument form open, if any, and on top
// otherwise: a screen that opens by itself never takes the keyboard from a form.
func (m *Model) pushUnderForm(s screen) {
	m.drop(s)
	at := len(m.screens)
	for i, t := range m.screens {
		if isForm(t) {
			at = i
			break
		}
	}
	m.screens = append(m.screens[:at:at], append([]screen{s}, m.screens[at:]...)...)
	m.restack()
}

// isForm reports whether s is a request being answered or an argument form.
func isForm(s screen) bool {
	switch s.(type) {
	case *pending, *argForm:
		return true
	}
	return false
}

// drop closes s wherever it is on the stack (a request can be withdrawn under the
// screen the user opened since); the screens above it keep their order.
func (m *Model) drop(s screen) {
	for i, t := range m.screens {
		if t == s {
			m.screens = append(m.screens[:i:i], m.screens[i+1:]...)
			break
		}
	}
	m.restack()
}

// restack refreshes the Model's shortcuts to screens on the stack: the request being
// answered (active), the argument form (args) and the roots screen (live.roots).
func (m *Model) restack() {
	m.active, m.args, m.live.roots = nil, nil, nil
	for _, s := range m.screens {
		switch s := s.(type) {
		case *pending:
			m.active = s
		case *argForm:
			m.args = s
		case *rootsScreen:
			m.live.roots = s
		}
	}
}

// top returns the screen that draws the main area, or nil for the tabs.
func (m *Model) top() screen {
	m.watched() // a flow that ended takes its waiting screen with it
	for i := len(m.screens) - 1; i >= 0; i-- {
		if s := m.screens[i]; s.visible(m) {
			return s
		}
	}
	return nil
}

// stackNames names the screens open, bottom first (for tests).
func (m *Model) stackNames() []string {
	names := make([]string, 0, len(m.screens))
	for _, s := range m.screens {
		names = append(names, s.name())
	}
	return names
}

// onStackKey gives msg to the screens from the top down, and to the tabs when none
// takes it.
func (m *Model) onStackKey(msg tea.KeyPressMsg) tea.Cmd {
	m.watched()
	for i := len(m.screens) - 1; i >= 0; i-- {
		if i >= len(m.screens) {
			continue // a screen's key closed more than itself
		}
		if cmd, ok := m.screens[i].key(m, msg); ok {
			return cmd
		}
	}
	return m.baseKey(msg)
}

// findScreen returns the top-most screen of type T on m's stack.
func findScreen[T screen](m *Model) (T, bool) {
	for i := len(m.screens) - 1; i >= 0; i-- {
		if s, ok := m.screens[i].(T); ok {
			return s, true
		}
	}
	var zero T
	return zero, false
}

// The request being answered (Model.active) is a screen: its form, consent or waiting
// screen takes every key (formKey).

func (p *pending) name() string                                      { return "request" }
func (p *pending) visible(*Model) bool                               { return true }
func (p *pending) wide() bool                                        { return true }
func (p *pending) view(m *Model, w, h int) string                    { return m.screenView(w, h) }
func (p *pending) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) { return m.formKey(msg), true }

// The argument form being filled (Model.args) is a screen: it takes every key (formKey).

func (a *argForm) name() string                                      { return "arguments" }
func (a *argForm) visible(*Model) bool                               { return true }
func (a *argForm) wide() bool                                        { return true }
func (a *argForm) view(m *Model, w, h int) string                    { return m.screenView(w, h) }
func (a *argForm) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) { return m.formKey(msg), true }

// describeScreen shows the selected catalog item in full (key d); ↑/↓ and pgup/pgdn
// scroll it, any other key closes it. It belongs to the tab it was opened on: on
// another tab (ctrl+b on a request opened over it shows the Inbox) it is not drawn,
// and the first key there closes it and does what it does on that tab.
type describeScreen struct {
	off int // the first line shown
	tab tab // the tab whose selected item is described
}

func (d *describeScreen) name() string                   { return "describe" }
func (d *describeScreen) visible(m *Model) bool          { return m.tab == d.tab }
func (d *describeScreen) wide() bool                     { return true }
func (d *describeScreen) view(m *Model, w, h int) string { return m.describeView(w, h, &d.off) }
func (d *describeScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.tab != d.tab {
		m.drop(d)
		return nil, false
	}
	if !m.scrollKey(msg, &d.off) {
		m.drop(d) // any other key closes the description
	}
	return nil, true
}

// detailsScreen shows the selected server's details (key e). Any key closes it but
// quit, next server and reconnect, which the tabs handle with the details still open.
type detailsScreen struct{}

func (d *detailsScreen) name() string                   { return "details" }
func (d *detailsScreen) visible(*Model) bool            { return true }
func (d *detailsScreen) wide() bool                     { return true }
func (d *detailsScreen) view(m *Model, w, h int) string { return m.detailsView(w, h) }
func (d *detailsScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if key.Matches(msg, m.keys.Quit) || key.Matches(msg, m.keys.Servers) || key.Matches(msg, m.keys.Reconnect) {
		return nil, false
	}
	m.drop(d)
	return nil, true
}

// tasksScreen is the Tasks view (key t), drawn over the tab (tasksKey).
type tasksScreen struct{}

func (t *tasksScreen) name() string                   { return "tasks" }
func (t *tasksScreen) visible(*Model) bool            { return true }
func (t *tasksScreen) wide() bool                     { return false }
func (t *tasksScreen) view(m *Model, _, _ int) string { return m.tasks.View(m.now) }
func (t *tasksScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	return m.tasksKey(t, msg)
}

// filterScreen is a tab's filter being typed (key /): on that tab no letter is a
// shortcut until enter or esc ends it, and a question of the program's own calls
// waits for that end to open. It draws nothing of its own: the tab shows the
// filter. Should another tab show meanwhile, it leaves the keys to that tab, and the
// filter is still being typed when its tab shows again.
type filterScreen struct {
	tab tab // the tab whose filter is being typed
}

func (f *filterScreen) name() string                 { return "filter" }
func (f *filterScreen) visible(*Model) bool          { return false }
func (f *filterScreen) wide() bool                   { return false }
func (f *filterScreen) view(*Model, int, int) string { return "" }
func (f *filterScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.tab != f.tab {
		return nil, false
	}
	if !m.filter().editing {
		m.drop(f) // ended meanwhile
		return nil, false
	}
	cmd := m.filterKey(msg)
	if !m.filter().editing {
		m.drop(f)
		// A question that came while the filter was typed opens now (onElicit); the
		// status that said it waits is done.
		open := m.openNext()
		if m.active != nil {
			m.status = ""
		}
		return tea.Batch(cmd, open), true
	}
	return cmd, true
}

// helpScreen is the full help (key ?). It fills the main area, and takes keys, only
// when it does not fit the help bar (helpAsScreen): ↑/↓ scroll it, any other key
// closes it.
type helpScreen struct {
	off int // the first line shown
}

func (s *helpScreen) name() string                   { return "help" }
func (s *helpScreen) visible(m *Model) bool          { return m.helpAsScreen() }
func (s *helpScreen) wide() bool                     { return true }
func (s *helpScreen) view(m *Model, w, h int) string { return m.helpView(w, h, &s.off) }
func (s *helpScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !m.helpAsScreen() {
		return nil, false
	}
	if !m.scrollKey(msg, &s.off) {
		m.closeHelp()
	}
	return nil, true
}

// toggleHelp is key ?: the full help opens, or closes when open.
func (m *Model) toggleHelp() {
	if _, ok := findScreen[*helpScreen](m); ok {
		m.closeHelp()
		return
	}
	m.help.ShowAll = true
	m.push(&helpScreen{})
	m.SetSize(m.w, m.h) // the help bar's height changed
}

// closeHelp closes the full help.
func (m *Model) closeHelp() {
	if s, ok := findScreen[*helpScreen](m); ok {
		m.drop(s)
	}
	m.help.ShowAll = false
	m.SetSize(m.w, m.h)
}
