package tui

// wideScreen is the terminal width from which a screen (a form, the consent screen, a
// server's details, a tool's description) is drawn beside the servers pane; in a
// narrower terminal the screen takes the whole width, so that its input and its
// actions fit.
const wideScreen = 100

// screenShown reports whether the main area shows a screen rather than a list.
func (m *Model) screenShown() bool {
	t := m.top()
	return t != nil && t.wide()
}

// narrowScreen is the terminal width under which the servers pane is not drawn at all:
// its few columns would wrap every word, and the lists need the room. The status bar
// then counts the servers (statusRight); e shows the selected one, s selects the next.
const narrowScreen = 72

// serversShown reports whether the servers pane is drawn.
func (m *Model) serversShown() bool {
	return m.w >= narrowScreen && (!m.screenShown() || m.w >= wideScreen)
}

// listWidth is the width of the tabs' lists: beside the servers pane, or the whole
// width when the pane is not drawn.
func (m *Model) listWidth() int {
	if m.w < narrowScreen {
		return m.w
	}
	return m.w - m.servers.w
}

// screenWidth is the width of a screen.
func (m *Model) screenWidth() int {
	if m.w < wideScreen {
		return m.w
	}
	return m.w - m.servers.w
}
