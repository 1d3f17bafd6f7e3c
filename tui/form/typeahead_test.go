package form

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// burstForm is a name, a number and a secret, in that order.
func burstForm() *elicit.Form {
	return &elicit.Form{Fields: []elicit.Field{
		{Name: "name", Title: "Name", Kind: elicit.KindText, Required: true},
		{Name: "seats", Title: "Seats", Kind: elicit.KindInteger, Required: true},
		{Name: "token", Title: "Token", Kind: elicit.KindText, Secret: true, Required: true},
	}}
}

// sendBurst sends every key of keys to the program at once, without waiting for the
// screen, as a fast typist or a terminal reading a whole buffer would.
func sendBurst(tm *teatest.TestModel, keys string) {
	for _, r := range keys {
		if r == '\r' {
			tm.Send(testkit.Key("<enter>"))
			continue
		}
		tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// finalContent runs the program to its end and returns the content accepted.
func finalContent(t *testing.T, tm *teatest.TestModel) map[string]any {
	t.Helper()
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(formProgram).m
	resp, done := fm.Done()
	if !done || resp.Action != elicit.Accept {
		t.Fatalf("form not accepted: done %v, %+v", done, resp)
	}
	return resp.Content
}

// TestTypeaheadBurstLandsInNextField types "Bob⏎5⏎s3cret⏎a⏎" as one burst: every key
// after an enter belongs to the next field, the secret never reaches a visible field,
// and the keys typed after the last field do not answer the review: it stays until a
// key typed once it shows answers it (here esc, so a review the burst had accepted
// would end the program as accepted instead).
func TestTypeaheadBurstLandsInNextField(t *testing.T) {
	for i := range 3 { // a race shows only now and then: try a few times
		m := NewModel(request("Book"), burstForm(), Options{NoColor: true})
		tm := teatest.NewTestModel(t, formProgram{m}, teatest.WithInitialTermSize(80, 24))
		t.Cleanup(func() { _ = tm.Quit() })
		waitFor(t, tm, "Name")
		sendBurst(tm, "Bob\r5\rs3cret\ra\r")
		s := waitFor(t, tm, "Review")
		for _, want := range []string{"Bob", "5"} {
			if !strings.Contains(s, want) {
				t.Errorf("try %d: the review lacks %q:\n%s", i, want, s)
			}
		}
		if strings.Contains(s, "s3cret") {
			t.Errorf("try %d: the secret shows on the review:\n%s", i, s)
		}
		tm.Send(testkit.Key("<esc>"))
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(formProgram).m
		if resp, done := fm.Done(); !done || resp.Action != elicit.Cancel {
			t.Fatalf("try %d: the keys typed ahead answered the review: done %v, %+v", i, done, resp)
		}
	}
}

// TestTypeaheadPasteAcrossFields pastes "Ada\n7\nhunter22\n" (a bracketed paste with
// newlines) into the first field: each line fills one field.
func TestTypeaheadPasteAcrossFields(t *testing.T) {
	m := NewModel(request("Book"), burstForm(), Options{NoColor: true})
	tm := teatest.NewTestModel(t, formProgram{m}, teatest.WithInitialTermSize(80, 24))
	t.Cleanup(func() { _ = tm.Quit() })
	waitFor(t, tm, "Name")
	tm.Send(tea.PasteMsg{Content: "Ada\r\n7\nhunter22\n"})
	s := waitFor(t, tm, "Review")
	if strings.Contains(s, "hunter22") {
		t.Errorf("the pasted secret shows on the review screen:\n%s", s)
	}
	tm.Send(testkit.Key("a"))
	want := map[string]any{"name": "Ada", "seats": int64(7), "token": "hunter22"}
	if diff := cmp.Diff(want, finalContent(t, tm)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

// TestTypeaheadInvalidKeepsKeys presses enter on an empty required field: the focus
// stays, and what is typed next fills that same field at once.
func TestTypeaheadInvalidKeepsKeys(t *testing.T) {
	m := NewModel(request("Book"), burstForm(), Options{NoColor: true})
	tm := teatest.NewTestModel(t, formProgram{m}, teatest.WithInitialTermSize(80, 24))
	t.Cleanup(func() { _ = tm.Quit() })
	waitFor(t, tm, "Name")
	sendBurst(tm, "\rZoe")
	waitFor(t, tm, "> Zoe")
	sendBurst(tm, "\r3\rpw\r")
	waitFor(t, tm, "Review")
	tm.Send(testkit.Key("a"))
	want := map[string]any{"name": "Zoe", "seats": int64(3), "token": "pw"}
	if diff := cmp.Diff(want, finalContent(t, tm)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

// TestTypeaheadLostMove: when huh's move never comes back (the embedder dropped its
// messages), keys typed after the limit are not held forever.
func TestTypeaheadLostMove(t *testing.T) {
	m := NewModel(request("Book"), burstForm(), Options{NoColor: true})
	m.Init()
	for _, r := range "Bob" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	m.Update(testkit.Key("<enter>")) // its command is dropped, as a set-aside form's would be
	if !m.ahead.waiting {
		t.Fatal("enter on a valid field does not wait for the move")
	}
	m.ahead.since = m.ahead.since.Add(-time.Second)
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if m.ahead.waiting || len(m.ahead.queue) != 0 {
		t.Errorf("keys still held after the limit: %+v", m.ahead)
	}
}

// TestTypeaheadPasteStopsAtReview pastes more lines than the form has fields: the lines
// fill the fields, and what is left of the paste (here an empty line, an enter) does not
// press the review's Accept: a paste types text, it does not answer for the user.
func TestTypeaheadPasteStopsAtReview(t *testing.T) {
	m := NewModel(request("Book"), burstForm(), Options{NoColor: true})
	tm := teatest.NewTestModel(t, formProgram{m}, teatest.WithInitialTermSize(80, 24))
	t.Cleanup(func() { _ = tm.Quit() })
	waitFor(t, tm, "Name")
	tm.Send(tea.PasteMsg{Content: "Ada\n7\nhunter22\n\nmore\n"})
	waitFor(t, tm, "Review")
	tm.Send(testkit.Key("<esc>"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(formProgram).m
	if resp, done := fm.Done(); !done || resp.Action != elicit.Cancel {
		t.Errorf("the rest of the paste answered the form: done %v, %+v", done, resp)
	}
}
