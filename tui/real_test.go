package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// realHarness is a started harness with the real screens: tui/form's Model and
// tui/consent's Model.
func realHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	opts.Servers = demoServers()
	opts.dial = connector(demoSession())
	opts.NewForm = func(req *elicit.Request, f *elicit.Form, so ScreenOptions) FormScreen {
		return quietForm{newForm(req, f, so)}
	}
	pol := map[string]config.URLPolicy{}
	opts.NewConsent = func(req *elicit.Request, so ScreenOptions) ConsentScreen {
		return newConsentScreen(req, pol[req.Server], so)
	}
	h := newHarness(t, opts)
	h.run(h.m.Init())
	return h
}

// quietForm drops the screen's commands: huh's cursor blink is an endless chain of
// timers, which the synchronous harness would follow forever. TestProgramEndToEnd runs
// the real form with its commands in a real program.
type quietForm struct{ FormScreen }

func (q quietForm) Init() tea.Cmd { q.FormScreen.Init(); return nil }

func (q quietForm) Update(msg tea.Msg) tea.Cmd { q.FormScreen.Update(msg); return nil }

func TestRealFormEveryKind(t *testing.T) {
	h := realHarness(t, Options{})
	h.request(1, &elicit.Request{Server: "demo", Call: "tools/call signup", Protocol: "2025-11-25",
		Message: "Please sign up.", Schema: json.RawMessage(everyKind)})
	got := h.screen()
	testkit.Golden(t, "real_form_open", got)
	for _, want := range []string{"Answering demo form (push) ← tools/call signup", "Please sign up.", "Name"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

func TestRealDeclineVsCancel(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want elicit.Action
	}{
		{"<ctrl+x>", elicit.Decline},
		{"<esc>", elicit.Cancel},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			h := realHarness(t, Options{})
			reply := h.request(1, &elicit.Request{Server: "demo", Message: "Proceed?", Schema: json.RawMessage(`{"type":"object","properties":{"why":{"type":"string"}}}`)})
			h.keys(tc.key)
			if diff := cmp.Diff(elicit.Response{Action: tc.want}, replied(t, reply)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if h.m.active != nil || len(h.m.inbox.items) != 0 {
				t.Error("request still open")
			}
		})
	}
}

func TestRealURLConsent(t *testing.T) {
	op := &fakeOpener{}
	h := realHarness(t, Options{Opener: op})
	reply := h.request(1, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Call: "tools/call connect",
		Message: "Authorize access to your account.", URL: "https://auth.example.com/authorize?state=xyz", ElicitationID: "e-1"})
	testkit.Golden(t, "real_url_consent", h.screen())
	h.keys("o")
	if diff := cmp.Diff(elicit.Response{Action: elicit.Accept}, replied(t, reply)); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://auth.example.com/authorize?state=xyz"}, op.opened); diff != "" {
		t.Errorf("opened (-want +got):\n%s", diff)
	}
}

// Dirty and Filtering pass the form's own answers through the wrapper.
func (q quietForm) Dirty() bool { return isDirty(q.FormScreen) }

func (q quietForm) Filtering() bool {
	f, ok := q.FormScreen.(interface{ Filtering() bool })
	return ok && f.Filtering()
}
