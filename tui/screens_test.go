package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// askName is a request of the program's own call, with one text field.
func askName(host string) *elicit.Request {
	return &elicit.Request{Server: "demo", Host: host, Call: "tools/call deploy", Message: "Your name?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
}

// stackIs fails the test when the screens open are not want, bottom first.
func stackIs(t *testing.T, h *harness, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, h.m.stackNames(), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("stack of screens (-want +got):\n%s\n%s", diff, h.screen())
	}
}

func TestStackRequestOverDescription(t *testing.T) {
	h := started(t, Options{})
	h.keys("d")
	stackIs(t, h, "describe")
	reply := h.request(1, askName(""))
	stackIs(t, h, "describe", "request")
	if s := h.screen(); !strings.Contains(s, "Answering") {
		t.Fatalf("the request is not drawn over the description:\n%s", s)
	}
	h.keys("<esc>") // cancels the untouched form
	if r := replied(t, reply); r.Action != elicit.Cancel {
		t.Fatalf("esc answered %v, want cancel", r.Action)
	}
	stackIs(t, h, "describe")
	if s := h.screen(); !strings.Contains(s, "Tool deploy on demo") {
		t.Fatalf("closing the request did not show the description again:\n%s", s)
	}
	h.keys("<esc>")
	stackIs(t, h)
	if s := h.screen(); !strings.Contains(s, "Deploy the service") || strings.Contains(s, "Tool deploy on demo") {
		t.Fatalf("closing the description did not show the tab:\n%s", s)
	}
}

func TestStackEscPopsOneLevel(t *testing.T) {
	h := started(t, Options{})
	h.keys("o")
	stackIs(t, h, "roots")
	h.request(1, askName(""))
	stackIs(t, h, "roots", "request")
	h.keys("<esc>")
	stackIs(t, h, "roots")
	h.keys("<esc>")
	stackIs(t, h)
}

func TestStackFullHelpUnderRequest(t *testing.T) {
	h := started(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15}) // the full help fills the main area
	h.keys("?")
	stackIs(t, h, "help")
	h.request(1, askName(""))
	stackIs(t, h, "help", "request")
	h.keys("<esc>")
	stackIs(t, h, "help")
	if s := h.screen(); !strings.Contains(s, "Keys") {
		t.Fatalf("the full help is not shown again:\n%s", s)
	}
	h.keys("x") // any other key closes it, and does nothing else
	stackIs(t, h)
}

func TestStackProxyQuestionNeverPushes(t *testing.T) {
	for _, open := range []string{"", "d"} {
		t.Run("over "+open, func(t *testing.T) {
			h := started(t, Options{})
			var below []string
			if open != "" {
				h.keys(open)
				below = h.m.stackNames()
			}
			reply := h.request(1, askName("Claude Code"))
			if diff := cmp.Diff(below, h.m.stackNames(), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("a proxy's question changed the screens (-want +got):\n%s", diff)
			}
			if h.m.active != nil || !strings.Contains(h.m.status, "new request from") {
				t.Fatalf("a proxy's question opened by itself (status %q)", h.m.status)
			}
			noReply(t, reply)
			// Asked for, it opens like any other.
			h.keys("<esc>", "i", "<enter>")
			if h.m.active == nil || h.m.active.id != 1 {
				t.Fatalf("the proxy's question does not open from the Inbox:\n%s", h.screen())
			}
		})
	}
}

func TestStackWaitingScreenOpensUnderForm(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(demoSession()), Opener: &fakeOpener{}})
	h.run(h.m.Init())
	call, _ := h.inFlight("demo", "tools/call link")
	link := h.requestIn(1, call, urlRequired("e-7"))
	_, opening := h.m.Update(testkit.Key("o")) // the browser's outcome comes later
	h.keys("<ctrl+b>")                         // set aside meanwhile
	reply := h.request(2, askName(""))
	stackIs(t, h, "request")
	h.run(opening) // the browser opened: the link is accepted and its flow watched
	replied(t, link)
	// The waiting screen opened by itself: it never takes the keyboard from the form.
	stackIs(t, h, "waiting", "request")
	if h.m.active == nil || h.m.active.id != 2 || !strings.Contains(h.screen(), "Your name?") {
		t.Fatalf("the waiting screen took the place of the open form:\n%s", h.screen())
	}
	h.keys("<esc>")
	if r := replied(t, reply); r.Action != elicit.Cancel {
		t.Fatalf("esc answered %v, want cancel", r.Action)
	}
	stackIs(t, h, "waiting")
	if s := h.screen(); !strings.Contains(s, "Waiting: ") {
		t.Fatalf("the waiting screen is not shown once the form closed:\n%s", s)
	}
}

func TestStackHelpThatStopsFittingComesOnTop(t *testing.T) {
	h := started(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 200, Height: 60}) // the full help fits the help bar
	h.keys("?", "d")
	stackIs(t, h, "help", "describe")
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15}) // no longer: it fills the main area
	stackIs(t, h, "describe", "help")
	if s := h.screen(); !strings.Contains(s, "Keys") {
		t.Fatalf("the full help is not shown over the description:\n%s", s)
	}
	h.keys("x")
	stackIs(t, h, "describe")
}

// TestQuestionWaitsForFilter: a question of the program's own call that comes while
// the user types a filter does not open over it and take the keys that follow; it
// waits, said on the status line, and opens when the filter ends (enter or esc).
func TestQuestionWaitsForFilter(t *testing.T) {
	for _, end := range []string{"<enter>", "<esc>"} {
		t.Run(end, func(t *testing.T) {
			h := started(t, Options{})
			h.keys("/", "d", "e") // a filter being typed on the Tools tab
			reply := h.request(1, askName(""))
			stackIs(t, h, "filter")
			if !strings.Contains(h.m.status, "after the filter") {
				t.Fatalf("the status does not say the question waits for the filter: %q", h.m.status)
			}
			h.keys("p", "l") // still the filter's
			if got := h.m.cats[tabTools].f.input.Value(); got != "depl" {
				t.Fatalf("the filter holds %q after the question came, want %q", got, "depl")
			}
			noReply(t, reply)
			h.keys(end)
			stackIs(t, h, "request")
			if h.m.active == nil || h.m.active.id != 1 {
				t.Fatalf("%s ended the filter but did not open the question:\n%s", end, h.screen())
			}
			if strings.Contains(h.m.status, "after the filter") {
				t.Errorf("the status still says the question waits, though it is open: %q", h.m.status)
			}
			h.keys("<esc>") // the untouched form: esc cancels it
			if r := replied(t, reply); r.Action != elicit.Cancel {
				t.Fatalf("esc answered %v, want cancel", r.Action)
			}
		})
	}
}

func TestStackSetAsideOverDescription(t *testing.T) {
	h := started(t, Options{})
	h.keys("d") // the description of the selected tool
	h.request(1, askName(""))
	h.keys("<ctrl+b>") // set aside: the Inbox shows, not the Tools tab's description
	if s := h.screen(); !strings.Contains(s, "Inbox: 1 pending") || strings.Contains(s, "Tool deploy on demo") {
		t.Fatalf("ctrl+b over a description does not show the Inbox:\n%s", s)
	}
	h.keys("<enter>") // the Inbox's enter opens the question again
	if h.m.active == nil || h.m.active.id != 1 {
		t.Fatalf("enter on the Inbox did not open the question set aside:\n%s", h.screen())
	}
	h.keys("<ctrl+b>", "q") // and q, right after ctrl+b, quits (it asks first)
	if h.m.confirm == nil || !strings.Contains(h.m.confirm.question, "quit") {
		t.Fatalf("q after ctrl+b did not ask to quit (status %q):\n%s", h.m.status, h.screen())
	}
}
