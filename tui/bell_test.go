package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// bells counts the terminal bells among the side effects recorded so far.
func (h *harness) bells() int {
	n := 0
	for _, m := range h.side {
		if r, ok := m.(tea.RawMsg); ok && r.Msg == "\a" {
			n++
		}
	}
	return n
}

// TestBellOncePerBurst: many proxied questions arriving at once ring the bell once,
// in the full program and in `elicitty inbox`; a question a second later rings again.
func TestBellOncePerBurst(t *testing.T) {
	for _, inboxOnly := range []bool{false, true} {
		now := epoch
		h := newHarness(t, Options{InboxOnly: inboxOnly, Now: func() time.Time { return now }})
		h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
		for id := reqID(1); id <= 20; id++ {
			h.request(id, proxyAsk())
			now = now.Add(10 * time.Millisecond)
		}
		if got := h.bells(); got != 1 {
			t.Errorf("inbox only %v: 20 questions in 200ms rang %d bells, want 1", inboxOnly, got)
		}
		now = now.Add(bellEvery)
		h.request(21, proxyAsk())
		if got := h.bells(); got != 2 {
			t.Errorf("inbox only %v: a question a second later rang %d bells in all, want 2", inboxOnly, got)
		}
	}
}
