package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
)

// pending is one elicitation waiting for the user.
type pending struct {
	id      reqID
	req     *elicit.Request
	form    *elicit.Form
	reply   chan<- elicit.Response
	arrived time.Time
	// since is when the user first consented to this link (a URL that came back in
	// a later round); opening is set while the browser is being opened for it.
	since   time.Time
	opening bool
	// notOpened is set on a proxy's wait (Request.Consented) for a link the user only
	// copied here: its screens speak of the step at the link, not of a browser.
	notOpened bool
	call      callID // the originating TUI call, when known
	// aside is set when the user set the request aside; it then opens only on request.
	aside bool
	// Exactly one of form/consent is set once the request has been opened; it keeps
	// the user's draft while the request is set aside.
	fs FormScreen
	cs ConsentScreen
}

// answer sends r on the reply channel; the channel has capacity 1 and gets one send.
func (p *pending) answer(r elicit.Response) { p.reply <- r }

// flow is a URL-mode flow the user consented to, listed until the server reports it
// complete, its call retries or ends, or the user cancels it.
type flow struct {
	server string
	id     string // elicitationId (2025-11-25), or ""
	url    string
	call   callID // the originating TUI call, or 0 when unknown
	origin elicit.Origin
	req    *elicit.Request // the request consented to
	since  time.Time       // when the user consented
	// notOpened is set while nothing has opened the link ("Copy link only").
	notOpened bool
}

// inbox holds every pending request across servers, oldest first, and the URL flows
// waiting for completion. The cursor runs over the requests, then the flows.
type inbox struct {
	items  []*pending
	flows  []flow
	cursor int
	notes  []inboxNote // last removals ("deploy: cancelled by the server")
	f      filterBox
	only   string // the one server shown, or "" for all (key s)
	w, h   int
	st     *styles
}

// SetSize sets the pane's outer size.
func (in *inbox) SetSize(w, h int) { in.w, in.h = w, h }

func (in *inbox) add(p *pending) { in.items = append(in.items, p) }

// local counts the requests of the program's own servers: quitting cancels them,
// while a proxy's ask (Request.Host set) stays pending in its proxy.
func (in *inbox) local() int {
	n := 0
	for _, p := range in.items {
		if p.req.Host == "" {
			n++
		}
	}
	return n
}

func (in *inbox) find(id reqID) (*pending, int) {
	for i, p := range in.items {
		if p.id == id {
			return p, i
		}
	}
	return nil, -1
}

// remove drops id; it reports the removed item.
func (in *inbox) remove(id reqID) *pending {
	p, i := in.find(id)
	if p == nil {
		return nil
	}
	in.items = append(in.items[:i], in.items[i+1:]...)
	in.clamp()
	return p
}

func (in *inbox) clamp() {
	items, flows := in.shown()
	in.cursor = max(0, min(in.cursor, len(items)+len(flows)-1))
}

// shown returns the requests and flows that pass the filter and only.
func (in *inbox) shown() ([]*pending, []flow) {
	if in.only == "" && in.f.value == "" {
		return in.items, in.flows
	}
	var items []*pending
	for _, p := range in.items {
		if (in.only == "" || p.req.Server == in.only) && matchAll(in.f.value, describe(p.req)+" "+p.req.Message+" "+p.req.URL) {
			items = append(items, p)
		}
	}
	var flows []flow
	for _, f := range in.flows {
		if (in.only == "" || f.server == in.only) && matchAll(in.f.value, f.server+" "+f.url) {
			flows = append(flows, f)
		}
	}
	return items, flows
}

// editKey applies a key typed while editing the filter.
func (in *inbox) editKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, changed := in.f.key(msg)
	if changed {
		in.cursor = 0 // the first match
		in.clamp()
	}
	return cmd
}

// dropFlows removes the flows for which drop is true; it reports how many went.
func (in *inbox) dropFlows(drop func(flow) bool) int {
	kept := in.flows[:0]
	for _, f := range in.flows {
		if !drop(f) {
			kept = append(kept, f)
		}
	}
	n := len(in.flows) - len(kept)
	clear(in.flows[len(kept):])
	in.flows = kept
	in.clamp()
	return n
}

// selectedFlow returns the flow under the cursor.
func (in *inbox) selectedFlow() (flow, bool) {
	items, flows := in.shown()
	i := in.cursor - len(items)
	if i < 0 || i >= len(flows) {
		return flow{}, false
	}
	return flows[i], true
}

// inboxNote says why a request left the inbox without an answer of the user's.
type inboxNote struct {
	text string
	at   time.Time
}

// noteFor is how long a note stays: it is about a request that is gone.
const noteFor = 30 * time.Second

// note records why a request went, at time at; the last three are kept.
func (in *inbox) note(s string, at time.Time) {
	in.notes = append(in.notes, inboxNote{text: s, at: at})
	if len(in.notes) > 3 {
		in.notes = in.notes[len(in.notes)-3:]
	}
}

// forgetNotes drops the notes: the user moved on (answered a request).
func (in *inbox) forgetNotes() { in.notes = nil }

func (in *inbox) move(d int) { in.cursor += d; in.clamp() }

func (in *inbox) selected() *pending {
	items, _ := in.shown()
	if in.cursor < 0 || in.cursor >= len(items) {
		return nil
	}
	return items[in.cursor]
}

// describe is the one-line summary of a request.
func describe(r *elicit.Request) string {
	what := "form"
	switch r.Mode {
	case elicit.ModeURL:
		what = "url"
	case elicit.ModeSampling:
		what = "sampling"
	}
	s := fmt.Sprintf("%s %s (%s)", r.Asker(), what, r.Origin)
	if r.Call != "" {
		s += " ← " + oneLine(r.Call)
	}
	if r.Total > 1 {
		s += fmt.Sprintf(" [%d/%d]", r.Index, r.Total)
	}
	return s
}

// View renders the inbox at time now and the pending URL flows, exactly in.h lines.
func (in inbox) View(now time.Time) string {
	var lines []string
	items, flows := in.shown()
	head := fmt.Sprintf("Inbox: %d pending", len(in.items))
	if len(items) != len(in.items) || len(flows) != len(in.flows) {
		head += fmt.Sprintf(" (%d shown)", len(items))
	}
	if in.only != "" {
		head += " · only " + oneLine(in.only)
	}
	head += in.f.label("")
	lines = append(lines, in.st.Title.Render(trunc(head, in.w)))
	cursorAt := -1 // the selected entry's first line
	for i, p := range items {
		age := now.Sub(p.arrived).Truncate(time.Second)
		left := "no deadline"
		if !p.req.Deadline.IsZero() {
			if d := p.req.Deadline.Sub(now).Truncate(time.Second); d > 0 {
				left = d.String() + " left"
			} else {
				left = "expired"
			}
		}
		line := trunc(fmt.Sprintf("%d. %s", i+1, describe(p.req)), in.w)
		if i == in.cursor {
			line = in.st.Selected.Render(line)
			cursorAt = len(lines)
		}
		lines = append(lines, line)
		msg := oneLine(firstLine(p.req.Message))
		switch {
		case !p.req.Consented.IsZero() && p.notOpened:
			msg = "waiting for the step at the link (enter: retry now, open, cancel): " + oneLine(p.req.URL)
		case !p.req.Consented.IsZero():
			msg = "waiting for the step in the browser (enter: retry now, reopen, cancel): " + oneLine(p.req.URL)
		case p.req.Mode == elicit.ModeURL:
			msg = "url: " + oneLine(p.req.URL)
		}
		// The age and the time left come first: the message may be cut, they may not.
		lines = append(lines, in.st.Dim.Render(trunc(fmt.Sprintf("   %s ago, %s · %s", age, left, msg), in.w)))
	}
	switch {
	case len(in.items) == 0:
		lines = append(lines, in.st.Dim.Render("nothing pending"))
	case len(items) == 0:
		lines = append(lines, in.st.Dim.Render("nothing matches"))
	}
	var notes []string
	for _, n := range in.notes {
		if age := now.Sub(n.at); age < noteFor {
			notes = append(notes, fmt.Sprintf("%s ago: %s", age.Truncate(time.Second), n.text))
		}
	}
	if len(notes) > 0 {
		lines = append(lines, "")
		for _, n := range notes {
			for _, l := range wrapWords(n, in.w) {
				lines = append(lines, in.st.Warn.Render(l))
			}
		}
	}
	if len(flows) > 0 {
		lines = append(lines, "", in.st.Title.Render("URL flows awaiting completion"))
		for i, f := range flows {
			line := trunc(fmt.Sprintf("%d. %s: %s", len(items)+i+1, f.server, oneLine(f.url)), in.w)
			if len(items)+i == in.cursor {
				line = in.st.Selected.Render(line)
				cursorAt = len(lines) + 1
			}
			what := "   waiting"
			if f.call != 0 {
				what = fmt.Sprintf("   waiting for call #%d", f.call)
			}
			lines = append(lines, line, in.st.Dim.Render(trunc(what, in.w)))
		}
		lines = append(lines, in.st.Dim.Render(trunc("  enter show · n retry now · x cancel the call", in.w)))
	}
	return fitLines(scrollTo(lines, cursorAt, in.h), in.h)
}

// scrollTo keeps the first line (the title) and scrolls the others so that the two
// lines from line at are in view in h lines; a "↑ more" line marks what is above.
func scrollTo(lines []string, at, h int) []string {
	if len(lines) <= h || at < 0 || at+2 <= h || h < 4 {
		return lines
	}
	first := max(1, at+2-(h-2)) // the entry ends on the last line shown
	return append([]string{lines[0], "  ↑ more"}, lines[first:]...)
}

// onProxies takes the new list of attached proxies and says what changed.
func (m *Model) onProxies(ps []Proxy) {
	was := map[int]bool{}
	for _, p := range m.servers.proxies {
		was[p.PID] = true
	}
	now := map[int]bool{}
	var came []string
	for _, p := range ps {
		now[p.PID] = true
		if !was[p.PID] {
			came = append(came, p.label())
		}
	}
	var gone []string
	for _, p := range m.servers.proxies {
		if !now[p.PID] {
			gone = append(gone, p.label())
		}
	}
	m.servers.proxies = ps
	switch {
	case len(came) > 0:
		m.status = "attached to proxy " + strings.Join(came, ", ")
	case len(gone) > 0:
		// Noted in the Inbox too: the withdrawals of its questions, which come at the
		// same time, replace the status line.
		m.status = "proxy gone: " + strings.Join(gone, ", ")
		m.inbox.note(m.status, m.now)
	}
}
