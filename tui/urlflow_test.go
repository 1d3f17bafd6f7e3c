package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// inFlight starts a call as startCall does, without running it: the harness runs
// commands synchronously, so a running call cannot be observed otherwise.
func (h *harness) inFlight(server, what string) (callID, context.Context) {
	h.t.Helper()
	id := h.m.calls.start(server, what)
	ctx, cancel := context.WithCancel(h.t.Context())
	h.m.cancels[id] = cancel
	return id, ctx
}

// requestIn injects a request asked within call, as the bridge does for a request
// whose context carries the call.
func (h *harness) requestIn(id reqID, call callID, req *elicit.Request) chan elicit.Response {
	h.t.Helper()
	reply := make(chan elicit.Response, 1)
	h.send(elicitRequestMsg{id: id, req: req, reply: reply, call: call})
	return reply
}

func urlRequired(id string) *elicit.Request {
	return &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginURLRequired, Call: "tools/call link",
		Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc", ElicitationID: id, Index: 1, Total: 1}
}

func TestURLFlowRetryNow(t *testing.T) {
	sess := demoSession()
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess), Opener: &fakeOpener{}})
	h.run(h.m.Init())
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, urlRequired("e-7"))
	h.keys("o")
	replied(t, reply)
	h.keys("i")
	testkit.Golden(t, "url_flow_pending", h.screen())
	h.keys("<down>") // the cursor moves from the (empty) requests to the flow
	h.keys("n")
	if sess.retries != 1 {
		t.Errorf("RetryNow called %d times, want 1", sess.retries)
	}
	if s := h.screen(); strings.Contains(s, "URL flows awaiting completion") {
		t.Errorf("retried flow still listed:\n%s", s)
	}
}

func TestURLFlowCancelCancelsCall(t *testing.T) {
	h := started(t, Options{Opener: &fakeOpener{}})
	call, ctx := h.inFlight("demo", "tools/call link")
	other, otherCtx := h.inFlight("demo", "tools/call echo")
	reply := h.requestIn(1, call, urlRequired("e-1"))
	h.keys("c") // copy only: accepted, tracked
	replied(t, reply)
	h.keys("i", "x")
	if ctx.Err() == nil {
		t.Error("the flow's call was not cancelled")
	}
	if otherCtx.Err() != nil {
		t.Errorf("call %d, not the flow's, was cancelled too", other)
	}
	if len(h.m.inbox.flows) != 0 {
		t.Errorf("flows after cancel: %+v", h.m.inbox.flows)
	}
	if !strings.Contains(h.m.status, "call cancelled") {
		t.Errorf("status %q", h.m.status)
	}
}

func TestURLFlowEndsWithItsCall(t *testing.T) {
	h := started(t, Options{Opener: &fakeOpener{}})
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, urlRequired(""))
	h.keys("o")
	replied(t, reply)
	if len(h.m.inbox.flows) != 1 {
		t.Fatalf("flows = %+v, want the consented one", h.m.inbox.flows)
	}
	h.send(callDoneMsg{id: call, text: "linked"})
	if len(h.m.inbox.flows) != 0 {
		t.Errorf("flows after the call ended: %+v", h.m.inbox.flows)
	}
}

func TestURLFlowPushWithoutIDNotTracked(t *testing.T) {
	h := started(t, Options{Opener: &fakeOpener{}})
	reply := h.request(1, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginPush, URL: "https://x.example.com/"})
	h.keys("o")
	replied(t, reply)
	if len(h.m.inbox.flows) != 0 {
		t.Errorf("flows = %+v: nothing can complete a pushed URL without an id or call", h.m.inbox.flows)
	}
}

// TestURLStillWaiting: a 2026-07-28 link that comes back is not reopened; the user
// retries, reopens or cancels.
func TestURLStillWaiting(t *testing.T) {
	for _, tc := range []struct {
		key    string
		want   elicit.Action
		opened int
	}{
		{"r", elicit.Accept, 0},
		{"o", elicit.Accept, 1},
		{"c y", elicit.Cancel, 0},
	} {
		t.Run(tc.key, func(t *testing.T) {
			op := &fakeOpener{}
			h := started(t, Options{Opener: op})
			call, _ := h.inFlight("demo", "tools/call link")
			req := func(repeat int) *elicit.Request {
				return &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
					Call: "tools/call link", Key: "link", Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc", Repeat: repeat}
			}
			first := h.requestIn(1, call, req(0))
			h.keys("o")
			replied(t, first)
			if len(op.opened) != 1 || len(h.m.inbox.flows) != 1 {
				t.Fatalf("first round: opened %v, flows %+v", op.opened, h.m.inbox.flows)
			}
			again := h.requestIn(2, call, req(1))
			if tc.key == "r" {
				testkit.Golden(t, "url_still_waiting", h.screen())
			}
			if len(h.m.inbox.flows) != 0 {
				t.Errorf("the earlier round's flow is still listed: %+v", h.m.inbox.flows)
			}
			h.keys(strings.Fields(tc.key)...)
			if diff := cmp.Diff(elicit.Response{Action: tc.want}, replied(t, again)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if got := len(op.opened) - 1; got != tc.opened {
				t.Errorf("reopened %d times, want %d", got, tc.opened)
			}
		})
	}
}

// TestInboxShowsServerBudget: the time left in the inbox is the server's budget
// (Request.Deadline) when known, and "expired" once it has passed.
func TestInboxShowsServerBudget(t *testing.T) {
	now := epoch
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(demoSession()), Now: func() time.Time { return now }})
	h.run(h.m.Init())
	h.request(1, &elicit.Request{Server: "demo", Call: "tools/call deploy", Message: "Which env?", Deadline: epoch.Add(90 * time.Second),
		Schema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)})
	if s := h.screen(); !strings.Contains(s, "1m30s left") {
		t.Errorf("open form does not show the budget:\n%s", s)
	}
	h.keys("<ctrl+b>")
	h.send(clockMsg(epoch.Add(30 * time.Second)))
	if s := h.screen(); !strings.Contains(s, "30s ago, 1m0s left") {
		t.Errorf("inbox does not show age and budget:\n%s", s)
	}
	h.send(clockMsg(epoch.Add(2 * time.Minute)))
	if s := h.screen(); !strings.Contains(s, "expired") {
		t.Errorf("inbox does not say expired:\n%s", s)
	}
}

func TestURLFlowRetryNowModernIsNoop(t *testing.T) {
	sess := demoSession()
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess), Opener: &fakeOpener{}})
	h.run(h.m.Init())
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest,
		Call: "tools/call link", Key: "link", URL: "https://auth.example.com/link"})
	h.keys("o")
	replied(t, reply)
	h.keys("i", "n")
	if sess.retries != 0 || len(h.m.inbox.flows) != 1 || !strings.Contains(h.m.status, "already retried") {
		t.Errorf("retries %d, flows %+v, status %q", sess.retries, h.m.inbox.flows, h.m.status)
	}
}

func TestURLStillWaitingCopyOnly(t *testing.T) {
	op := &fakeOpener{}
	srvs := demoServers()
	srvs[0].URLPolicy.Open = config.URLCopyOnly
	h := newHarness(t, Options{Servers: srvs, dial: connector(demoSession()), Opener: op})
	h.run(h.m.Init())
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest,
		Call: "tools/call link", Key: "link", URL: "https://auth.example.com/link", Repeat: 1})
	if s := h.screen(); strings.Contains(s, "o reopen") {
		t.Errorf("copy-only policy, yet reopen is offered:\n%s", s)
	}
	h.keys("o", "y")
	noReply(t, reply)
	if len(op.opened) != 0 || len(h.side) != 1 {
		t.Errorf("opened %v, clipboard writes %v: want no open, one copy", op.opened, h.side)
	}
	h.keys("r")
	if diff := cmp.Diff(elicit.Response{Action: elicit.Accept}, replied(t, reply)); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// TestURLStillWaitingEscSetsAside: esc on a link that came back keeps it pending (set
// aside, in the Inbox); it no longer cancels the call.
func TestURLStillWaitingEscSetsAside(t *testing.T) {
	h := started(t, Options{Opener: &fakeOpener{}})
	call, ctx := h.inFlight("demo", "tools/call link")
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
		Call: "tools/call link", Key: "link", URL: "https://auth.example.com/link?s=abc", Repeat: 1}
	reply := h.requestIn(1, call, req)
	h.keys("<esc>")
	noReply(t, reply)
	if ctx.Err() != nil || h.m.active != nil || len(h.m.inbox.items) != 1 || h.m.tab != tabInbox {
		t.Fatalf("esc did not set the request aside:\n%s", h.screen())
	}
	h.keys("<enter>", "r")
	if got := replied(t, reply).Action; got != elicit.Accept {
		t.Errorf("r answered %s after esc, want accept", got)
	}
}

// TestURLCopyOnlyWaiting: after "Copy link only" nothing was opened, so the waiting
// screen offers "o open" and does not speak of a browser step; once o opens the link,
// it says so and offers "o reopen".
func TestURLCopyOnlyWaiting(t *testing.T) {
	op := &fakeOpener{}
	h := started(t, Options{Opener: op})
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, urlRequired("e-1"))
	h.keys("c") // copy only: accepted, watched
	replied(t, reply)
	wantStepAtLink(t, h.screen())
	// Back on the lists, the call's Result pane says the same.
	h.keys("<esc>")
	if s := h.screen(); !strings.Contains(s, "Waiting for the step at the link: i (Inbox)") || strings.Contains(s, "browser") {
		t.Errorf("the Result pane does not say the step is at the copied link:\n%s", s)
	}
	h.keys("i", "<enter>") // the flow, from the Inbox: the waiting screen again
	h.keys("o")
	if len(op.opened) != 1 {
		t.Fatalf("o opened %d links, want 1", len(op.opened))
	}
	s := h.screen()
	if !strings.Contains(s, "Opened in your browser.") || !strings.Contains(s, "o reopen") ||
		!strings.Contains(s, "Waiting for the step in your browser") {
		t.Errorf("after o the screen does not say the link is open:\n%s", s)
	}
	h.keys("<esc>", "<tab>") // from the Inbox, the next tab: Tools
	if s := h.screen(); !strings.Contains(s, "Waiting for the step in your browser: i (Inbox)") {
		t.Errorf("after o the Result pane does not speak of the browser:\n%s", s)
	}
}
