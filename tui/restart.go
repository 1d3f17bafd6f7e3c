package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/config"
)

// callSpec is what a call asked, enough to make it again.
type callSpec struct {
	kind    catKind
	item    catItem
	content map[string]any
}

// restartBackoff is the wait before automatic restart n (1-based): 500 ms, doubling,
// at most 8 s.
func restartBackoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 8*time.Second; i++ {
		d *= 2
	}
	return min(d, 8*time.Second)
}

// autoRestart schedules the automatic restart of row idx when its config asks for it
// (restart: on-failure) and attempts remain; it returns nil otherwise.
func (m *Model) autoRestart(idx int) tea.Cmd {
	r := &m.servers.rows[idx]
	if r.srv.Restart != config.RestartOnFailure || r.srv.EffectiveKind() != config.KindStdio {
		return nil
	}
	limit := r.srv.MaxRestarts
	if limit <= 0 {
		limit = config.DefaultMaxRestarts
	}
	if r.auto >= limit {
		r.err += fmt.Sprintf(" (gave up after %d automatic restarts; r restarts it)", r.auto)
		return nil
	}
	r.auto++
	msg := restartMsg{idx: idx, gen: r.gen}
	return tea.Tick(restartBackoff(r.auto), func(time.Time) tea.Msg { return msg })
}

// onRestart restarts a server whose row has not changed since it was scheduled.
func (m *Model) onRestart(msg restartMsg) tea.Cmd {
	if msg.idx < 0 || msg.idx >= len(m.servers.rows) {
		return nil
	}
	r := &m.servers.rows[msg.idx]
	if r.gen != msg.gen || r.state != stateFailed {
		return nil // restarted or reconnected meanwhile
	}
	return m.restartRow(msg.idx, fmt.Sprintf("restarting %s (automatic restart %d)", r.srv.Name, r.auto))
}

// restartRow closes row idx's old session and connects it again.
func (m *Model) restartRow(idx int, status string) tea.Cmd {
	r := m.servers.restart(idx)
	old := r.sess
	r.sess = nil
	m.status = status
	conn := m.connect(idx, r.gen)
	if old == nil {
		return conn
	}
	return tea.Sequence(func() tea.Msg { _ = old.Close(); return nil }, conn)
}

// lostCall handles a call that ended because its server's process did: in the
// 2026-07-28 era requests are stateless, so it is queued to be sent again once the
// server is back (when it will be restarted); otherwise it is reported lost. It
// returns the text to show in the call's result.
func (m *Model) lostCall(spec callSpec) string {
	for i := range m.servers.rows {
		r := &m.servers.rows[i]
		if r.srv.Name != spec.item.server {
			continue
		}
		what := callName(spec.kind, spec.item)
		if r.protocol >= "2026-07-28" {
			r.resend = append(r.resend, spec)
			if r.srv.Restart == config.RestartOnFailure {
				return "lost in the server's crash; it will be sent again once the server restarts"
			}
			return "lost in the server's crash; it will be sent again when you restart the server (r)"
		}
		r.lost = append(r.lost, what)
		return "lost in the server's crash (a restarted server starts a new session)"
	}
	return ""
}

// afterRestart sends again the calls lost in a crash (2026-07-28) and tells the user
// what was re-sent or lost.
func (m *Model) afterRestart(idx int) tea.Cmd {
	r := &m.servers.rows[idx]
	if r.restarts == 0 {
		return nil
	}
	var cmds []tea.Cmd
	var names []string
	for _, spec := range r.resend {
		names = append(names, callName(spec.kind, spec.item))
		cmds = append(cmds, m.startCall(spec.kind, spec.item, spec.content))
	}
	r.resend = nil
	switch {
	case len(names) > 0:
		m.status = fmt.Sprintf("%s restarted; re-sent %d lost request(s): %s", r.srv.Name, len(names), strings.Join(names, ", "))
	case len(r.lost) > 0:
		m.status = fmt.Sprintf("%s restarted with a new session; %d call(s) in flight were lost: %s", r.srv.Name, len(r.lost), strings.Join(r.lost, ", "))
	default:
		m.status = r.srv.Name + " restarted"
	}
	r.lost = nil
	return tea.Batch(cmds...)
}
