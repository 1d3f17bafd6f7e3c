package proxy

import (
	"context"
	"errors"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// Why a wait shown in the inbox is withdrawn (the inbox says it).
var (
	errCompleted    = errors.New("the server reports the step at the link done; the call is retried")
	errNoCompletion = errors.New("the server did not report the step done in time; the host gets its error")
)

// askWait shows the wait of a -32042 call for req, the first URL elicitation whose
// completion it awaits, to Options.Waits (an inbox's waiting screen): a copy of req
// with Consented set, bounded by Options.Wait. The channel receives true when the user
// asks to retry now, false when they stop waiting; stop withdraws the question when
// the wait ended otherwise, with why (the inbox shows it). With no Waits or no req the
// channel never receives.
func (p *Proxy) askWait(ctx context.Context, req *elicit.Request) (decided <-chan bool, stop func(why error)) {
	ch := make(chan bool, 1)
	if p.opts.Waits == nil || req == nil {
		return ch, func(error) {}
	}
	wait := *req
	wait.Consented = time.Now()
	wait.Deadline = wait.Consented.Add(p.opts.Wait)
	wctx, cancelCause := context.WithCancelCause(ctx)
	wctx, cancelDeadline := context.WithDeadline(wctx, wait.Deadline)
	go func() {
		resp, err := p.opts.Waits.Answer(wctx, &wait)
		if err != nil || wctx.Err() != nil {
			return // withdrawn: the wait ended on its own
		}
		ch <- resp.Action == elicit.Accept
	}()
	return ch, func(why error) {
		cancelCause(why)
		cancelDeadline()
	}
}

// waitDecided acts on the user's choice on the waiting screen: true retries c now,
// false passes the -32042 error to the host. It reports whether c is retried.
func (p *Proxy) waitDecided(c *call, now bool) bool {
	if now {
		p.logf("%s %s: retrying now, as the user asked", c.method, safe.Block(c.name))
		return true
	}
	p.logf("%s %s: the user stopped waiting for the URL elicitation; passing the error to the host", c.method, safe.Block(c.name))
	return false
}
