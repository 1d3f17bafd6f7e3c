package transport

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

// urlRequired is a -32042 error asking for one link, with the elicitationId of 2025-11-25.
const urlRequired = `{"code":-32042,"message":"URL required","data":{"elicitations":[{"mode":"url","message":"Link","url":"https://auth.example.com/x","elicitationId":"e1"}]}}`

// The URL-mode scenarios of both eras, each against a scripted server that follows the
// specification text it quotes (docs/protocol.md, "URL mode").

// TestURLEra20260728RetryWithStateNoWait follows 2026-07-28 client/elicitation.mdx,
// "URL Mode Elicitation Requests": "The response with action: "accept" indicates that
// the user has consented to the interaction. It does not mean that the interaction is
// complete. [...] When the client retries the original request, the server determines
// from the echoed requestState [...] whether the out-of-band interaction has completed,
// and either returns the final result or responds with another InputRequiredResult.
// Clients SHOULD provide manual controls that let the user retry or cancel the original
// request." The server here is not done at the first retry, so it asks for the same link
// again (the answerer's "retry now"), and finishes at the second. It also sends an
// elicitationId, which 2026-07-28 removed: nothing waits on it.
func TestURLEra20260728RetryWithStateNoWait(t *testing.T) {
	const link = `{"resultType":"input_required","requestState":"link:%d","inputRequests":{"pay":{"method":"elicitation/create","params":{"mode":"url","message":"Pay","url":"https://pay.example.com/checkout?o=7","elicitationId":"stale-id"}}}}`
	rs, tr := startTools(t, true, result(strings.Replace(link, "%d", "1", 1)), result(strings.Replace(link, "%d", "2", 1)),
		result(`{"resultType":"complete","content":[{"type":"text","text":"paid"}]}`))
	var events []Event
	var emu sync.Mutex
	a := newAnswerer(accept(nil))
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, URLMode: true, OnEvent: func(e Event) {
		emu.Lock()
		events = append(events, e)
		emu.Unlock()
	}})
	res, rounds, err := s.CallTool(context.Background(), "buy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "paid" {
		t.Errorf("result %q, want paid", got)
	}
	wantRounds := []Round{
		{Kind: RoundInputRequired, Keys: []string{"pay"}, Actions: []elicit.Action{elicit.Accept}, StateBytes: len("link:1")},
		{Kind: RoundInputRequired, Keys: []string{"pay"}, Actions: []elicit.Action{elicit.Accept}, StateBytes: len("link:2")},
	}
	if diff := cmp.Diff(wantRounds, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	reqs := a.requests()
	if len(reqs) != 2 {
		t.Fatalf("asked %d times, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Origin != elicit.OriginInputRequest || r.Mode != elicit.ModeURL || r.ElicitationID != "" || r.Repeat != i {
			t.Errorf("request %d: origin %v mode %q elicitationId %q repeat %d; want an input request without an elicitationId, repeat %d",
				i+1, r.Origin, r.Mode, r.ElicitationID, r.Repeat, i)
		}
	}
	calls := rs.received("tools/call")
	if len(calls) != 3 {
		t.Fatalf("server got %d calls, want 3", len(calls))
	}
	for i, c := range calls[1:] {
		f := topFields(c.Params)
		if want := `"link:` + string(rune('1'+i)) + `"`; string(f["requestState"]) != want {
			t.Errorf("retry %d: requestState %s, want %s", i+1, f["requestState"], want)
		}
		var ir map[string]map[string]any
		if err := json.Unmarshal(f["inputResponses"], &ir); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]map[string]any{"pay": {"action": "accept"}}, ir); diff != "" {
			t.Errorf("retry %d inputResponses (-want +got):\n%s", i+1, diff)
		}
	}
	emu.Lock()
	defer emu.Unlock()
	for _, e := range events {
		if e.Kind == EventURLWait || e.Kind == EventElicitationComplete {
			t.Errorf("2026-07-28 call waited for a completion: event %+v", e)
		}
	}
}

// TestURLEra20260728RejectsMinus32042: 2026-07-28 changelog, minor change 11, removes
// notifications/elicitation/complete and elicitationId; the -32042 error that carries
// them is 2025-11-25 only, so a 2026-07-28 server sending it gets a clear error, and
// nothing is asked or retried.
func TestURLEra20260728RejectsMinus32042(t *testing.T) {
	rs, tr := startTools(t, true, rpcError(urlRequired))
	a := newAnswerer(accept(nil))
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, URLMode: true})
	// Bounded: before the era check, this call waited for a completion that never came.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := s.CallTool(ctx, "t", nil)
	if err == nil {
		t.Fatal("call succeeded")
	}
	for _, want := range []string{"-32042", "2025-11-25 only", "input_required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("asked %d times, want 0", n)
	}
	if n := len(rs.received("tools/call")); n != 1 {
		t.Errorf("tools/call sent %d times, want 1 (no retry)", n)
	}
}

// TestURLEra20251125WaitsForCompletion follows 2025-11-25 client/elicitation.mdx, the
// sections on the URL elicitation required error (-32042) and on completion
// notifications for URL mode: the client asks consent for each listed URL, the server
// sends notifications/elicitation/complete with the elicitationId when the browser step
// is done, and the client then retries the original request; the retry is a new request
// (new id) that carries no requestState or inputResponses.
func TestURLEra20251125WaitsForCompletion(t *testing.T) {
	rs, tr := startTools(t, false, rpcError(urlRequired), result(`{"content":[{"type":"text","text":"linked"}]}`))
	waiting := make(chan struct{})
	var once sync.Once
	a := newAnswerer(accept(nil))
	s := connectRaw(t, tr, Options{Protocol: legacy, Answerer: a, URLMode: true, OnEvent: func(e Event) {
		if e.Kind == EventURLWait {
			once.Do(func() { close(waiting) })
		}
	}})
	go func() {
		<-waiting // the call waits for the completion notice: send it
		rs.send(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}`)
	}()
	res, rounds, err := s.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "linked" {
		t.Errorf("result %q", got)
	}
	if diff := cmp.Diff([]Round{{Kind: RoundURLRequired, Keys: []string{"e1"}, Actions: []elicit.Action{elicit.Accept}}}, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	if r := a.requests()[0]; r.ElicitationID != "e1" || r.Origin != elicit.OriginURLRequired {
		t.Errorf("request: elicitationId %q origin %v", r.ElicitationID, r.Origin)
	}
	calls := rs.received("tools/call")
	if len(calls) != 2 || string(calls[0].ID) == string(calls[1].ID) {
		t.Fatalf("calls %+v: want two under different ids", calls)
	}
	if f := topFields(calls[1].Params); f["requestState"] != nil || f["inputResponses"] != nil {
		t.Errorf("2025-11-25 retry carries MRTR fields: %s", calls[1].Params)
	}
}
