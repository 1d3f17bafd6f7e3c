package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// logPane shows the wire log: a bounded ring of entries, a filter, an expanded entry
// and follow mode.
type logPane struct {
	ring    []wire.Entry // at most keep entries, oldest first after normalize
	keep    int
	lastSeq uint64
	dropped int // entries evicted from our ring

	f      filterBox // "server:x method:y text"
	only   string    // the one server shown, or "" for all (key s)
	view   []int     // indexes into ring that match the filter
	cursor int       // index into view
	follow bool
	open   uint64 // Seq of the expanded entry, 0 for none
	// detailOff is the first line of the expanded entry shown; a pointer because
	// View, which clamps it, has a value receiver.
	detailOff *int
	pretty    string // the expanded entry's JSON, computed when opened

	w, h int
	st   *styles
}

func newLogPane(keep int, st *styles) logPane {
	return logPane{keep: keep, follow: true, st: st, f: newFilterBox()}
}

// editKey applies a key typed while editing the filter (bubbles' textinput: arrows,
// ctrl+w, ctrl+u and the like); the filter applies as it is typed.
func (l *logPane) editKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, changed := l.f.key(msg)
	if changed {
		l.refilter()
	}
	return cmd
}

// SetSize sets the pane's outer size.
func (l *logPane) SetSize(w, h int) { l.w, l.h = w, h }

// add appends entries, evicting the oldest beyond keep.
func (l *logPane) add(es []wire.Entry) {
	for _, e := range es {
		if e.Seq <= l.lastSeq && e.Seq != 0 {
			continue
		}
		l.lastSeq = max(l.lastSeq, e.Seq)
		l.ring = append(l.ring, e)
	}
	if over := len(l.ring) - l.keep; over > 0 {
		l.dropped += over
		// Copy down so the backing array does not grow without bound.
		n := copy(l.ring, l.ring[over:])
		clear(l.ring[n:])
		l.ring = l.ring[:n]
	}
	l.refilter()
}

func (l *logPane) refilter() {
	var server, method string
	var words []string
	for _, tok := range strings.Fields(l.f.value) {
		switch {
		case strings.HasPrefix(tok, "server:"):
			server = tok[len("server:"):]
		case strings.HasPrefix(tok, "method:"):
			method = tok[len("method:"):]
		default:
			words = append(words, strings.ToLower(tok))
		}
	}
	l.view = l.view[:0]
	for i, e := range l.ring {
		if (server != "" && e.Server != server) || (l.only != "" && e.Server != l.only) {
			continue
		}
		if method != "" && !strings.HasPrefix(e.Method, method) {
			continue
		}
		if !matchWords(e, words) {
			continue
		}
		l.view = append(l.view, i)
	}
	if l.follow || l.cursor >= len(l.view) {
		l.cursor = max(0, len(l.view)-1)
	}
}

func matchWords(e wire.Entry, words []string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(e.Method + " " + e.ID + " " + e.Text + " " + string(e.Raw))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func (l *logPane) move(d int) {
	l.cursor = max(0, min(len(l.view)-1, l.cursor+d))
	l.follow = l.cursor == len(l.view)-1
}

// toggleOpen expands or collapses the selected entry.
func (l *logPane) toggleOpen() {
	if l.cursor < 0 || l.cursor >= len(l.view) {
		return
	}
	e := l.ring[l.view[l.cursor]]
	if l.open == e.Seq {
		l.open, l.pretty = 0, ""
		return
	}
	l.open = e.Seq
	l.detailOff = new(int)
	switch {
	case len(e.Raw) > 0:
		l.pretty = prettyJSON(e.Raw)
	default:
		l.pretty = safe.Block(e.Text)
	}
}

// scrollDetail scrolls the expanded entry by d pages; it reports whether one is open.
func (l *logPane) scrollDetail(d int) bool {
	if l.open == 0 || l.detailOff == nil {
		return false
	}
	*l.detailOff = max(0, *l.detailOff+d*max(1, (l.h-1)/2-1)) // View clamps the end
	return true
}

func (l *logPane) selected() (wire.Entry, bool) {
	if l.cursor < 0 || l.cursor >= len(l.view) {
		return wire.Entry{}, false
	}
	return l.ring[l.view[l.cursor]], true
}

// entryLine is the one-line summary of an entry.
func entryLine(e wire.Entry) string {
	dir := map[wire.Dir]string{wire.Out: "→", wire.In: "←", wire.Stderr: "!", wire.Note: "·"}[e.Dir]
	if e.Dir == wire.Stderr || e.Dir == wire.Note {
		return fmt.Sprintf("%s %-8s %s %s", dir, trunc(oneLine(e.Server), 8), e.Dir, oneLine(e.Text))
	}
	s := fmt.Sprintf("%s %-8s %s", dir, trunc(oneLine(e.Server), 8), oneLine(e.Method))
	if e.Method == "" {
		s += "(response)"
	}
	if e.ID != "" {
		s += " #" + oneLine(e.ID)
	}
	if e.Method == "notifications/message" {
		s += " " + logMessage(e.Raw)
	}
	s += fmt.Sprintf(" %dB", e.Size)
	switch {
	case e.Latency >= time.Millisecond:
		s += " " + e.Latency.Round(time.Millisecond).String()
	case e.Latency > 0:
		s += " <1ms"
	}
	return s
}

// View renders the pane, exactly l.h lines.
func (l logPane) View() string {
	head := fmt.Sprintf("Log: %d/%d", len(l.view), len(l.ring))
	if l.dropped > 0 {
		head += fmt.Sprintf(" (%d older dropped)", l.dropped)
	}
	if l.follow {
		head += " · follow"
	}
	if l.only != "" {
		head += " · only " + oneLine(l.only)
	}
	head += l.f.label("server:NAME method:PREFIX words")
	lines := []string{l.st.Title.Render(trunc(head, l.w))}
	listH := l.h - 1
	var detail []string
	if l.open != 0 {
		all := strings.Split(wrapText(l.pretty, l.w), "\n")
		// Half the pane, or what the list leaves free when it is shorter.
		dh := min(len(all)+1, max(listH/2+1, listH-len(l.view)))
		listH -= dh
		rule := strings.Repeat("─", min(l.w, 40))
		if room := dh - 1; len(all) > room && room > 0 {
			// The entry scrolls with pgup/pgdn; the rule says where it is.
			off := max(0, min(*l.detailOff, len(all)-room))
			*l.detailOff = off
			rule = trunc(fmt.Sprintf("── lines %d-%d of %d · pgup/pgdn ──", off+1, off+room, len(all)), l.w)
			all = all[off:]
		}
		detail = append([]string{rule}, all...)[:dh]
	}
	start := 0
	if l.cursor >= listH {
		start = l.cursor - listH + 1
	}
	for i := start; i < len(l.view) && i < start+listH; i++ {
		e := l.ring[l.view[i]]
		line := trunc(entryLine(e), l.w)
		switch {
		case i == l.cursor:
			line = l.st.Selected.Render(line)
		case e.Dir == wire.Stderr:
			line = l.st.Stderr.Render(line)
		}
		lines = append(lines, line)
	}
	for len(lines) < listH+1 {
		lines = append(lines, "")
	}
	lines = append(lines, detail...)
	return fitLines(lines, l.h)
}

// logMessage is a server log message (notifications/message) as "level [logger] data",
// sanitized and cut to maxLogLine; "" when raw does not hold one.
func logMessage(raw json.RawMessage) string {
	var m struct {
		Params struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Params.Level == "" {
		return ""
	}
	data := string(m.Params.Data)
	var text string
	if json.Unmarshal(m.Params.Data, &text) == nil {
		data = text
	}
	out := trunc(oneLine(m.Params.Level), 12)
	if m.Params.Logger != "" {
		out += " [" + trunc(oneLine(m.Params.Logger), 24) + "]"
	}
	return trunc(out+" "+oneLine(data), maxLogLine)
}

// maxLogLine bounds a log message in a Log tab line (the line is cut to the pane too).
const maxLogLine = 400

// stderrTail returns the last n lines server wrote on stderr that the Log tab keeps,
// oldest first.
func (l *logPane) stderrTail(server string, n int) []string {
	var out []string
	for i := len(l.ring) - 1; i >= 0 && len(out) < n; i-- {
		if e := l.ring[i]; e.Server == server && e.Dir == wire.Stderr {
			out = append(out, e.Text)
		}
	}
	slices.Reverse(out)
	return out
}
