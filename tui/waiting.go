package tui

import (
	"fmt"
	"github.com/elicitty/elicitty/elicit/safe"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/tui/consent"
)

// waitingScreen answers a 2026-07-28 URL input request whose link came back from an
// earlier round (elicit.Request.Repeat > 0): the link is not reopened; the user retries
// (r), reopens it (o, unless the server's policy is copy-only), copies it (y) or
// cancels (esc or c). docs/protocol.md, "URL mode".
type waitingScreen struct {
	req     *elicit.Request
	canOpen bool
	choice  consent.Choice
	w, h    int
	st      styles
}

func newWaitingScreen(req *elicit.Request, o ScreenOptions, canOpen bool) *waitingScreen {
	return &waitingScreen{req: req, canOpen: canOpen, w: o.Width, h: o.Height, st: newStyles(o.NoColor)}
}

// Init implements ConsentScreen.
func (s *waitingScreen) Init() tea.Cmd { return nil }

// SetSize implements ConsentScreen.
func (s *waitingScreen) SetSize(w, h int) { s.w, s.h = w, h }

// Done implements ConsentScreen.
func (s *waitingScreen) Done() (consent.Choice, bool) { return s.choice, s.choice != 0 }

// Update implements ConsentScreen.
func (s *waitingScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || s.choice != 0 {
		return nil
	}
	switch k.String() {
	case "r", "enter":
		s.choice = consent.Retry
	case "o":
		if s.canOpen {
			s.choice = consent.Reopen
		}
	case "y":
		return tea.SetClipboard(s.req.URL)
	case "c", "esc", "ctrl+c":
		s.choice = consent.Cancel
	}
	return nil
}

// View implements ConsentScreen.
func (s *waitingScreen) View() string {
	w := max(s.w, 20)
	times := "again"
	if s.req.Repeat > 1 {
		times = fmt.Sprintf("again (%d times)", s.req.Repeat)
	}
	lines := []string{s.st.Title.Render(trunc(oneLine(s.req.Server)+": still waiting", w))}
	lines = append(lines, wrapWords(oneLine(s.req.Server)+" asks for the same link "+times+": the step in the browser is not finished yet. It was not reopened.", w)...)
	lines = append(lines, "")
	lines = append(lines, wrapWords(elicit.Sanitize(s.req.Message), w)...)
	lines = append(lines, strings.Split(wrapText(safe.Line(s.req.URL), w), "\n")...)
	keys := "r retry · o reopen link · y copy · esc cancel · ctrl+b aside"
	if !s.canOpen {
		keys = "r retry · y copy link · esc cancel · ctrl+b aside"
	}
	lines = append(lines, "", s.st.Dim.Render(trunc(keys, w)))
	if s.h > 1 && len(lines) > s.h {
		// Too tall: cut the text, never the keys.
		lines = append(lines[:s.h-2], "…", lines[len(lines)-1])
	}
	return strings.Join(lines, "\n")
}
