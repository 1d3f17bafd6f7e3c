package consent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestOpenFailedChoices: after a failed open the screen offers "I opened it myself"
// (accept), copies the link, and still declines and cancels.
func TestOpenFailedChoices(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want Choice
	}{
		{[]string{"i"}, Opened},
		{[]string{"<enter>"}, Opened},
		{[]string{"o"}, Open},
		{[]string{"d"}, Decline},
		{[]string{"<esc>"}, Cancel},
		{[]string{"y", "r", "r", "i"}, Opened},
	} {
		t.Run(strings.Join(tc.keys, ","), func(t *testing.T) {
			req := urlReq("demo", "Link it.", "https://auth.example.com/link?s=abc")
			m := New(req, urlsafe.Analyze(req.URL, urlsafe.Policy{}), Options{OpenAllowed: true, NoColor: true})
			m.Update(testkit.Key("o"))
			if c, _ := m.Done(); c != Open {
				t.Fatalf("o chose %v", c)
			}
			if cmd := m.OpenFailed(&NoBrowserError{Reason: "this is an SSH session and $BROWSER is not set"}); cmd == nil {
				t.Error("OpenFailed does not copy the link")
			}
			if _, done := m.Done(); done {
				t.Fatal("OpenFailed left a choice: the screen must stay open")
			}
			v := ansi.Strip(m.View())
			for _, want := range []string{"No browser can be opened here: this is an SSH session", "https://auth.example.com/link?s=abc", "I opened it myself"} {
				if !strings.Contains(v, want) {
					t.Errorf("view lacks %q:\n%s", want, v)
				}
			}
			for _, k := range tc.keys {
				m.Update(testkit.Key(k))
			}
			if c, _ := m.Done(); c != tc.want {
				t.Errorf("chose %v, want %v", c, tc.want)
			}
		})
	}
}

// TestOpenFailedRefusedNeverAccepts: a refused URL cannot be "opened myself".
func TestOpenFailedRefusedNeverAccepts(t *testing.T) {
	req := urlReq("demo", "x", "javascript:alert(1)")
	m := New(req, urlsafe.Analyze(req.URL, urlsafe.Policy{}), Options{OpenAllowed: true, NoColor: true})
	m.OpenFailed(errors.New("boom"))
	m.Update(testkit.Key("i"))
	if c, done := m.Done(); done {
		t.Errorf("a refused URL was answered %v", c)
	}
}

func TestWaitingCompletionPerPath(t *testing.T) {
	for _, tc := range []struct {
		req  *elicit.Request
		want string
	}{
		{&elicit.Request{Server: "s", Origin: elicit.OriginPush, ElicitationID: "e1"}, "sends notifications/elicitation/complete for e1"},
		{&elicit.Request{Server: "s", Origin: elicit.OriginURLRequired, ElicitationID: "e2"}, "or at once with r"},
		{&elicit.Request{Server: "s", Origin: elicit.OriginURLRequired}, "retried at once"},
		{&elicit.Request{Server: "s", Origin: elicit.OriginInputRequest}, "next round"},
		{&elicit.Request{Server: "s", Origin: elicit.OriginInputRequest, Repeat: 3}, "again (3 times)"},
	} {
		if got := Completion(tc.req); !strings.Contains(got, tc.want) {
			t.Errorf("Completion(%+v) = %q, want it to contain %q", tc.req, got, tc.want)
		}
	}
}

func TestWaitingElapsedAndKeys(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(3*time.Minute + 4*time.Second)
	req := &elicit.Request{Server: "s", Mode: elicit.ModeURL, Origin: elicit.OriginURLRequired, ElicitationID: "e", URL: "https://a.example.com/x"}
	w := NewWaiting(WaitingOptions{Req: req, Analysis: urlsafe.Analyze(req.URL, urlsafe.Policy{}), Since: start,
		Now: func() time.Time { return now }, CanOpen: true, CanRetry: true, NoColor: true})
	if v := w.View(); !strings.Contains(v, "since 3m04s") || !strings.Contains(v, "r retry now") {
		t.Errorf("view:\n%s", v)
	}
	w.Update(testkit.Key("r"))
	if c, _ := w.Done(); c != Retry {
		t.Errorf("r chose %v", c)
	}
	w.Reset("")
	w.Update(testkit.Key("v"))
	if v := w.View(); !strings.Contains(v, "v hide QR") {
		t.Errorf("v did not show the QR code:\n%s", v)
	}
	w.Update(testkit.Key("c"))
	w.Update(testkit.Key("c"))
	if c, _ := w.Done(); c != Cancel {
		t.Errorf("c, c chose %v", c)
	}
}

// TestWaitingEscGoesBackCancelAsks: esc closes the QR code, then goes back (the flow
// keeps waiting); c asks before it cancels, and any other key keeps waiting. The key
// line lists both.
func TestWaitingEscGoesBackCancelAsks(t *testing.T) {
	for _, size := range [][2]int{{80, 22}, {60, 11}} {
		req := urlReq("demo", "Link it.", "https://auth.example.com/link?s=abc")
		req.Origin, req.ElicitationID = elicit.OriginURLRequired, "e-1"
		w := NewWaiting(WaitingOptions{Req: req, Analysis: urlsafe.Analyze(req.URL, urlsafe.Policy{}), CanOpen: true, CanRetry: true,
			Width: size[0], Height: size[1], NoColor: true})
		v := ansi.Strip(w.View())
		if !strings.Contains(v, "esc back") || !strings.Contains(v, "c cancel") {
			t.Errorf("%v: the key line lacks esc back and c cancel:\n%s", size, v)
		}
		w.Update(testkit.Key("v"))
		w.Update(testkit.Key("<esc>"))
		if c, done := w.Done(); done || strings.Contains(ansi.Strip(w.View()), "hide QR") {
			t.Fatalf("%v: esc on the QR code chose %v instead of hiding it", size, c)
		}
		w.Update(testkit.Key("<esc>"))
		if c, _ := w.Done(); c != Back {
			t.Fatalf("%v: esc chose %v, want back", size, c)
		}
		w.Reset("")
		w.Update(testkit.Key("c"))
		if _, done := w.Done(); done {
			t.Fatalf("%v: c cancelled without asking", size)
		}
		if v := ansi.Strip(w.View()); !strings.Contains(strings.Join(strings.Fields(v), " "), "Cancel the call?") {
			t.Errorf("%v: c does not ask:\n%s", size, v)
		}
		w.Update(testkit.Key("<esc>"))
		if _, done := w.Done(); done {
			t.Fatalf("%v: esc answered the question with yes", size)
		}
		w.Update(testkit.Key("c"))
		w.Update(testkit.Key("y"))
		if c, _ := w.Done(); c != Cancel {
			t.Errorf("%v: c, y chose %v, want cancel", size, c)
		}
	}
}
