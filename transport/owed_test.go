package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
)

// TestCloseRightAfterCancelTellsServer gives up on a call and closes the session at
// once, as a user quitting with a call in flight does: the server still gets the call's
// notifications/cancelled. go-sdk writes it from a goroutine after retiring the call,
// and refuses it once Close has begun, so Close waits for it (owed.go). Each round is
// a new session; one round lost the notification most of the time before.
func TestCloseRightAfterCancelTellsServer(t *testing.T) {
	for round := range 20 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			called := make(chan json.RawMessage, 1)
			rs, tr := startTools(t, false, func(_ *rawServer, id json.RawMessage) { called <- id }) // never answers
			s := connectRaw(t, tr, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, _, err := s.CallTool(ctx, "slow", nil)
				done <- err
			}()
			id := <-called
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool after cancel: %v, want context.Canceled", err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case <-rs.eof:
			case <-time.After(30 * time.Second):
				t.Fatal("the session's end never reached the server")
			}
			for _, m := range rs.received(notificationCancelled) {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &p) == nil && string(p.RequestID) == string(id) {
					return
				}
			}
			t.Errorf("the server never got notifications/cancelled for call %s; it got %d message(s)", id, len(rs.all()))
		})
	}
}

// TestOwedSettles follows the books awaitOwed waits on: a request whose caller gave up
// is owed until its notifications/cancelled is written or its response comes, and a
// request whose write failed, or whose caller still waits, is owed nothing.
func TestOwedSettles(t *testing.T) {
	tp := newTap("s", nil, 0)
	live := context.Background()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	send := func(ctx context.Context, id int64) *jsonrpc.Request {
		jid, err := jsonrpc.MakeID(float64(id))
		if err != nil {
			t.Fatal(err)
		}
		r := &jsonrpc.Request{ID: jid, Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)}
		tp.outState(ctx, r)
		return r
	}
	owes := func() bool {
		tp.mu.Lock()
		defer tp.mu.Unlock()
		return tp.owes()
	}
	send(live, 1)
	if owes() {
		t.Fatal("a request whose caller still waits is owed a cancellation")
	}
	r2 := send(gone, 2)
	if !owes() {
		t.Fatal("a request whose caller gave up is not owed a cancellation")
	}
	tp.written(r2, errors.New("broken pipe"))
	if owes() {
		t.Fatal("a request that was never written is still owed a cancellation")
	}
	send(gone, 3)
	tp.written(&jsonrpc.Request{Method: notificationCancelled, Params: json.RawMessage(`{"requestId":3,"reason":"x"}`)}, nil)
	if owes() {
		t.Fatal("a request whose notifications/cancelled was written is still owed")
	}
	send(gone, 4)
	waited := make(chan struct{})
	go func() {
		tp.awaitOwed(time.Minute)
		close(waited)
	}()
	raw := []byte(`{"jsonrpc":"2.0","id":4,"result":{}}`)
	env, err := jsonrpcio.ParseEnvelope(raw)
	if err != nil {
		t.Fatal(err)
	}
	tp.inRaw(raw, &env)
	if owes() {
		t.Fatal("a request whose response came is still owed")
	}
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("awaitOwed still waits after the response came")
	}
}
