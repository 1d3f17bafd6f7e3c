package transport

import (
	"context"
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
