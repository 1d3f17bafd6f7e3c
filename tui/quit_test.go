package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// quits reports whether the key k, pressed now, quits the program.
func (h *harness) quits(k string) bool {
	h.t.Helper()
	_, cmd := h.m.Update(testkit.Key(k))
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// TestQuitAsksWithWorkInFlight: q asks before it quits when calls are running or URL
// flows are awaited, not only when requests are pending; q again quits, any other key
// keeps the program.
func TestQuitAsksWithWorkInFlight(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
		make func(h *harness)
	}{
		{"a call in flight", "1 call(s) in flight", func(h *harness) { h.inFlight("demo", "tools/call slow") }},
		{"a URL flow", "1 URL flow(s)", func(h *harness) {
			call, _ := h.inFlight("demo", "tools/call link")
			reply := h.requestIn(1, call, urlRequired("e-7"))
			h.keys("o")
			replied(t, reply)
			h.keys("<ctrl+b>")                                  // back to the lists
			h.m.calls.calls[len(h.m.calls.calls)-1].done = true // the flow counts, not its call
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := started(t, Options{Opener: &fakeOpener{}})
			tc.make(h)
			h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
			if h.quits("q") {
				t.Fatal("q quit at once")
			}
			if h.m.confirm == nil || !strings.Contains(h.m.confirm.question, tc.want) {
				t.Fatalf("q does not ask about %s:\n%s", tc.want, h.screen())
			}
			if got := lastLine(h.screen()); !strings.Contains(got, "y, q yes · other no") {
				t.Errorf("the question's keys are not in view: %q", got)
			}
			h.keys("j")
			if h.m.confirm != nil {
				t.Fatal("another key did not keep the program")
			}
			if h.quits("q") || !h.quits("q") {
				t.Error("q, q did not quit")
			}
		})
	}
}

// queued returns a started harness (real forms) with n form requests queued, the first
// one open, and their reply channels.
func queued(t *testing.T, n int) (*harness, []chan elicit.Response) {
	h := realHarness(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	replies := make([]chan elicit.Response, 0, n)
	for i := range n {
		replies = append(replies, h.request(reqID(i+1), &elicit.Request{Server: "demo", Call: "tools/call deploy",
			Message: fmt.Sprintf("Question %d", i+1), Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)}))
	}
	if h.m.active == nil {
		t.Fatal("no form open")
	}
	return h, replies
}

// TestQuitAlwaysQuits: with 2,000 questions queued, ctrl+c twice quits (cancel all and
// quit), and q after esc, ctrl+x or ctrl+b is the quit key, never typed into the form
// that opened in the meantime; every question is answered within a second after.
func TestQuitAlwaysQuits(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		name   string
		before string // the key that closes or sets aside the open form
		arrive bool   // a new question arrives after it
		quit   []string
	}{
		{"ctrl+c twice", "<ctrl+c>", false, []string{"<ctrl+c>"}},
		{"esc q q", "<esc>", false, []string{"q", "q"}},
		{"ctrl+x q q", "<ctrl+x>", false, []string{"q", "q"}},
		{"ctrl+b, a new question, q q", "<ctrl+b>", true, []string{"q", "q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, replies := queued(t, n)
			h.keys(tc.before)
			if tc.arrive {
				replies = append(replies, h.request(n+1, &elicit.Request{Server: "demo", Message: "One more",
					Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)}))
			}
			open := h.m.active
			if open == nil {
				t.Fatalf("no form opened after %s:\n%s", tc.before, h.screen())
			}
			last := len(tc.quit) - 1
			h.keys(tc.quit[:last]...)
			if !h.quits(tc.quit[last]) {
				t.Fatalf("%v did not quit:\n%s", tc.quit, h.screen())
			}
			if isDirty(open.fs) || h.m.active != open {
				t.Errorf("the quit keys reached the form that opened:\n%s", h.screen())
			}
			start := time.Now()
			h.m.closeAll()
			if d := time.Since(start); d > time.Second {
				t.Errorf("closing took %v with %d questions queued", d, n)
			}
			for i, r := range replies {
				select {
				case <-r:
				default:
					t.Fatalf("question %d of %d left unanswered", i+1, len(replies))
				}
			}
		})
	}
}

// TestProgramQuitWithThousandsQueued: the real program with 2,000 questions asked
// through the Bridge at 60x15: ctrl+c twice ends it, and every asker gets its answer
// (cancel) once the program closes.
func TestProgramQuitWithThousandsQueued(t *testing.T) {
	const n = 2000
	b := NewBridge()
	m := New(t.Context(), b, Options{Servers: demoServers()[:1], dial: connector(demoSession()), NoColor: true,
		Now: func() time.Time { return epoch }})
	tm := runProgramSized(t, m, b, 60, 15)
	waitScreen(t, tm, "demo       deploy")
	answers := make(chan elicit.Response, n)
	for i := range n {
		go func() {
			r, _ := b.Answer(t.Context(), &elicit.Request{Server: "demo", Message: fmt.Sprintf("Question %d", i+1),
				Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			answers <- r
		}()
	}
	waitScreen(t, tm, fmt.Sprintf("%d pending", n))
	tm.Send(testkit.Key("<ctrl+c>")) // cancels the open question; the next opens
	tm.Send(testkit.Key("<ctrl+c>")) // cancel all and quit
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
	m.closeAll()
	for i := range n {
		select {
		case r := <-answers:
			if r.Action != elicit.Cancel {
				t.Fatalf("an asker got %+v, want cancel", r)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d askers never got an answer", n-i, n)
		}
	}
}
