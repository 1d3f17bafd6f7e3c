package tui

// wideScreen is the terminal width from which a screen (a form, the consent screen, a
// server's details, a tool's description) is drawn beside the servers pane; in a
// narrower terminal the screen takes the whole width, so that its input and its
// actions fit.
const wideScreen = 100

// screenShown reports whether the main area shows a screen rather than a list.
func (m *Model) screenShown() bool {
	return m.active != nil || m.args != nil || m.trust != nil || m.details || m.describing || m.helpAsScreen()
}

// serversShown reports whether the servers pane is drawn.
func (m *Model) serversShown() bool { return !m.screenShown() || m.w >= wideScreen }

// screenWidth is the width of a screen.
func (m *Model) screenWidth() int {
	if m.w < wideScreen {
		return m.w
	}
	return m.w - m.servers.w
}
