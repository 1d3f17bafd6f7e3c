package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// samplingParams is a sampling request with every part a screen shows.
const samplingParams = `{
	"messages": [
		{"role": "user", "content": {"type": "text", "text": "Summarize\u001b[31m this"}},
		{"role": "user", "content": [
			{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
			{"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}]},
		{"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "search", "input": {"q": "x"}}]},
		{"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "found"}]}]}
	],
	"systemPrompt": "Be brief.",
	"maxTokens": 100,
	"temperature": 0.7,
	"stopSequences": ["END"],
	"modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.8},
	"tools": [{"name": "search", "description": "Search the web", "inputSchema": {"type": "object"}}],
	"toolChoice": {"mode": "auto"}
}`

func TestParseSampling(t *testing.T) {
	s, err := ParseSampling(json.RawMessage(samplingParams))
	if err != nil {
		t.Fatal(err)
	}
	temp, intel := 0.7, 0.8
	want := &Sampling{
		Messages: []SamplingMessage{
			{Role: "user", Content: []SamplingContent{{Type: "text", Text: "Summarize\x1b[31m this"}}},
			{Role: "user", Content: []SamplingContent{{Type: "image", MIMEType: "image/png", Size: 5}, {Type: "audio", MIMEType: "audio/wav", Size: 2}}},
			{Role: "assistant", Content: []SamplingContent{{Type: "tool_use", ToolName: "search", ToolUseID: "u1", Input: json.RawMessage(`{"q": "x"}`)}}},
			{Role: "user", Content: []SamplingContent{{Type: "tool_result", ToolUseID: "u1", Text: "found"}}},
		},
		SystemPrompt: "Be brief.", MaxTokens: 100, Temperature: &temp, StopSequences: []string{"END"},
		Hints: []string{"claude"}, IntelligencePriority: &intel,
		Tools:      []SamplingTool{{Name: "search", Description: "Search the web", InputSchema: json.RawMessage(`{"type": "object"}`)}},
		ToolChoice: "auto",
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("ParseSampling (-want +got):\n%s", diff)
	}
	var got []string
	for _, m := range s.Messages {
		for _, c := range m.Content {
			got = append(got, c.Describe())
		}
	}
	wantLines := []string{"Summarize this", "[image: image/png, 5 B]", "[audio: audio/wav, 2 B]",
		`[tool use search (id u1): {"q": "x"}]`, "[tool result for u1] found"}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	if p := s.Prompt(); p != "Summarize\x1b[31m this" {
		t.Errorf("Prompt = %q, want the last user text block (tool results are not one)", p)
	}
	if p := s.Preferences(); p != "hints: claude; priorities: intelligence 0.8" {
		t.Errorf("Preferences = %q", p)
	}
	if l := s.Limits(); l != `max tokens 100, temperature 0.7, stop at "END"` {
		t.Errorf("Limits = %q", l)
	}
}

func TestParseSamplingErrors(t *testing.T) {
	for _, tt := range []struct{ name, params, want string }{
		{"no content", `{"messages":[{"role":"user"}]}`, "sampling message 1: missing content"},
		{"untyped block", `{"messages":[{"role":"user","content":{"text":"x"}}]}`, "sampling message 1: content block without a type"},
		{"not an object", `[1]`, "unreadable sampling request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSampling(json.RawMessage(tt.params))
			var pe *ProtocolError
			if !errors.As(err, &pe) || !strings.Contains(pe.Reason, tt.want) {
				t.Fatalf("error = %v, want a ProtocolError with %q", err, tt.want)
			}
		})
	}
}

func samplingRequest(t *testing.T, server, tool, text, draft string) *Request {
	t.Helper()
	s, err := ParseSampling(json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":` + quoteJSON(text) + `}}],"maxTokens":10}`))
	if err != nil {
		t.Fatal(err)
	}
	s.Draft = draft
	return &Request{Server: server, Tool: tool, Mode: ModeSampling, Message: s.Prompt(), Sampling: s}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestScriptSampling(t *testing.T) {
	s, err := ParseScript([]byte(`
- match: {}
  action: decline
  times: 1
- kind: sampling
  match: {server: demo, message: "*weather*"}
  action: accept
  reply: {text: "Sunny.", model: me}
- kind: sampling
  match: {tool: summarize}
  action: accept
  reply: {file: reply.txt}
- kind: sampling
  match: {message: "*draft*"}
  action: accept
  approve: auto
- kind: sampling
  action: decline
`), filepath.Join("testdata", "answers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasSampling() {
		t.Error("HasSampling = false")
	}
	eng := NewEngine(s, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		req  *Request
		want Response
	}{
		{"an elicitation entry never answers sampling; text and model", samplingRequest(t, "demo", "", "How is the weather?", ""),
			Response{Action: Accept, Sample: &SampleReply{Text: "Sunny.", Model: "me", StopReason: StopEndTurn}}},
		{"reply from a file, default model", samplingRequest(t, "demo", "summarize", "Summarize it", ""),
			Response{Action: Accept, Sample: &SampleReply{Text: "A reply\nread from a file.\n", Model: DefaultModel, StopReason: StopEndTurn}}},
		{"approve: auto sends the draft", samplingRequest(t, "x", "", "use the draft", "Drafted."),
			Response{Action: Accept, Sample: &SampleReply{Text: "Drafted.", Model: DefaultModel, StopReason: StopEndTurn}}},
		{"catch-all sampling decline", samplingRequest(t, "x", "", "anything", ""), Response{Action: Decline}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := eng.Answer(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	// The elicitation catch-all is still unused: sampling requests passed it by.
	got, err := eng.Answer(ctx, &Request{Server: "demo", Message: "Pick", Schema: json.RawMessage(`{"type":"object","properties":{}}`)})
	if err != nil || got.Action != Decline {
		t.Errorf("elicitation answer = %v, %v; want decline from entry 1", got, err)
	}
	_, err = eng.Answer(ctx, samplingRequest(t, "x", "", "a draft was wanted", ""))
	if !errors.Is(err, ErrUnanswered) || !strings.Contains(err.Error(), "no sampling command is configured") {
		t.Errorf("approve: auto without a draft: %v, want ErrUnanswered naming the missing command", err)
	}
}

func TestScriptWithoutSamplingEntries(t *testing.T) {
	s, err := ParseScript([]byte(`[{"match":{},"action":"accept"}]`), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.HasSampling() {
		t.Error("HasSampling = true for a file of elicitation entries")
	}
	_, err = s.Answer(context.Background(), samplingRequest(t, "demo", "", "hi", ""))
	if !errors.Is(err, ErrUnanswered) {
		t.Errorf("error = %v, want ErrUnanswered", err)
	}
}

func TestParseScriptSamplingErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"accept needs a reply", "- kind: sampling\n  action: accept\n",
			"entry 1: reply: a sampling accept needs reply (text or file), or approve: auto to send the sampling command's draft"},
		{"reply on an elicitation entry", "- action: accept\n  reply: {text: hi}\n",
			"entry 1: reply: reply and approve are for sampling entries (add kind: sampling)"},
		{"both text and file", "- kind: sampling\n  action: accept\n  reply: {text: a, file: b}\n", "entry 1: reply: needs exactly one of text and file"},
		{"content", "- kind: sampling\n  action: accept\n  reply: {text: a}\n  content: {a: 1}\n", "entry 1: content: a sampling entry replies with reply, not content"},
		{"decline with a reply", "- kind: sampling\n  action: decline\n  reply: {text: a}\n", "entry 1: reply: only an accept carries a reply, this entry says decline"},
		{"kind", "- kind: llm\n  action: decline\n", `entry 1: kind: must be elicitation or sampling, not the value "llm"`},
		{"approve", "- kind: sampling\n  action: accept\n  approve: yes\n", `entry 1: approve: must be auto or ask`},
		{"reply key", "- kind: sampling\n  action: accept\n  reply: {txt: a}\n", `entry 1: reply: unknown key "txt" (want text, file or model)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tt.file), "a.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRecorderSampling(t *testing.T) {
	reply := AnswererFunc(func(context.Context, *Request) (Response, error) {
		return Response{Action: Accept, Sample: &SampleReply{Text: "Hi there", Model: "me"}}, nil
	})
	rec := NewRecorder(reply)
	req := samplingRequest(t, "demo", "summarize", "Say hi", "")
	if _, err := NewEngine(rec, nil).Answer(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := rec.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	s, err := ParseScript([]byte(b.String()), "rec.yaml")
	if err != nil {
		t.Fatalf("recorded file does not parse: %v\n%s", err, b.String())
	}
	got, err := NewEngine(s, nil).Answer(context.Background(), samplingRequest(t, "demo", "summarize", "Say hi", ""))
	want := Response{Action: Accept, Sample: &SampleReply{Text: "Hi there", Model: "me", StopReason: StopEndTurn}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("replay = %+v, %v; want %+v\n%s", got, err, want, b.String())
	}
	if entry := UnansweredEntry(req); !strings.Contains(entry, "kind: sampling") || !strings.Contains(entry, "reply:") {
		t.Errorf("UnansweredEntry for sampling:\n%s", entry)
	}
}

func TestEngineSamplingRefusesEmptyReply(t *testing.T) {
	empty := AnswererFunc(func(context.Context, *Request) (Response, error) {
		return Response{Action: Accept, Sample: &SampleReply{Text: "  "}}, nil
	})
	if _, err := NewEngine(empty, nil).Answer(context.Background(), samplingRequest(t, "d", "", "x", "")); err == nil {
		t.Error("an empty accepted reply was sent")
	}
	_, err := NewEngine(empty, nil).Answer(context.Background(), &Request{Server: "d", Mode: ModeSampling})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Errorf("request without messages: %v, want a ProtocolError", err)
	}
}

// TestSamplingWithoutMessages: a sampling request with an empty messages list (go-sdk's
// sample example) is answered from the answers file when an entry matches, and refused
// with a reason the server sees only when nothing answered it.
func TestSamplingWithoutMessages(t *testing.T) {
	sm, err := ParseSampling(json.RawMessage(`{"messages":[],"maxTokens":10}`))
	if err != nil {
		t.Fatalf("ParseSampling: %v", err)
	}
	req := &Request{Server: "go", Tool: "sample", Mode: ModeSampling, Message: sm.Prompt(), Sampling: sm}
	script, err := ParseScript([]byte("- kind: sampling\n  match: {tool: sample}\n  action: accept\n  reply: {text: \"hi\"}\n"), "answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := NewEngine(script, nil).Answer(context.Background(), req)
	if err != nil || resp.Action != Accept || resp.Sample == nil || resp.Sample.Text != "hi" {
		t.Fatalf("answered from the file: %+v, %v", resp, err)
	}
	other := *req
	other.Tool = "other"
	_, err = NewEngine(script, nil).Answer(context.Background(), &other)
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "without messages") {
		t.Errorf("no entry matched: %v, want a ProtocolError saying why", err)
	}
}
