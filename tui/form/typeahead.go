package form

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
)

// typeaheadLimit bounds how long typed keys wait for huh to move the focus: huh moves it
// with messages of its own, which normally arrive within a few milliseconds; should the
// move never come (a page whose fields do not validate), the keys go where the focus is.
const typeaheadLimit = 400 * time.Millisecond

// typeahead holds the keys typed while huh moves the focus after enter or tab. huh
// advances a form with a command (NextField, then its own next-group message), so keys
// that were already read from the terminal would otherwise reach the field being left:
// "Bob⏎5" would give the name "Bob5", and a secret typed after enter would land in the
// previous, visible, field. Keys typed ahead stop at the review step: it is there to be
// seen before it is answered, so a second enter, or the rest of a paste, never accepts
// what the user has not seen.
type typeahead struct {
	waiting bool
	at      place     // where the focus was when the move started
	queue   []tea.Msg // keys and pastes typed since, in order
	gen     int       // the move's number, to match its typeaheadMsg
	since   time.Time // when the move started
}

// place is where the focus is: the step, the page and the focused field.
type place struct {
	phase phase
	page  int
	field huh.Field
}

// typeaheadMsg ends a move that took longer than typeaheadLimit.
type typeaheadMsg struct{ gen int }

func (m *Model) place() place {
	p := place{phase: m.phase, page: m.page}
	if m.phase == phaseFill && m.hf != nil {
		p.field = m.hf.GetFocusedField()
	}
	return p
}

// typed reports whether msg is something the user typed.
func typed(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		return true
	}
	return false
}

// movesFocus reports whether msg is a key with which huh leaves a field.
func movesFocus(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false
	}
	switch k.String() {
	case "enter", "tab", "shift+tab":
		return true
	}
	return false
}

// groupMove reports whether msg is huh's own message that ends a move to the next or
// previous group: after it the focus is wherever it will be.
func groupMove(msg tea.Msg) bool {
	switch fmt.Sprintf("%T", msg) {
	case "huh.nextGroupMsg", "huh.prevGroupMsg":
		return true
	}
	return false
}

// Update handles a message and returns the command to run. It never returns tea.Quit.
// Keys typed after a key that leaves a field wait until the next field has the focus,
// and a paste of several lines into a one-line field fills one field per line.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if t, ok := msg.(typeaheadMsg); ok {
		if t.gen == m.ahead.gen && m.ahead.waiting {
			return m.flushTypeahead()
		}
		return nil
	}
	if m.ahead.waiting && typed(msg) {
		m.ahead.queue = append(m.ahead.queue, msg)
		if time.Since(m.ahead.since) > typeaheadLimit {
			// The move's messages went elsewhere (the form was set aside meanwhile):
			// stop waiting for them.
			return m.flushTypeahead()
		}
		return nil
	}
	if p, ok := msg.(tea.PasteMsg); ok {
		if parts := m.splitPaste(p); parts != nil {
			return m.feed(parts)
		}
	}
	before := m.place()
	cmd := m.update(msg)
	after := m.place()
	switch {
	case movesFocus(msg) && after == before && m.phase == phaseFill && cmd != nil && !m.focusedInvalid():
		m.ahead.gen++
		m.ahead.waiting, m.ahead.at, m.ahead.since = true, before, time.Now()
		gen := m.ahead.gen
		return tea.Batch(cmd, tea.Tick(typeaheadLimit, func(time.Time) tea.Msg { return typeaheadMsg{gen} }))
	case m.ahead.waiting && !typed(msg) && (after != m.ahead.at || groupMove(msg)):
		return tea.Batch(cmd, m.flushTypeahead())
	}
	return cmd
}

// focusedInvalid reports whether the focused field refused its value: then huh does not
// move on, and keys typed next belong to it.
func (m *Model) focusedInvalid() bool {
	if m.hf == nil {
		return true
	}
	f := m.hf.GetFocusedField()
	return f == nil || f.Error() != nil
}

// flushTypeahead delivers the waiting keys to where the focus is now, unless the move
// ended on the review step: keys typed before it was shown do not answer it.
func (m *Model) flushTypeahead() tea.Cmd {
	q := m.ahead.queue
	m.ahead = typeahead{gen: m.ahead.gen}
	if m.phase != phaseFill {
		return nil
	}
	return m.feed(q)
}

// feed delivers msgs in order, as if typed one by one; keys after one that starts a
// move wait for it.
func (m *Model) feed(msgs []tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, msg := range msgs {
		if m.ahead.waiting {
			m.ahead.queue = append(m.ahead.queue, msgs[i:]...)
			break
		}
		cmds = append(cmds, m.Update(msg))
	}
	return tea.Batch(cmds...)
}

// splitPaste turns a paste of several lines into a one-line field into the paste of
// each line followed by enter, so that each line fills a field; nil when the paste is
// one line or the focused field takes several (a text area).
func (m *Model) splitPaste(p tea.PasteMsg) []tea.Msg {
	if m.phase != phaseFill || m.hf == nil {
		return nil
	}
	text := strings.ReplaceAll(strings.ReplaceAll(p.Content, "\r\n", "\n"), "\r", "\n")
	if !strings.Contains(text, "\n") {
		return nil
	}
	if _, multi := m.hf.GetFocusedField().(*huh.Text); multi {
		return nil
	}
	lines := strings.Split(text, "\n")
	var out []tea.Msg
	for i, l := range lines {
		if l != "" {
			out = append(out, tea.PasteMsg{Content: l})
		}
		if i < len(lines)-1 {
			out = append(out, tea.KeyPressMsg{Code: tea.KeyEnter})
		}
	}
	return out
}
