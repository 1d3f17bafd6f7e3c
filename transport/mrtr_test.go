package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

// stateToken is a requestState whose bytes go-sdk would not reproduce: escaped slash,
// \u escapes, <>&, an escaped JSON document with odd spacing and key order.
const stateToken = `"a\/b \u0041 <>& \u00e9 \"q\" {\"z\":1,  \"a\":[ ]}"`

const twoInputs = `{"resultType":"input_required","requestState":` + stateToken + `,"inputRequests":{
 "b":{"method":"elicitation/create","params":{"message":"Second","requestedSchema":{"type":"object","properties":{"zz":{"type":"string"},"aa":{"type":"string"}}}}},
 "a":{"method":"elicitation/create","params":{"mode":"form","message":"First","requestedSchema":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"boolean"}}}}}}}`

func TestMRTRByteExactStateAndNewIDs(t *testing.T) {
	rs, tr := startTools(t, true, result(twoInputs), result(`{"content":[{"type":"text","text":"done"}]}`))
	a := newAnswerer(func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
		if r.Key == "a" {
			return elicit.Response{Action: elicit.Accept, Content: map[string]any{"y": 2}}, nil
		}
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, URLMode: true})
	if s.Protocol() != "2026-07-28" {
		t.Fatalf("Protocol() = %q", s.Protocol())
	}
	res, rounds, err := s.CallTool(context.Background(), "deploy", map[string]any{"svc": "api"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "done" {
		t.Errorf("result %q", got)
	}
	wantRounds := []Round{{Kind: "input_required", Keys: []string{"a", "b"}, Actions: []elicit.Action{elicit.Accept, elicit.Decline}, StateBytes: len(`a/b A <>& é "q" {"z":1,  "a":[ ]}`)}}
	if diff := cmp.Diff(wantRounds, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	// Answers in key order, numbered, with the raw schema as sent.
	reqs := a.requests()
	if len(reqs) != 2 || reqs[0].Key != "a" || reqs[1].Key != "b" || reqs[0].Index != 1 || reqs[1].Total != 2 {
		t.Fatalf("requests = %+v", reqs)
	}
	if got, want := string(reqs[1].Schema), `{"type":"object","properties":{"zz":{"type":"string"},"aa":{"type":"string"}}}`; got != want {
		t.Errorf("schema b = %s, want %s", got, want)
	}
	if reqs[0].Origin != elicit.OriginInputRequest || reqs[0].Call != "tools/call deploy" || reqs[0].Protocol != "2026-07-28" {
		t.Errorf("request a = %+v", reqs[0])
	}
	got := rs.received("tools/call")
	if len(got) != 2 {
		t.Fatalf("server got %d calls", len(got))
	}
	if string(got[0].ID) == string(got[1].ID) {
		t.Errorf("retry reused id %s", got[0].ID)
	}
	first, retry := topFields(got[0].Params), topFields(got[1].Params)
	if _, ok := first["requestState"]; ok {
		t.Errorf("first call carries requestState: %s", got[0].Params)
	}
	if _, ok := first["inputResponses"]; ok {
		t.Errorf("first call carries inputResponses")
	}
	if string(retry["requestState"]) != stateToken {
		t.Errorf("requestState echoed as %s\nwant %s", retry["requestState"], stateToken)
	}
	var ir map[string]map[string]any
	if err := json.Unmarshal(retry["inputResponses"], &ir); err != nil {
		t.Fatal(err)
	}
	wantIR := map[string]map[string]any{"a": {"action": "accept", "content": map[string]any{"y": float64(2)}}, "b": {"action": "decline"}}
	if diff := cmp.Diff(wantIR, ir); diff != "" {
		t.Errorf("inputResponses (-want +got):\n%s", diff)
	}
	if string(retry["arguments"]) != `{"svc":"api"}` || string(retry["name"]) != `"deploy"` {
		t.Errorf("retry lost the original params: %s", got[1].Params)
	}
	for i, c := range got {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(c.Params, &p)
		if string(p.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
			!strings.Contains(string(p.Meta["io.modelcontextprotocol/clientCapabilities"]), `"elicitation":{"form":{},"url":{}}`) ||
			!strings.Contains(string(p.Meta["io.modelcontextprotocol/clientInfo"]), `"elicitty"`) {
			t.Errorf("call %d _meta = %v", i, p.Meta)
		}
	}
}

func TestMRTRReasksInvalidAnswer(t *testing.T) {
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "tools/call" {
			return
		}
		if !strings.Contains(string(m.Params), "inputResponses") {
			rs.reply(m.ID, `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"n?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}}`)
			return
		}
		rs.reply(m.ID, `{"content":[{"type":"text","text":"ok"}]}`)
	})
	tries := 0
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		tries++
		if tries < 3 {
			return elicit.Response{}, &elicit.ViolationsError{Violations: []elicit.Violation{{Path: "/n", Keyword: "type", Message: "not an integer"}}}
		}
		return elicit.Response{Action: elicit.Accept, Content: map[string]any{"n": 3}}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a})
	if _, _, err := s.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(rs.received("tools/call")); n != 2 {
		t.Errorf("server got %d calls, want 2 (invalid answers are not sent)", n)
	}
}

func TestMRTRInvalidAnswerFailsLocally(t *testing.T) {
	rs, tr := startTools(t, true, result(`{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"n?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}}`))
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, &elicit.ViolationsError{Violations: []elicit.Violation{{Path: "/n", Keyword: "type", Message: "not an integer"}}}
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a})
	_, _, err := s.CallTool(context.Background(), "t", nil)
	var ve *elicit.ViolationsError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a ViolationsError", err)
	}
	if n := len(rs.received("tools/call")); n != 1 {
		t.Errorf("server got %d calls, want 1", n)
	}
	if n := len(a.requests()); n != maxReasks {
		t.Errorf("asked %d times, want %d", n, maxReasks)
	}
}

func TestMRTRUnansweredWrapsErr(t *testing.T) {
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "prompts/get" {
			return
		}
		rs.reply(m.ID, `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}}`)
	})
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, elicit.ErrUnanswered
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a})
	_, _, err := s.GetPrompt(context.Background(), "p", nil)
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Fatalf("err = %v", err)
	}
}

func TestMRTRRoundCap(t *testing.T) {
	_, tr := startTools(t, true, result(`{"resultType":"input_required","requestState":"s-42","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"again","requestedSchema":{"type":"object","properties":{}}}}}}`))
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: newAnswerer(accept(nil)), MaxRounds: 3})
	_, rounds, err := s.CallTool(context.Background(), "t", nil)
	if err == nil || !strings.Contains(err.Error(), "3 input_required rounds") || !strings.Contains(err.Error(), "s-42") {
		t.Fatalf("err = %v, want the round count and last state", err)
	}
	if len(rounds) != 3 {
		t.Errorf("rounds = %d, want 3", len(rounds))
	}
}

func TestMRTRUnknownResultType(t *testing.T) {
	log := wire.New(100)
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "resources/read" {
			return
		}
		rs.reply(m.ID, `{"resultType":"partial","contents":[]}`)
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Log: log})
	_, _, err := s.ReadResource(context.Background(), "file:///x")
	if err == nil || !strings.Contains(err.Error(), `unknown resultType "partial"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMRTRLoadSheddingBacksOff(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "tools/call" {
			return
		}
		mu.Lock()
		times = append(times, time.Now())
		n := len(times)
		mu.Unlock()
		if n < 3 {
			rs.reply(m.ID, fmt.Sprintf(`{"resultType":"input_required","requestState":"busy-%d"}`, n))
			return
		}
		rs.reply(m.ID, `{"content":[]}`)
	})
	s := connectRaw(t, tr, Options{Protocol: modern})
	_, rounds, err := s.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Round{{Kind: "load_shedding", StateBytes: 6}, {Kind: "load_shedding", StateBytes: 6}}
	if diff := cmp.Diff(want, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	if gap := times[1].Sub(times[0]); gap < sheddingFirst {
		t.Errorf("first retry after %s, want >= %s", gap, sheddingFirst)
	}
	if gap := times[2].Sub(times[1]); gap < 2*sheddingFirst {
		t.Errorf("second retry after %s, want >= %s", gap, 2*sheddingFirst)
	}
	calls := rs.received("tools/call")
	for i, c := range calls[1:] {
		f := topFields(c.Params)
		if want := fmt.Sprintf(`"busy-%d"`, i+1); string(f["requestState"]) != want {
			t.Errorf("retry %d state %s, want %s", i+1, f["requestState"], want)
		}
		if _, ok := f["inputResponses"]; ok {
			t.Errorf("state-only retry %d carries inputResponses", i+1)
		}
	}
}

func TestMRTRNoLeakAcrossConcurrentCalls(t *testing.T) {
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "tools/call" {
			return
		}
		var p struct {
			Name         string `json:"name"`
			RequestState string `json:"requestState"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.RequestState == "" {
			rs.reply(m.ID, `{"resultType":"input_required","requestState":"state-`+p.Name+`","inputRequests":{"in-`+p.Name+`":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}}`)
			return
		}
		rs.reply(m.ID, `{"content":[{"type":"text","text":"`+p.RequestState+`"}]}`)
	})
	// Both calls wait in the answerer until both have been asked.
	var wg sync.WaitGroup
	wg.Add(2)
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		wg.Done()
		wg.Wait()
		return elicit.Response{Action: elicit.Accept}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a})
	var cw sync.WaitGroup
	for _, name := range []string{"one", "two"} {
		cw.Add(1)
		go func() {
			defer cw.Done()
			res, _, err := s.CallTool(context.Background(), name, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if got := resultText(t, res); got != "state-"+name {
				t.Errorf("%s got %q", name, got)
			}
		}()
	}
	cw.Wait()
	for _, c := range rs.received("tools/call") {
		var p struct {
			Name           string                     `json:"name"`
			RequestState   string                     `json:"requestState"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		}
		_ = json.Unmarshal(c.Params, &p)
		if p.RequestState == "" {
			if p.InputResponses != nil {
				t.Errorf("first %s call carries inputResponses", p.Name)
			}
			continue
		}
		if p.RequestState != "state-"+p.Name {
			t.Errorf("%s retry carries state %q", p.Name, p.RequestState)
		}
		if _, ok := p.InputResponses["in-"+p.Name]; !ok || len(p.InputResponses) != 1 {
			t.Errorf("%s retry carries inputResponses %v", p.Name, p.InputResponses)
		}
	}
}

func TestServerCancelDropsResponse(t *testing.T) {
	log := wire.New(200)
	asked := make(chan struct{})
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/call" {
			return
		}
		rs.send(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Quick!","requestedSchema":{"type":"object","properties":{}}}}`)
		<-asked
		rs.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e1","reason":"timeout"}}`)
		rs.reply(m.ID, `{"content":[{"type":"text","text":"gave up"}]}`)
	})
	events := make(chan Event, 8)
	a := newAnswerer(func(ctx context.Context, r *elicit.Request) (elicit.Response, error) {
		close(asked)
		<-ctx.Done()
		return elicit.Response{}, ctx.Err()
	})
	ch, cancel := log.Subscribe()
	defer cancel()
	s := connectRaw(t, tr, Options{Answerer: a, Log: log, Protocol: legacy, OnEvent: func(e Event) { events <- e }})
	if _, _, err := s.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for len(findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.Note && strings.Contains(e.Text, "server cancelled") })) == 0 {
		select {
		case <-ch:
		case <-timeout:
			t.Fatal("no note about a dropped response")
		}
	}
	for _, m := range rs.all() {
		if string(m.ID) == `"e1"` {
			t.Errorf("server got a response to its cancelled request: %s", m.raw)
		}
	}
	// The request had no mode: the raw params must still be found, byte for byte.
	if got, want := string(a.requests()[0].Params), `{"message":"Quick!","requestedSchema":{"type":"object","properties":{}}}`; got != want {
		t.Errorf("Params = %s, want %s", got, want)
	}
	if e := <-events; e.Kind != "cancelled" {
		t.Errorf("event = %+v", e)
	}
}

// TestDiscoverTimeoutWithPinIsAnError: pinned to 2026-07-28, a server that never
// answers server/discover is reached through initialize after the discovery deadline,
// and since it then speaks another era, the pin is refused with an error naming what
// the server offers, soon, rather than a silent fallback.
func TestDiscoverTimeoutWithPinIsAnError(t *testing.T) {
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if m.Method == "server/discover" {
			return // never answered
		}
		handshake(rs, m, false)
	})
	start := time.Now()
	_, err := Connect(context.Background(), config.Server{Name: "raw"},
		Options{Protocol: modern, Log: wire.New(200), DiscoverTimeout: 100 * time.Millisecond, transport: tr})
	var mismatch *ProtocolMismatchError
	if !errors.As(err, &mismatch) || mismatch.Offered != legacy {
		t.Fatalf("Connect error = %v, want a protocol mismatch naming %s", err, legacy)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Connect took %s", d)
	}
	if n := len(rs.received("server/discover")); n != 1 {
		t.Errorf("server/discover sent %d times, want 1", n)
	}
}

func TestMRTRURLRepeatMarked(t *testing.T) {
	const link = `{"resultType":"input_required","requestState":"s","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"Link","url":"https://auth.example.com/link?s=1"}}}}`
	const other = `{"resultType":"input_required","requestState":"s","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"Other","url":"https://auth.example.com/other"}}}}`
	// Rounds: link, link (repeat 1), load shedding, link (repeat 2), other, link (new again), done.
	_, tr := startTools(t, true, result(link), result(link), result(`{"resultType":"input_required","requestState":"busy"}`),
		result(link), result(other), result(link), result(`{"content":[{"type":"text","text":"done"}]}`))
	a := newAnswerer(accept(nil))
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, URLMode: true})
	if _, _, err := s.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range a.requests() {
		got = append(got, r.Repeat)
	}
	if diff := cmp.Diff([]int{0, 1, 2, 0, 0}, got); diff != "" {
		t.Errorf("Repeat per request (-want +got):\n%s", diff)
	}
}

func TestMRTRURLRepeatNeedsAccept(t *testing.T) {
	const link = `{"resultType":"input_required","requestState":"s","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"Link","url":"https://auth.example.com/link"}}}}`
	_, tr := startTools(t, true, result(link), result(link), result(`{"content":[]}`))
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, URLMode: true})
	if _, _, err := s.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range a.requests() {
		if r.Repeat != 0 {
			t.Errorf("request %d: Repeat = %d after a decline, want 0", i+1, r.Repeat)
		}
	}
}

// TestMRTRRequestStateCapped: a server that makes its requestState grow every round
// (or keeps it large) does not make the call hold ever more memory: the call ends with
// a reason once one state passes maxRequestState, or the states of its rounds together
// pass maxRequestStates, and nothing is sent back past the bound.
func TestMRTRRequestStateCapped(t *testing.T) {
	tests := []struct {
		name  string
		size  func(round int) int
		want  string
		calls int
	}{
		{"growing", func(n int) int { return n * 300 << 10 }, "over the limit of 1048576", 4},
		{"large every round", func(int) int { return 900 << 10 }, "add up to", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
				if handshake(rs, m, true) || m.Method != "tools/call" {
					return
				}
				state := strings.Repeat("s", tt.size(len(rs.received("tools/call"))))
				rs.reply(m.ID, `{"resultType":"input_required","requestState":"`+state+`","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"again","requestedSchema":{"type":"object","properties":{}}}}}}`)
			})
			s := connectRaw(t, tr, Options{Protocol: modern, Answerer: newAnswerer(accept(nil)), MaxRounds: 16})
			_, _, err := s.CallTool(context.Background(), "t", nil)
			if err == nil || !strings.Contains(err.Error(), "refused the server's requestState") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a refusal that says %q", err, tt.want)
			}
			if n := len(rs.received("tools/call")); n != tt.calls {
				t.Errorf("%d tools/call sent, want %d", n, tt.calls)
			}
		})
	}
}
