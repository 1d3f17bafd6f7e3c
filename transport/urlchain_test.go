package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

// freshURLServer answers every tools/call with -32042 naming a new elicitationId and URL,
// as a hostile (or broken) server might; it counts the calls.
func freshURLServer(t *testing.T) (*atomic.Int64, *rawServer, Options) {
	var calls atomic.Int64
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/call" {
			return
		}
		n := calls.Add(1)
		rs.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32042,"message":"link first","data":{"elicitations":[`+
			`{"mode":"url","message":"Link","url":"https://auth.example.com/link?n=%d","elicitationId":"e-%d"}]}}}`, m.ID, n, n))
	})
	return &calls, rs, Options{Answerer: newAnswerer(accept(nil)), URLMode: true, Log: wire.New(1000), transport: tr,
		RetryNow: func(*elicit.Request) bool { return true }}
}

func TestURLRequiredChainCappedAcrossIDs(t *testing.T) {
	calls, _, opts := freshURLServer(t)
	opts.urlBackoff = time.Millisecond
	s := connectRaw(t, opts.transport, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, rounds, err := s.CallTool(ctx, "t", nil)
	if !errors.Is(err, elicit.ErrUnanswered) || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("err = %v, want an unanswered elicitation that gave up", err)
	}
	if n := calls.Load(); n > maxURLRounds+1 {
		t.Errorf("server called %d times, want at most %d", n, maxURLRounds+1)
	}
	if len(rounds) > maxURLRounds+1 {
		t.Errorf("%d rounds", len(rounds))
	}
}

func TestURLRequiredChainBacksOff(t *testing.T) {
	calls, _, opts := freshURLServer(t)
	opts.urlBackoff = 20 * time.Millisecond
	s := connectRaw(t, opts.transport, opts)
	start := time.Now()
	_, _, err := s.CallTool(context.Background(), "t", nil)
	if err == nil {
		t.Fatal("call succeeded")
	}
	// Retries 2..N wait 20, 40, 80, ... ms (capped): well over 100 ms in all.
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Errorf("%d retries took %s: no backoff", calls.Load(), el)
	}
}

func TestURLRequiredChainHonoursTimeout(t *testing.T) {
	calls, _, opts := freshURLServer(t)
	opts.urlBackoff = 100 * time.Millisecond
	s, err := Connect(context.Background(), config.Server{Name: "raw", Timeout: 250 * time.Millisecond}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	start := time.Now()
	_, _, err = s.CallTool(context.Background(), "t", nil)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, elicit.ErrUnanswered) {
		t.Fatalf("err = %v, want a timeout of an unanswered elicitation", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %s with a 250ms timeout (%d calls)", el, calls.Load())
	}
}

// TestURLCompletionDuringRetryPauseKept: the server answers the retry with -32042 for
// the same elicitation once more, and sends its completion only then, while the call
// pauses before answering that -32042. The completion is not lost: the user is not
// asked again and the call retries at once, instead of waiting for a completion that
// already came.
func TestURLCompletionDuringRetryPauseKept(t *testing.T) {
	const required = `{"code":-32042,"message":"link first","data":{"elicitations":[` +
		`{"mode":"url","message":"Link","url":"https://auth.example.com/link","elicitationId":"e-1"}]}}`
	const complete = `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-1"}}`
	rs, tr := startTools(t, false, rpcError(required),
		func(rs *rawServer, id json.RawMessage) { // not done yet as the retry arrives; done a moment later
			rpcError(required)(rs, id)
			rs.send(complete)
		},
		result(`{"content":[{"type":"text","text":"linked"}]}`))
	var asked atomic.Int64
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		if asked.Add(1) == 1 {
			rs.send(complete) // the browser flow finishes, once
		}
		return elicit.Response{Action: elicit.Accept}, nil
	})
	log := wire.New(1000)
	s := connectRaw(t, tr, Options{Answerer: a, URLMode: true, Log: log, URLWait: 3 * time.Second,
		urlBackoff: 200 * time.Millisecond})
	start := time.Now()
	res, _, err := s.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatalf("err = %v, want the call to retry once the completion came", err)
	}
	if got := resultText(t, res); got != "linked" {
		t.Errorf("result %q", got)
	}
	if n := len(a.requests()); n != 1 {
		t.Errorf("the user was asked %d times, want once", n)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the call took %s: it waited for a completion that had already come", el)
	}
	if n := len(findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, `"e-1" completed again since the last round`) })); n != 1 {
		t.Errorf("%d notes say the second round found e-1 completed, want 1", n)
	}
}
