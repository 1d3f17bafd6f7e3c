package proxy

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
)

// waiter is Options.Waits in tests: it hands each wait to the test and answers what
// the test says, or returns when the proxy withdraws it.
type waiter struct {
	asked chan *elicit.Request
	say   chan elicit.Action
	ended chan error
}

func newWaiter() *waiter {
	return &waiter{asked: make(chan *elicit.Request, 1), say: make(chan elicit.Action, 1), ended: make(chan error, 1)}
}

func (w *waiter) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	w.asked <- req
	select {
	case a := <-w.say:
		return elicit.Response{Action: a}, nil
	case <-ctx.Done():
		w.ended <- context.Cause(ctx)
		return elicit.Response{}, ctx.Err()
	}
}

func (w *waiter) wait(t *testing.T) *elicit.Request {
	t.Helper()
	select {
	case r := <-w.asked:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the wait was not shown")
		return nil
	}
}

// urlWaitStart runs a -32042 call whose link the user accepts, up to the wait.
func urlWaitStart(t *testing.T) (*harness, *waiter, *elicit.Request) {
	t.Helper()
	w := newWaiter()
	h := start(t, Options{Answerer: &script{url: elicit.Response{Action: elicit.Accept}}, Waits: w})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	before := time.Now()
	h.server(urlNeeded)
	req := w.wait(t)
	if req.Consented.Before(before) || req.Mode != elicit.ModeURL || req.Origin != elicit.OriginURLRequired ||
		req.URL != "https://example.com/link" || req.ElicitationID != "el-7" || req.Tool != "needs_link" || req.Deadline.IsZero() {
		t.Errorf("the wait shown is %+v", req)
	}
	return h, w, req
}

// TestURLWaitRetryNow: after consent to a -32042 link, the wait is shown (an inbox's
// waiting screen); "retry now" there sends the host's request again at once, without
// the completion the server may never send, and the host gets the result.
func TestURLWaitRetryNow(t *testing.T) {
	h, w, _ := urlWaitStart(t)
	h.quiet(h.srvR, "server before retry now")
	w.say <- elicit.Accept
	if got := h.serverGot(); got != call7 {
		t.Fatalf("retry %s, want the host's request as sent", got)
	}
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"linked"}]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s, want only the result", got)
	}
}

// TestURLWaitStop: cancel on the waiting screen stops the wait: the host gets the
// server's -32042 unchanged and nothing is retried.
func TestURLWaitStop(t *testing.T) {
	h, w, _ := urlWaitStart(t)
	w.say <- elicit.Cancel
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s, want the error unchanged", got)
	}
	h.quiet(h.srvR, "server")
}

// TestURLWaitWithdrawnOnCompletion: the server's completion retries the call and
// withdraws the wait from the inbox.
func TestURLWaitWithdrawnOnCompletion(t *testing.T) {
	h, w, _ := urlWaitStart(t)
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("retry %s", got)
	}
	select {
	case cause := <-w.ended:
		if !errors.Is(cause, errCompleted) {
			t.Errorf("the wait was withdrawn with %v, want that the server reported the step done", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait was not withdrawn after the completion")
	}
}

// TestURLWaitWithdrawnOnTimeout: with no completion within Wait, the wait is withdrawn
// saying so and the host gets the server's error.
func TestURLWaitWithdrawnOnTimeout(t *testing.T) {
	w := newWaiter()
	h := start(t, Options{Answerer: &script{url: elicit.Response{Action: elicit.Accept}}, Waits: w, Wait: 200 * time.Millisecond})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	w.wait(t)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s, want the error unchanged", got)
	}
	select {
	case cause := <-w.ended:
		if !errors.Is(cause, errNoCompletion) && !errors.Is(cause, context.DeadlineExceeded) {
			t.Errorf("the wait was withdrawn with %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait was not withdrawn")
	}
}
