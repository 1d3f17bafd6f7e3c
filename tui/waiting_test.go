package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/tui/consent"
)

// sizes are the terminal sizes every URL screen must fit: actions and link visible.
var sizes = []struct {
	name string
	w, h int
}{{"80x24", 80, 24}, {"60x15", 60, 15}}

// failingOpener fails every Open as a machine without a browser does.
type failingOpener struct{ tried []string }

func (o *failingOpener) Open(_ context.Context, u string) error {
	o.tried = append(o.tried, u)
	return &consent.NoBrowserError{Reason: "there is no graphical display ($DISPLAY and $WAYLAND_DISPLAY are unset) and $BROWSER is not set"}
}

// realWith is realHarness with sess as demo's session.
func realWith(t *testing.T, sess *fakeSession, opts Options) *harness {
	t.Helper()
	opts.Servers = demoServers()
	opts.dial = connector(sess)
	opts.NewForm = func(req *elicit.Request, f *elicit.Form, so ScreenOptions) FormScreen {
		return quietForm{newForm(req, f, so)}
	}
	opts.NewConsent = func(req *elicit.Request, so ScreenOptions) ConsentScreen {
		return newConsentScreen(req, config.URLPolicy{}, so)
	}
	h := newHarness(t, opts)
	h.run(h.m.Init())
	return h
}

// visible fails unless every want is on the screen.
func visible(t *testing.T, screen string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Errorf("screen lacks %q:\n%s", w, screen)
		}
	}
}

// TestURLNoBrowser: "Open in browser" on a machine without a browser keeps the
// consent screen: it says why, shows the link in full, copies it, and offers the QR
// code, "I opened it myself" (accept, then the waiting screen), decline and cancel.
func TestURLNoBrowser(t *testing.T) {
	const link = "https://auth.example.com/link?session=4f7c2a9e8b1d&scope=calendar.read%20calendar.write"
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			op := &failingOpener{}
			h := realWith(t, demoSession(), Options{Opener: op})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			call, _ := h.inFlight("demo", "tools/call link")
			req := urlRequired("e-7")
			req.URL = link
			reply := h.requestIn(1, call, req)
			got := h.screen()
			testkit.Golden(t, "url_consent_"+size.name, got)
			visible(t, got, "Open in browser", "Copy", "QR code", "Decline", "Cancel", "Link (shown in full):")
			h.keys("o")
			noReply(t, reply)
			if len(op.tried) != 1 || len(h.side) != 1 {
				t.Fatalf("tried %v, clipboard writes %v: want one try and the link copied", op.tried, h.side)
			}
			got = h.screen()
			testkit.Golden(t, "url_no_browser_"+size.name, got)
			visible(t, got, "No browser can be opened here", "I opened it", "QR code", "Decline", "Cancel")
			visible(t, strings.Join(strings.Fields(mainArea(got)), " "), "there is no graphical display")
			if joined := strings.Join(strings.Fields(strings.ReplaceAll(mainArea(got), "│", "")), ""); !strings.Contains(joined, link) {
				t.Errorf("the link is not shown in full:\n%s", got)
			}
			h.keys("r")
			visible(t, h.screen(), "Hide QR")
			h.keys("r", "i")
			if diff := cmp.Diff(elicit.Response{Action: elicit.Accept}, replied(t, reply)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			got = h.screen()
			testkit.Golden(t, "url_waiting_required_"+size.name, got)
			visible(t, got, "Waiting for the step in your browser", "r retry now", "c cancel", "since 0s")
		})
	}
}

// mainArea returns the screen's main area (right of the servers pane, or the whole
// screen when no pane is shown), line by line.
func mainArea(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if _, right, ok := strings.Cut(l, "│"); ok {
			out = append(out, right)
		} else if !strings.Contains(s, "│") {
			out = append(out, l) // under 100 columns the main area has the whole width
		}
	}
	return strings.Join(out, "\n")
}

// TestURLNoBrowserDeclineCancel: decline and cancel stay offered once the browser failed.
func TestURLNoBrowserDeclineCancel(t *testing.T) {
	for key, want := range map[string]elicit.Action{"d": elicit.Decline, "<esc>": elicit.Cancel} {
		t.Run(key, func(t *testing.T) {
			h := realWith(t, demoSession(), Options{Opener: &failingOpener{}})
			reply := h.request(1, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Message: "Approve.", URL: "https://auth.example.com/a", ElicitationID: "e-1"})
			h.keys("o")
			noReply(t, reply)
			h.keys(key)
			if got := replied(t, reply).Action; got != want {
				t.Errorf("answered %s, want %s", got, want)
			}
			if len(h.m.inbox.flows) != 0 || h.m.watched() != nil {
				t.Errorf("a refused link is tracked: %+v", h.m.inbox.flows)
			}
		})
	}
}

// TestURLNoOpenerConfigured: without any opener the consent screen says so instead of
// accepting silently.
func TestURLNoOpenerConfigured(t *testing.T) {
	h := realWith(t, demoSession(), Options{})
	reply := h.request(1, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, URL: "https://auth.example.com/a", ElicitationID: "e-1"})
	h.keys("o")
	noReply(t, reply)
	visible(t, h.screen(), "no browser is configured", "I opened it myself")
}

// TestURLWaitingScreen: after consent, each URL path shows the one waiting screen with
// the link, the time since consent and what completes it, until it completes.
func TestURLWaitingScreen(t *testing.T) {
	now := epoch
	for _, tc := range []struct {
		name      string
		req       *elicit.Request
		completes string
		done      func(h *harness, call callID)
	}{
		{"push", &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginPush, Call: "tools/call link",
			Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc", ElicitationID: "e-3"},
			"notifications/elicitation/complete for e-3",
			func(h *harness, _ callID) { h.send(eventMsg{Server: "demo", Kind: "elicitation-complete", ID: "e-3"}) }},
		{"url-required", urlRequired("e-7"), "The call is retried when demo sends",
			func(h *harness, _ callID) { h.send(eventMsg{Server: "demo", Kind: "elicitation-complete", ID: "e-7"}) }},
		{"input-request", &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
			Call: "tools/call link", Key: "link", Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc"},
			"asks again in its next round",
			func(h *harness, call callID) { h.send(callDoneMsg{id: call, text: "linked"}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = epoch
			h := realWith(t, demoSession(), Options{Opener: &fakeOpener{}, Now: func() time.Time { return now }})
			call, _ := h.inFlight("demo", "tools/call link")
			reply := h.requestIn(1, call, tc.req)
			h.keys("o")
			replied(t, reply)
			now = epoch.Add(75 * time.Second)
			h.send(clockMsg(now))
			got := h.screen()
			visible(t, got, "Waiting for the step in your browser", "https://auth.example.com/link?s=abc", "since 1m15s", "y copy", "c cancel")
			if !strings.Contains(strings.Join(strings.Fields(mainArea(got)), " "), tc.completes) {
				t.Errorf("screen does not say what completes it (%q):\n%s", tc.completes, got)
			}
			tc.done(h, call)
			if s := h.screen(); strings.Contains(s, "Waiting for the step") {
				t.Errorf("the waiting screen outlived its flow:\n%s", s)
			}
		})
	}
}

// TestURLWaitingKeys: r retries a -32042 wait now, o reopens, y copies, ctrl+b goes
// back to the lists and enter in the Inbox shows the screen again, c asks and c again
// cancels the call.
func TestURLWaitingKeys(t *testing.T) {
	sess := demoSession()
	op := &fakeOpener{}
	h := realWith(t, sess, Options{Opener: op})
	call, ctx := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, urlRequired("e-7"))
	h.keys("o")
	replied(t, reply)
	h.keys("r")
	if sess.retries != 1 {
		t.Errorf("r: RetryNow called %d times, want 1", sess.retries)
	}
	// The retried call asks again: a new flow, a new waiting screen.
	reply = h.requestIn(2, call, urlRequired("e-8"))
	h.keys("c") // copy only: nothing opened this flow's link yet
	replied(t, reply)
	h.keys("o")
	if len(op.opened) != 2 {
		t.Errorf("o: opened %v, want the link opened", op.opened)
	}
	visible(t, h.screen(), "Opened in your browser.")
	h.keys("y")
	if n := len(h.side); n != 2 { // copy only, then y
		t.Errorf("clipboard writes %d, want 2", n)
	}
	h.keys("<ctrl+b>")
	if s := h.screen(); strings.Contains(s, "ctrl+b back") {
		t.Fatalf("ctrl+b did not go back:\n%s", s)
	}
	visible(t, h.screen(), "tools/call link · waiting for a link", "Waiting for the step in your browser: i (Inbox)")
	h.keys("i", "<enter>")
	visible(t, h.screen(), "Waiting for the step in your browser")
	h.keys("c")
	visible(t, h.screen(), "Cancel the call?")
	if ctx.Err() != nil {
		t.Fatal("c cancelled the call without asking")
	}
	h.keys("c")
	if ctx.Err() == nil {
		t.Error("c, c did not cancel the call")
	}
	if h.m.watched() != nil || len(h.m.inbox.flows) != 0 {
		t.Errorf("flows after cancel: %+v", h.m.inbox.flows)
	}
}

// TestURLWaitingReopenFails: a reopen without a browser says why on the waiting screen
// and copies the link.
func TestURLWaitingReopenFails(t *testing.T) {
	h := realWith(t, demoSession(), Options{Opener: &failingOpener{}})
	call, _ := h.inFlight("demo", "tools/call link")
	reply := h.requestIn(1, call, urlRequired("e-7"))
	h.keys("c") // copy only
	replied(t, reply)
	h.keys("o")
	visible(t, h.screen(), "Could not open the browser", "Waiting for the step")
	if len(h.side) != 2 {
		t.Errorf("clipboard writes %v, want the link copied again", h.side)
	}
}

// TestURLStillWaitingSizes: the screen of a link that came back fits both sizes.
func TestURLStillWaitingSizes(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := realWith(t, demoSession(), Options{Opener: &fakeOpener{}})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			call, _ := h.inFlight("demo", "tools/call link")
			req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
				Call: "tools/call link", Key: "link", Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc", Repeat: 2}
			reply := h.requestIn(1, call, req)
			got := h.screen()
			testkit.Golden(t, "url_still_waiting_"+size.name, got)
			visible(t, got, "https://auth.example.com/link?s=abc", "r retry now", "c cancel")
			h.keys("r")
			replied(t, reply)
		})
	}
}

// TestURLWaitingKeepsFirstConsentTime: a link that comes back in a later round shows the
// time since the first consent, and so does the wait after it is answered again.
func TestURLWaitingKeepsFirstConsentTime(t *testing.T) {
	now := epoch
	h := realWith(t, demoSession(), Options{Opener: &fakeOpener{}, Now: func() time.Time { return now }})
	call, _ := h.inFlight("demo", "tools/call link")
	req := func(repeat int) *elicit.Request {
		return &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
			Call: "tools/call link", Key: "link", URL: "https://auth.example.com/link?s=abc", Repeat: repeat}
	}
	first := h.requestIn(1, call, req(0))
	h.keys("o")
	replied(t, first)
	now = epoch.Add(40 * time.Second)
	h.send(clockMsg(now))
	again := h.requestIn(2, call, req(1))
	visible(t, h.screen(), "Still waiting: the link came back", "since 40s")
	h.keys("r")
	replied(t, again)
	visible(t, h.screen(), "Waiting for the step in your browser", "since 40s")
}

// TestURLWaitingEscGoesBack: esc on the waiting screen closes the QR code, then goes
// back to the lists; the flow and its call go on waiting (esc once cancelled the call
// unasked).
func TestURLWaitingEscGoesBack(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := realWith(t, demoSession(), Options{Opener: &fakeOpener{}})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			call, ctx := h.inFlight("demo", "tools/call link")
			reply := h.requestIn(1, call, urlRequired("e-7"))
			h.keys("o")
			replied(t, reply)
			visible(t, h.screen(), "Waiting for the step in your browser", "esc back", "c cancel")
			h.keys("v", "<esc>")
			visible(t, h.screen(), "Waiting for the step in your browser", "v QR code")
			h.keys("<esc>")
			if ctx.Err() != nil || len(h.m.inbox.flows) != 1 {
				t.Fatalf("esc cancelled the call (flows %+v)", h.m.inbox.flows)
			}
			if h.m.watched() != nil {
				t.Fatalf("esc did not go back:\n%s", h.screen())
			}
			visible(t, h.screen(), "Waiting for the step in your browser: i")
		})
	}
}

// TestURLConsentWarningsScroll: in a window too short for the consent screen's
// warnings (60x15), none is hidden: they scroll with pgdn, while the link in full, its
// host with its ASCII form and port, and the choices stay in view.
func TestURLConsentWarningsScroll(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := realWith(t, demoSession(), Options{Opener: &fakeOpener{}})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			const link = "https://user@xn--pple-43d.com:8443/signin?next=%2Fpay"
			reply := h.request(1, &elicit.Request{Server: "shop", Mode: elicit.ModeURL, Call: "tools/call pay",
				Message: "Sign in to pay for your order; the session expires in ten minutes.", URL: link, ElicitationID: "e-1"})
			got := h.screen()
			testkit.Golden(t, "url_consent_warnings_"+size.name, got)
			a := urlsafe.Analyze(link, urlsafe.Policy{AllowHTTPRemote: true})
			if len(a.Warnings) < 4 {
				t.Fatalf("the link has %d warnings; the test wants a screenful", len(a.Warnings))
			}
			seen := strings.Join(strings.Fields(mainArea(got)), " ")
			for range 10 {
				s := h.screen()
				flat := strings.Join(strings.Fields(strings.ReplaceAll(mainArea(s), "│", "")), "")
				if !strings.Contains(flat, strings.ReplaceAll(link, " ", "")) {
					t.Fatalf("the link is not in view in full:\n%s", s)
				}
				visible(t, s, "ASCII xn--pple-43d.com", "port 8443", "Open in browser", "Decline", "Cancel")
				h.keys("<pgdown>")
				seen += " " + strings.Join(strings.Fields(mainArea(h.screen())), " ")
			}
			for _, w := range a.Warnings {
				// The warning's words, wrapped over lines, all come into view.
				for _, word := range strings.Fields(w.Message) {
					if !strings.Contains(seen, word) {
						t.Errorf("warning %q never came into view (%q):\n%s", w.Message, word, got)
						break
					}
				}
			}
			noReply(t, reply)
		})
	}
}
