package sampling

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

func lineReq(t *testing.T, draft string) *elicit.Request {
	t.Helper()
	s, err := elicit.ParseSampling(json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"Hello\u001b[2J there"}},
		{"role":"user","content":{"type":"audio","data":"AAAA","mimeType":"audio/wav"}}],"systemPrompt":"Be kind.","maxTokens":20}`))
	if err != nil {
		t.Fatal(err)
	}
	s.Draft = draft
	return &elicit.Request{Server: "demo", Tool: "summarize", Mode: elicit.ModeSampling, Sampling: s}
}

func TestAnswerLines(t *testing.T) {
	for _, tt := range []struct {
		name, input, draft string
		want               elicit.Response
		rest               string // input left unread
	}{
		{"reply, model, send", "Hi,\nfriend.\n.\nada\ny\nNEXT", "",
			elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Hi,\nfriend.", Model: "ada", StopReason: elicit.StopEndTurn}}, "NEXT"},
		{"default model", "Hi\n.\n\nyes\n", "",
			elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Hi", Model: elicit.DefaultModel, StopReason: elicit.StopEndTurn}}, ""},
		{"edit, then send", "One\n.\n\ne\nTwo\n.\n\ny\n", "",
			elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Two", Model: elicit.DefaultModel, StopReason: elicit.StopEndTurn}}, ""},
		{"decline at once", "/decline\n", "", elicit.Response{Action: elicit.Decline}, ""},
		{"decline at review", "x\n.\n\nd\n", "", elicit.Response{Action: elicit.Decline}, ""},
		{"end of input cancels", "half a reply", "", elicit.Response{Action: elicit.Cancel}, ""},
		{"draft approved", "\ny\n", "Drafted.",
			elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Drafted.", Model: elicit.DefaultModel, StopReason: elicit.StopEndTurn}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.NewReader(tt.input)
			var out strings.Builder
			got, err := AnswerLines(context.Background(), iotest.OneByteReader(in), &out, lineReq(t, tt.draft), 60)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\noutput:\n%s", diff, out.String())
			}
			rest := make([]byte, 100)
			n, _ := in.Read(rest)
			if string(rest[:n]) != tt.rest {
				t.Errorf("left unread %q, want %q", rest[:n], tt.rest)
			}
			for _, want := range []string{"demo asks for a model reply (sampling) for summarize", "Be kind.", "Hello there", "[audio: audio/wav, 3 B]", "max tokens 20"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			if strings.Contains(out.String(), "\x1b") {
				t.Errorf("output carries an escape sequence:\n%q", out.String())
			}
		})
	}
}
