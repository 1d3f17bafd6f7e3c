package tui

import (
	"fmt"
	"time"

	"github.com/elicitty/elicitty/elicit"
)

// pending is one elicitation waiting for the user.
type pending struct {
	id      reqID
	req     *elicit.Request
	form    *elicit.Form
	reply   chan<- elicit.Response
	arrived time.Time
	// aside is set when the user set the request aside; it then opens only on request.
	aside bool
	// Exactly one of form/consent is set once the request has been opened; it keeps
	// the user's draft while the request is set aside.
	fs FormScreen
	cs ConsentScreen
}

// answer sends r on the reply channel; the channel has capacity 1 and gets one send.
func (p *pending) answer(r elicit.Response) { p.reply <- r }

// inbox holds every pending request across servers, oldest first.
type inbox struct {
	items  []*pending
	cursor int
	notes  []string // last removals ("deploy: cancelled by the server")
	w, h   int
	st     *styles
}

// SetSize sets the pane's outer size.
func (in *inbox) SetSize(w, h int) { in.w, in.h = w, h }

func (in *inbox) add(p *pending) { in.items = append(in.items, p) }

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
	if in.cursor >= len(in.items) {
		in.cursor = max(0, len(in.items)-1)
	}
	return p
}

func (in *inbox) note(s string) {
	in.notes = append(in.notes, s)
	if len(in.notes) > 3 {
		in.notes = in.notes[len(in.notes)-3:]
	}
}

func (in *inbox) move(d int) { in.cursor = max(0, min(len(in.items)-1, in.cursor+d)) }

func (in *inbox) selected() *pending {
	if in.cursor < 0 || in.cursor >= len(in.items) {
		return nil
	}
	return in.items[in.cursor]
}

// describe is the one-line summary of a request.
func describe(r *elicit.Request) string {
	what := "form"
	if r.Mode == elicit.ModeURL {
		what = "url"
	}
	s := fmt.Sprintf("%s %s (%s)", r.Server, what, r.Origin)
	if r.Call != "" {
		s += " ← " + oneLine(r.Call)
	}
	if r.Total > 1 {
		s += fmt.Sprintf(" [%d/%d]", r.Index, r.Total)
	}
	return s
}

// View renders the inbox at time now and the pending URL flows, exactly in.h lines.
func (in inbox) View(now time.Time, flows []flow) string {
	var lines []string
	lines = append(lines, in.st.Title.Render(fmt.Sprintf("Inbox: %d pending", len(in.items))))
	for i, p := range in.items {
		age := now.Sub(p.arrived).Truncate(time.Second)
		left := "no deadline"
		if !p.req.Deadline.IsZero() {
			if d := p.req.Deadline.Sub(now).Truncate(time.Second); d > 0 {
				left = d.String() + " left"
			} else {
				left = "expired"
			}
		}
		line := trunc(fmt.Sprintf("%d. %s  %s ago, %s", i+1, describe(p.req), age, left), in.w)
		if i == in.cursor {
			line = in.st.Selected.Render(line)
		}
		lines = append(lines, line)
		msg := oneLine(firstLine(p.req.Message))
		if p.req.Mode == elicit.ModeURL {
			msg = "url: " + oneLine(p.req.URL)
		}
		lines = append(lines, in.st.Dim.Render(trunc("   "+msg, in.w)))
	}
	if len(in.items) == 0 {
		lines = append(lines, in.st.Dim.Render("nothing pending"))
	}
	if len(in.notes) > 0 {
		lines = append(lines, "")
		for _, n := range in.notes {
			for _, l := range wrapWords(n, in.w) {
				lines = append(lines, in.st.Warn.Render(l))
			}
		}
	}
	if len(flows) > 0 {
		lines = append(lines, "", in.st.Title.Render("URL flows awaiting completion"))
		for _, f := range flows {
			lines = append(lines, trunc("  "+f.server+": "+oneLine(f.url), in.w))
		}
	}
	return fitLines(lines, in.h)
}
