package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

func TestURLRequiredRetriesAfterCompletion(t *testing.T) {
	fx := &fixture{}
	events := make(chan Event, 8)
	a := newAnswerer(func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
		// The user consents; the browser flow finishes a little later.
		go fx.approve(r.ElicitationID)
		return elicit.Response{Action: elicit.Accept}, nil
	})
	s := connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true, OnEvent: func(e Event) {
		if e.Kind == "elicitation-complete" {
			events <- e
		}
	}})
	res, rounds, err := s.CallTool(context.Background(), "linked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "linked" {
		t.Errorf("result %q", got)
	}
	want := []Round{{Kind: "url_required", Keys: []string{"lnk-1"}, Actions: []elicit.Action{elicit.Accept}}}
	if diff := cmp.Diff(want, rounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	r := a.requests()[0]
	if r.Origin != elicit.OriginURLRequired || r.Index != 1 || r.Total != 1 || r.URL != "https://auth.example.com/link?s=1" ||
		r.Mode != elicit.ModeURL || r.Call != "tools/call linked" {
		t.Errorf("request = %+v", r)
	}
	if e := <-events; e.ID != "lnk-1" {
		t.Errorf("event = %+v", e)
	}
}

func TestURLRequiredDeclineStops(t *testing.T) {
	fx := &fixture{}
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s := connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true})
	_, _, err := s.CallTool(context.Background(), "linked", nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32042 || !strings.Contains(err.Error(), "declined") {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Errorf("err = %v: a declined link leaves the elicitation unanswered (exit 3)", err)
	}
	if fx.urlCalls != 1 {
		t.Errorf("server called %d times, want 1", fx.urlCalls)
	}
}

func TestURLRequiredLoopGuard(t *testing.T) {
	fx := &fixture{alwaysURL: true}
	a := newAnswerer(accept(nil))
	s := connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true,
		RetryNow: func(*elicit.Request) bool { return true }})
	_, rounds, err := s.CallTool(context.Background(), "linked", nil)
	if err == nil || !strings.Contains(err.Error(), "same URL 4 times") {
		t.Fatalf("err = %v", err)
	}
	if fx.urlCalls != maxURLRepeats+1 {
		t.Errorf("server called %d times, want %d", fx.urlCalls, maxURLRepeats+1)
	}
	if len(rounds) != maxURLRepeats+1 {
		t.Errorf("rounds = %d", len(rounds))
	}
}

func TestURLRequiredManualRetryNow(t *testing.T) {
	fx := &fixture{}
	var s *Session
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		fx.mu.Lock()
		fx.urlApproved = true // approved, but the server never sends the completion
		fx.mu.Unlock()
		return elicit.Response{Action: elicit.Accept}, nil
	})
	log := wire.New(100)
	s = connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true, Log: log})
	ch, cancel := log.Subscribe()
	defer cancel()
	go func() {
		for range ch {
			if len(findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, "waiting for 1 URL") })) > 0 {
				s.RetryNow()
				return
			}
		}
	}()
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	res, _, err := s.CallTool(ctx, "linked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "linked" {
		t.Errorf("result %q", got)
	}
}

func TestCompletionUnknownAndDuplicateIgnored(t *testing.T) {
	log := wire.New(100)
	events := make(chan Event, 8)
	s := connectMem(t, newTestServer(&fixture{}), Options{Protocol: legacy, URLMode: true, Log: log,
		OnEvent: func(e Event) { events <- e }})
	s.urls.register("known")
	s.completed("nope")
	s.completed("known")
	s.completed("known")
	notes := findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, "ignored completion") })
	if len(notes) != 2 {
		t.Errorf("ignored %d completions, want 2 (unknown and duplicate)", len(notes))
	}
	if len(events) != 1 {
		t.Errorf("%d events, want 1", len(events))
	}
}

// waitForNotes blocks until log holds n notes containing text, or fails when ctx ends.
func waitForNotes(ctx context.Context, log *wire.Log, text string, n int) error {
	ch, cancel := log.Subscribe()
	defer cancel()
	for {
		if len(findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, text) })) >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d notes %q: %w", n, text, ctx.Err())
		}
	}
}

// TestURLCompletionsOverTheWire has the server send real notifications while a -32042
// call waits: a completion for an unknown id must not release the wait (the retry would
// then meet -32042 again), the right one does, and its duplicate is ignored and logged.
func TestURLCompletionsOverTheWire(t *testing.T) {
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	fx := &fixture{}
	log := wire.New(1000)
	var events atomic.Int32
	sent := make(chan error, 1)
	a := newAnswerer(func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
		fx.mu.Lock()
		ss := fx.ss
		fx.mu.Unlock()
		go func() {
			// The server's side, after the user consented.
			if err := ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "not-" + r.ElicitationID}); err != nil {
				sent <- err
				return
			}
			if err := waitForNotes(ctx, log, "ignored completion", 1); err != nil {
				sent <- err
				return
			}
			if err := fx.approve(r.ElicitationID); err != nil {
				sent <- err
				return
			}
			sent <- ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: r.ElicitationID})
		}()
		return elicit.Response{Action: elicit.Accept}, nil
	})
	s := connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true, Log: log,
		OnEvent: func(e Event) {
			if e.Kind == "elicitation-complete" {
				events.Add(1)
			}
		}})
	res, rounds, err := s.CallTool(ctx, "linked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "linked" {
		t.Errorf("result %q", got)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	// The duplicate may be handled after the call returned; the note says when.
	if err := waitForNotes(ctx, log, "ignored completion", 2); err != nil {
		t.Fatal(err)
	}
	fx.mu.Lock()
	calls := fx.urlCalls
	fx.mu.Unlock()
	if len(rounds) != 1 || calls != 2 {
		t.Errorf("%d rounds and %d server calls, want 1 and 2: the unknown completion released the wait", len(rounds), calls)
	}
	if n := events.Load(); n != 1 {
		t.Errorf("%d completions shown, want 1 (unknown and duplicate ignored)", n)
	}
	notes := findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, "ignored completion") })
	if !strings.Contains(notes[0].Text, `"not-lnk-1"`) || !strings.Contains(notes[1].Text, `"lnk-1"`) {
		t.Errorf("ignored completions: %q, %q", notes[0].Text, notes[1].Text)
	}
}

// TestURLRequiredFormEntryIsProtocolError: -32042 carries URL-mode entries only; a form
// entry fails the call at once, without asking anybody.
func TestURLRequiredFormEntryIsProtocolError(t *testing.T) {
	var calls atomic.Int64
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/call" {
			return
		}
		calls.Add(1)
		rs.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32042,"message":"need input","data":{"elicitations":[` +
			`{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}]}}}`)
	})
	a := newAnswerer(accept(map[string]any{"n": "x"}))
	s := connectRaw(t, tr, Options{Answerer: a, URLMode: true})
	_, _, err := s.CallTool(context.Background(), "t", nil)
	if err == nil || !strings.Contains(err.Error(), "protocol error") || !strings.Contains(err.Error(), `mode "form"`) {
		t.Fatalf("err = %v, want a protocol error naming the form entry", err)
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("asked %d times", n)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("server called %d times, want 1", n)
	}
}
