//lint:file-ignore SA1019 sampling is deprecated by 2026-07-28 (SEP-2577) but servers still ask for it; elicitty answers it.

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
)

// newSamplingServer returns a go-sdk server whose "summarize" tool asks the client for
// a sampling reply and returns "model stopReason: text", or "error: ..." (with the
// client's capabilities: whether sampling was declared).
func newSamplingServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sampler", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "summarize", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.Session.InitializeParams().Capabilities; caps == nil || caps.Sampling == nil {
			return textResult("error: sampling not declared"), nil
		}
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize the news"}}},
			SystemPrompt: "Be brief.",
			MaxTokens:    50,
		})
		if err != nil {
			return textResult("error: " + err.Error()), nil
		}
		text := ""
		if tc, ok := res.Content.(*mcp.TextContent); ok {
			text = tc.Text
		}
		return textResult(res.Model + " " + res.StopReason + ": " + text), nil
	})
	return s
}

func TestSamplingPush(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp elicit.Response
		want string
	}{
		{"accept with the default model", elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "All quiet."}}, "human endTurn: All quiet."},
		{"accept with a model name", elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Hi", Model: "ada"}}, "ada endTurn: Hi"},
		{"decline", elicit.Response{Action: elicit.Decline}, `error: calling "sampling/createMessage": User rejected sampling request`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) { return tt.resp, nil })
			s := connectMem(t, newSamplingServer(), Options{Answerer: elicit.NewEngine(a, nil), Sampling: true})
			res, _, err := s.CallTool(context.Background(), "summarize", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(t, res); !strings.HasPrefix(got, tt.want) {
				t.Errorf("result = %q, want %q", got, tt.want)
			}
			reqs := a.requests()
			if len(reqs) != 1 {
				t.Fatalf("asked %d times", len(reqs))
			}
			r := reqs[0]
			if r.Mode != elicit.ModeSampling || r.Origin != elicit.OriginPush || r.Tool != "summarize" || r.ServerInfo != "sampler" {
				t.Errorf("request = %+v", r)
			}
			if r.Sampling == nil || r.Sampling.SystemPrompt != "Be brief." || r.Sampling.MaxTokens != 50 || r.Message != "Summarize the news" {
				t.Errorf("sampling = %+v", r.Sampling)
			}
		})
	}
}

func TestSamplingNotDeclaredWithoutAnswerer(t *testing.T) {
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "x"}}, nil
	})
	s := connectMem(t, newSamplingServer(), Options{Answerer: elicit.NewEngine(a, nil)})
	res, _, err := s.CallTool(context.Background(), "summarize", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "error: sampling not declared" {
		t.Errorf("result = %q", got)
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("asked %d times", n)
	}
}

func TestSamplingUnansweredFailsTheCall(t *testing.T) {
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, elicit.ErrUnanswered
	})
	s := connectMem(t, newSamplingServer(), Options{Answerer: elicit.NewEngine(a, nil), Sampling: true})
	_, _, err := s.CallTool(context.Background(), "summarize", nil)
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Errorf("error = %v, want ErrUnanswered (exit 3)", err)
	}
}

const samplingInput = `{"resultType":"input_required","requestState":"s1","inputRequests":{
 "llm":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Name a colour"}}],"maxTokens":5}}}}`

func TestSamplingInputRequest(t *testing.T) {
	rs, tr := startTools(t, true, result(samplingInput), result(`{"content":[{"type":"text","text":"done"}]}`))
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Blue"}}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: elicit.NewEngine(a, nil), Sampling: true})
	res, rounds, err := s.CallTool(context.Background(), "paint", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "done" {
		t.Errorf("result %q", got)
	}
	if diff := cmp.Diff([]Round{{Kind: RoundInputRequired, Keys: []string{"llm"}, Actions: []elicit.Action{elicit.Accept}, StateBytes: 2}}, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	retry := rs.received("tools/call")[1]
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(retry.Params, &p); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(p.InputResponses["llm"], &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"role": "assistant", "model": "human", "stopReason": "endTurn", "content": map[string]any{"type": "text", "text": "Blue"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inputResponses.llm (-want +got):\n%s", diff)
	}
	if caps := string(p.Meta["io.modelcontextprotocol/clientCapabilities"]); !strings.Contains(caps, `"sampling":{}`) {
		t.Errorf("client capabilities %s do not declare sampling", caps)
	}
	if r := a.requests()[0]; r.Origin != elicit.OriginInputRequest || r.Key != "llm" || r.Message != "Name a colour" {
		t.Errorf("request = %+v", r)
	}
}

func TestSamplingInputDeclinedEndsTheCall(t *testing.T) {
	rs, tr := startTools(t, true, result(samplingInput))
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: elicit.NewEngine(a, nil), Sampling: true})
	_, _, err := s.CallTool(context.Background(), "paint", nil)
	if !errors.Is(err, elicit.ErrUnanswered) || !strings.Contains(err.Error(), "sampling request declined by the user") {
		t.Errorf("error = %v, want the decline named and ErrUnanswered", err)
	}
	if n := len(rs.received("tools/call")); n != 1 {
		t.Errorf("server got %d calls, want no retry", n)
	}
}

func TestSamplingInputUndeclaredIsAnError(t *testing.T) {
	_, tr := startTools(t, true, result(samplingInput))
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: elicit.NewEngine(newAnswerer(nil), nil)})
	_, _, err := s.CallTool(context.Background(), "paint", nil)
	if err == nil || !strings.Contains(err.Error(), "which elicitty did not declare") {
		t.Errorf("error = %v, want an undeclared input request", err)
	}
}

// TestSamplingTask: with sampling declared, a task-augmented sampling/createMessage
// (params.task; tasks.requests.sampling.createMessage is declared) is answered at once
// with a CreateTaskResult, and tasks/result later carries the person's reply with the
// related-task _meta.
func TestSamplingTask(t *testing.T) {
	rs, responses, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {})
	release := make(chan struct{})
	a := newAnswerer(func(ctx context.Context, _ *elicit.Request) (elicit.Response, error) {
		select {
		case <-release:
			return elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "Hello"}}, nil
		case <-ctx.Done():
			return elicit.Response{}, ctx.Err()
		}
	})
	connectRaw(t, tr, Options{Answerer: elicit.NewEngine(a, nil), Protocol: "2025-11-25", Sampling: true})
	init := rs.received("initialize")
	if len(init) != 1 || !strings.Contains(string(init[0].Params), `"sampling":{"createMessage":{}}`) {
		t.Fatalf("initialize does not declare sampling tasks: %v", init)
	}
	created := ask(t, rs, responses, "s1", "sampling/createMessage", `{"task":{"ttl":60000},`+
		`"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":5}`)
	var cr struct {
		Result struct {
			Task Task `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(created.raw), &cr); err != nil || cr.Result.Task.TaskID == "" || cr.Result.Task.Status != TaskWorking {
		t.Fatalf("sampling/createMessage with a task got %s, want a CreateTaskResult (working)", created.raw)
	}
	id := cr.Result.Task.TaskID
	close(release)
	got := ask(t, rs, responses, "r1", "tasks/result", `{"taskId":"`+id+`"}`)
	for _, want := range []string{`"model":"human"`, `"text":"Hello"`, `"role":"assistant"`, `"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}`} {
		if !strings.Contains(got.raw, want) {
			t.Errorf("tasks/result lacks %s: %s", want, got.raw)
		}
	}
}

// TestSamplingRequestCapped: a sampling request with more messages than a person can
// read, or more bytes than the bound, is refused unread (before go-sdk decodes its
// messages) with a reason the server sees, and never reaches the answerer.
func TestSamplingRequestCapped(t *testing.T) {
	tests := []struct {
		name     string
		messages int
		size     int
		want     string
	}{
		{"messages", maxSamplingMessages + 1, 1, "messages refused"},
		{"bytes", 1, maxSamplingBytes, "bytes refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "1.0.0"}, nil)
			srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				msgs := make([]*mcp.SamplingMessage, tt.messages)
				for i := range msgs {
					msgs[i] = &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: strings.Repeat("m", tt.size)}}
				}
				_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{Messages: msgs, MaxTokens: 5})
				if err == nil {
					return textResult("answered"), nil
				}
				return textResult("error: " + err.Error()), nil
			})
			a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
				return elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{Text: "x"}}, nil
			})
			s := connectMem(t, srv, Options{Answerer: a, Sampling: true})
			res, _, err := s.CallTool(context.Background(), "flood", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(t, res); !strings.Contains(got, "elicitty refused the request unread: ") || !strings.Contains(got, tt.want) || !strings.Contains(got, "limit") {
				t.Errorf("the server saw %q, want a refusal that says %q", got, tt.want)
			}
			if n := len(a.requests()); n != 0 {
				t.Errorf("the answerer was asked %d times", n)
			}
		})
	}
}
