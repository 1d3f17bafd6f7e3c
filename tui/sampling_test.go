package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// samplingReq is a sampling request with a system prompt, text, an image and a
// control sequence in the server's text.
func samplingReq(t *testing.T) *elicit.Request {
	t.Helper()
	s, err := elicit.ParseSampling(json.RawMessage(`{"messages":[
		{"role":"user","content":{"type":"text","text":"Summarize the weather report\u001b]52;c;aGk=\u0007 below in one line."}},
		{"role":"user","content":{"type":"image","data":"aGVsbG8gd29ybGQ=","mimeType":"image/png"}}],
		"systemPrompt":"You are a helpful test server.","maxTokens":100,"temperature":0.7,
		"modelPreferences":{"hints":[{"name":"claude"}],"speedPriority":0.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	return &elicit.Request{Server: "demo", Call: "tools/call summarize", Tool: "summarize", Mode: elicit.ModeSampling,
		Message: s.Prompt(), Sampling: s}
}

func TestSamplingScreen(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			h := realHarness(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			reply := h.request(1, samplingReq(t))
			got := h.screen()
			testkit.Golden(t, "sampling_open_"+size.name, got)
			for _, want := range []string{"demo asks for a model reply for summarize", "System prompt", "Model name (tab): human"} {
				if !strings.Contains(got, want) {
					t.Errorf("screen lacks %q:\n%s", want, got)
				}
			}
			h.keys("<pgdown>")
			if got := h.screen(); !strings.Contains(got, "[image: image/png, 11 B]") {
				t.Errorf("pgdown does not show the image placeholder:\n%s", got)
			}
			h.keys("<pgdown>", "<pgdown>", "<pgdown>")
			if got := h.screen(); !strings.Contains(got, "max tokens 100, temperature 0.7") {
				t.Errorf("pgdown does not show the settings:\n%s", got)
			}
			if strings.Contains(got, "aGk=") || strings.Contains(got, "\x07") {
				t.Errorf("the OSC 52 sequence of the server reached the screen:\n%q", got)
			}
			h.keys("<ctrl+s>")
			if !strings.Contains(h.screen(), "Write a reply first") {
				t.Errorf("an empty reply went to review:\n%s", h.screen())
			}
			h.typeText("Sunny all day.")
			h.keys("<tab>", "<backspace>", "<backspace>", "<backspace>", "<backspace>", "<backspace>")
			h.typeText("ada")
			h.keys("<ctrl+s>")
			got = h.screen()
			testkit.Golden(t, "sampling_review_"+size.name, got)
			if !strings.Contains(got, `as model "ada", role assistant,`) || !strings.Contains(got, "endTurn") {
				t.Errorf("review lacks the model:\n%s", got)
			}
			noReply(t, reply)
			h.keys("a")
			r := replied(t, reply)
			want := &elicit.SampleReply{Text: "Sunny all day.", Model: "ada", StopReason: elicit.StopEndTurn}
			if r.Action != elicit.Accept || r.Sample == nil || *r.Sample != *want {
				t.Errorf("answer = %+v %+v, want accept %+v", r, r.Sample, want)
			}
		})
	}
}

func TestSamplingDecline(t *testing.T) {
	h := realHarness(t, Options{})
	reply := h.request(1, samplingReq(t))
	h.keys("<ctrl+x>")
	if r := replied(t, reply); r.Action != elicit.Decline {
		t.Errorf("ctrl+x on an untouched reply answered %s, want decline", r.Action)
	}
	// With a reply typed, ctrl+x asks first; review's d declines too.
	reply = h.request(2, samplingReq(t))
	h.typeText("draft")
	h.keys("<ctrl+x>")
	if !strings.Contains(h.screen(), "decline, losing what you typed?") {
		t.Fatalf("ctrl+x did not ask:\n%s", h.screen())
	}
	h.keys("n", "<ctrl+s>", "e", "<ctrl+s>", "d")
	if r := replied(t, reply); r.Action != elicit.Decline {
		t.Errorf("review d answered %s, want decline", r.Action)
	}
}

func TestSamplingDraftPrefilled(t *testing.T) {
	h := realHarness(t, Options{})
	req := samplingReq(t)
	req.Sampling.Draft = "Drafted by the command."
	reply := h.request(1, req)
	if got := h.screen(); !strings.Contains(got, "Drafted by the command.") || !strings.Contains(got, "its draft is in the reply below") {
		t.Fatalf("draft not shown:\n%s", got)
	}
	noReply(t, reply) // a draft is never sent unasked
	h.keys("<ctrl+s>", "<enter>")
	if r := replied(t, reply); r.Action != elicit.Accept || r.Sample.Text != "Drafted by the command." || r.Sample.Model != elicit.DefaultModel {
		t.Errorf("answer = %+v %+v", r, r.Sample)
	}
}

func TestSamplingWaitsInTheInbox(t *testing.T) {
	h := realHarness(t, Options{})
	h.request(1, &elicit.Request{Server: "demo", Message: "Who?", Schema: json.RawMessage(nameSchema)})
	reply := h.request(2, samplingReq(t))
	h.keys("<ctrl+b>", "i")
	got := h.screen()
	if !strings.Contains(got, "demo sampling (push) ← tools/call summarize") || !strings.Contains(got, "Summarize the weather report below") {
		t.Fatalf("the inbox does not list the sampling request:\n%s", got)
	}
	noReply(t, reply)
}
