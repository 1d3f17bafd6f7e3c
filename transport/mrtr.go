package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// Limits of the drivers.
const (
	// maxReasks is how often one MRTR entry is asked again after invalid content.
	maxReasks = 3
	// maxURLRepeats is how often a -32042 may name the same URL before we give up.
	maxURLRepeats = 3
	// maxURLRounds caps the -32042 errors one call may answer (retries, across
	// elicitationIds and URLs); maxURLConsents caps the URL entries asked in all.
	maxURLRounds   = 8
	maxURLConsents = 16
	// Backoff between -32042 retries: none before the first, then doubling.
	urlBackoffFirst = 100 * time.Millisecond
	urlBackoffMax   = 2 * time.Second
	// maxRequestState bounds one requestState a server makes us carry back, and
	// maxRequestStates the requestStates of one call's rounds added up: a server growing
	// its state every round cannot make a call hold ever more memory.
	maxRequestState  = 1 << 20
	maxRequestStates = 4 << 20
	// Load-shedding backoff (docs/protocol.md, "MRTR").
	sheddingFirst = 50 * time.Millisecond
	sheddingMax   = 250 * time.Millisecond
)

// mrtrResult is what the three MRTR-capable results share.
type mrtrResult interface{ NeedsInput() bool }

// drive runs one call to completion: it sends it, answers input_required rounds
// (2026-07-28) and -32042 URL requirements (2025-11-25), and retries under new ids.
func drive[R mrtrResult](ctx context.Context, s *Session, method, name string,
	send func(ctx context.Context, token string, rs mcp.InputResponseMap, state string) (R, error),
	inputs func(R) (mcp.InputRequestMap, string),
) (R, []Round, error) {
	var zero R
	var rounds []Round
	var responses mcp.InputResponseMap
	var state string
	what := method + " " + name
	inputRounds := 0
	backoff := sheddingFirst
	chain := &urlChain{seen: map[string]int{}, backoff: s.opts.urlBackoff}
	defer chain.forget(s)
	var lastURLs map[string]int // URL -> Repeat+1 of the last input round's accepted URL requests
	stateBytes := 0             // the requestStates of the rounds so far, added up
	for {
		res, err := sendOnce(ctx, s, what, func(ctx context.Context, token string) (R, error) { return send(ctx, token, responses, state) })
		if err != nil {
			var rpc *jsonrpc.Error
			if errors.As(err, &rpc) && rpc.Code == mcp.CodeURLElicitationRequired {
				if s.modernEra() {
					// 2026-07-28 has no -32042 (changelog, minor change 11): a URL
					// request is an input request, and no completion notice exists to
					// wait for. Retrying would only loop (docs/protocol.md, "URL mode").
					return zero, rounds, fmt.Errorf("%s: protocol error: the server sent -32042 (URL elicitation required), "+
						"which protocol %s does not have (it is 2025-11-25 only); a 2026-07-28 server asks for a URL "+
						"with an input_required result: %w", what, s.Protocol(), rpc)
				}
				if err := chain.next(ctx, s, what, rpc); err != nil {
					return zero, rounds, err
				}
				round, uerr := s.urlRequired(ctx, what, name, rpc, chain)
				if round.Kind != "" {
					rounds = append(rounds, round)
				}
				if uerr != nil {
					return zero, rounds, uerr
				}
				responses, state = nil, ""
				continue
			}
			return zero, rounds, err
		}
		if !res.NeedsInput() {
			return res, rounds, nil
		}
		inputRounds++
		reqs, st := inputs(res)
		stateBytes += len(st)
		if err := stateTooLarge(what, inputRounds, len(st), stateBytes); err != nil {
			return zero, rounds, err
		}
		if inputRounds > s.opts.MaxRounds {
			return zero, rounds, fmt.Errorf("%s: gave up after %d input_required rounds (last requestState %q)",
				what, inputRounds-1, safe.Cut(st, 120))
		}
		if len(reqs) == 0 {
			if st == "" {
				return zero, rounds, fmt.Errorf("%s: server returned input_required with neither inputRequests nor requestState", what)
			}
			rounds = append(rounds, Round{Kind: RoundLoadShedding, StateBytes: len(st)})
			s.tap.log.Notef(s.server.Name, "%s: round %d: load shedding, retrying in %s (state %d bytes)", what, inputRounds, backoff, len(st))
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return zero, rounds, fmt.Errorf("%s: %w", what, ctx.Err())
			}
			backoff = min(backoff*2, sheddingMax)
			responses, state = nil, st
			continue
		}
		backoff = sheddingFirst
		answers, round, urls, err := s.answerInputs(ctx, what, method, name, reqs, lastURLs)
		lastURLs = urls
		round.StateBytes = len(st)
		rounds = append(rounds, round)
		s.tap.log.Notef(s.server.Name, "%s: round %d: keys %v, actions %v, state %d bytes", what, inputRounds, round.Keys, round.Actions, len(st))
		if err != nil {
			return zero, rounds, err
		}
		responses, state = answers, st
	}
}

// stateTooLarge refuses a requestState over maxRequestState, or one that brings the
// call's requestStates over maxRequestStates; nil when within both.
func stateTooLarge(what string, round, n, total int) error {
	if n > maxRequestState {
		return fmt.Errorf("%s: refused the server's requestState of round %d: %d bytes, over the limit of %d", what, round, n, maxRequestState)
	}
	if total > maxRequestStates {
		return fmt.Errorf("%s: refused the server's requestState of round %d: the call's requestStates add up to %d bytes, over the limit of %d", what, round, total, maxRequestStates)
	}
	return nil
}

// sendOnce sends one request under the server's timeout and folds in the failure of any
// pushed elicitation answered during it. f sends it with the progress token given,
// whose progress alone restarts the timeout.
func sendOnce[R any](ctx context.Context, s *Session, what string, f func(ctx context.Context, token string) (R, error)) (R, error) {
	var zero R
	tr, done := s.track()
	defer done()
	token := s.progressToken()
	rctx, cancel := s.requestContext(ctx, token)
	defer cancel()
	cs := s.client()
	res, err := f(rctx, token)
	if s.sessionLost(err) && tr.failure() == nil {
		// The server restarted: a new session, then this request once more.
		if rerr := s.reinitialize(ctx, cs); rerr != nil {
			return zero, rerr
		}
		cancel()
		rctx, cancel = s.requestContext(ctx, token)
		defer cancel()
		res, err = f(rctx, token)
	}
	if ferr := tr.failure(); ferr != nil {
		if err != nil {
			return zero, safe.Errorf("%s: %w (server said: %v)", what, ferr, err)
		}
		return zero, fmt.Errorf("%s: %w", what, ferr)
	}
	if err != nil {
		return zero, s.wrap(rctx, what, err)
	}
	return res, nil
}

// answerInputs answers one round's inputRequests in key order. Invalid content is asked
// again (up to maxReasks times); decline and cancel are answers like any other. prev
// maps each URL the previous round accepted to its Repeat+1; a URL request for one of
// them is marked as a repeat (elicit.Request.Repeat). The returned map is this round's.
func (s *Session) answerInputs(ctx context.Context, what, method, name string, reqs mcp.InputRequestMap, prev map[string]int) (mcp.InputResponseMap, Round, map[string]int, error) {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	round := Round{Kind: RoundInputRequired, Keys: keys}
	out := mcp.InputResponseMap{}
	urls := map[string]int{}
	for i, k := range keys {
		if isSamplingInput(reqs[k]) && s.opts.Sampling {
			res, action, err := s.sampleInput(ctx, what, method, name, k, i+1, len(keys), reqs[k])
			if action != "" {
				round.Actions = append(round.Actions, action)
			}
			if err != nil {
				return nil, round, nil, err
			}
			out[k] = res
			continue
		}
		if isRootsInput(reqs[k]) {
			res, err := s.rootsInput(what, k)
			if err != nil {
				return nil, round, nil, err
			}
			out[k] = res
			round.Actions = append(round.Actions, elicit.Accept)
			continue
		}
		p, ok := reqs[k].(*mcp.ElicitParams)
		if !ok {
			return nil, round, nil, fmt.Errorf("%s: input request %q is %T, which elicitty did not declare", what, k, reqs[k])
		}
		er := s.newRequest(elicit.OriginInputRequest, p, s.tap.rawParams(p))
		er.Key, er.Index, er.Total = k, i+1, len(keys)
		er.Call, er.Tool = method+" "+name, name
		if er.Mode == elicit.ModeURL && er.URL != "" {
			er.Repeat = prev[er.URL]
		}
		resp, err := s.answerEntry(ctx, er)
		if err != nil {
			return nil, round, nil, fmt.Errorf("%s: input %q: %w", what, k, err)
		}
		round.Actions = append(round.Actions, resp.Action)
		out[k] = elicitResult(resp)
		if er.Mode == elicit.ModeURL && er.URL != "" && resp.Action == elicit.Accept {
			urls[er.URL] = er.Repeat + 1
		}
	}
	return out, round, urls, nil
}

// answerEntry asks one MRTR entry, re-asking on invalid content.
func (s *Session) answerEntry(ctx context.Context, er *elicit.Request) (elicit.Response, error) {
	if er.Mode == elicit.ModeURL && !s.opts.URLMode {
		s.tap.log.Notef(s.server.Name, "input %q asks for URL mode, which was not declared; answering cancel", er.Key)
		s.event(EventRefused, safe.Untrusted("answered cancel to a URL-mode input request: URL mode is not declared (--no-url or urlPolicy.disabled)"), "")
		return elicit.Response{Action: elicit.Cancel}, nil
	}
	var last error
	tries := maxReasks
	if s.opts.NoReask {
		tries = 1
	}
	for range tries {
		resp, err := s.ask(ctx, er)
		if err == nil {
			return resp, nil
		}
		var ve *elicit.ViolationsError
		var pe *elicit.ProtocolError
		switch {
		case errors.As(err, &ve):
			s.tap.log.Notef(s.server.Name, "input %q: invalid answer, asking again: %v", er.Key, ve)
			last = err
			continue
		case errors.As(err, &pe):
			s.tap.log.Notef(s.server.Name, "input %q: %v; answering cancel", er.Key, pe)
			return elicit.Response{Action: elicit.Cancel}, nil
		}
		return elicit.Response{}, err
	}
	if tries == 1 {
		return elicit.Response{}, last
	}
	return elicit.Response{}, fmt.Errorf("no valid answer after %d tries: %w", tries, last)
}

// urlRequired runs the -32042 driver: it asks consent for each data.elicitations entry,
// waits for their completion notifications (or RetryNow), and lets the caller retry.
func (s *Session) urlRequired(ctx context.Context, what, name string, rpc *jsonrpc.Error, chain *urlChain) (Round, error) {
	seen := chain.seen
	var data struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	if err := json.Unmarshal(rpc.Data, &data); err != nil || len(data.Elicitations) == 0 {
		return Round{}, fmt.Errorf("%s: URL elicitation required, but data.elicitations is unreadable: %w", what, rpc)
	}
	if !s.opts.URLMode {
		return Round{}, fmt.Errorf("%s: the server requires URL-mode elicitation, which is turned off: %w", what, rpc)
	}
	round := Round{Kind: RoundURLRequired}
	var waits []<-chan struct{}

	for i, raw := range data.Elicitations {
		var p mcp.ElicitParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return round, fmt.Errorf("%s: unreadable URL elicitation %d: %w", what, i+1, err)
		}
		if (p.Mode != "url" && p.Mode != "") || p.URL == "" {
			// -32042 carries URL-mode elicitations only; asking a form here would be
			// answered into the void (there is no response to carry its content).
			return round, fmt.Errorf("%s: protocol error: -32042 entry %d is not a URL-mode elicitation (mode %q, url %q): %w",
				what, i+1, safe.Block(p.Mode), safe.Block(safe.Cut(p.URL, 200)), rpc)
		}
		seen[p.URL]++
		if seen[p.URL] > maxURLRepeats {
			return round, fmt.Errorf("%s: the server asked for the same URL %d times; giving up: %s: %w", what, seen[p.URL], safe.Untrusted(p.URL), elicit.ErrUnanswered)
		}
		chain.consents++
		if chain.consents > maxURLConsents {
			return round, fmt.Errorf("%s: gave up after %d URL elicitations in one call: %w", what, maxURLConsents, elicit.ErrUnanswered)
		}
		er := s.newRequest(elicit.OriginURLRequired, &p, append(json.RawMessage(nil), raw...))
		er.Index, er.Total = i+1, len(data.Elicitations)
		er.Call, er.Tool = what, name
		var done <-chan struct{}
		if p.ElicitationID != "" {
			done = s.urls.register(p.ElicitationID)
			chain.ids = append(chain.ids, p.ElicitationID)
		}
		key := p.ElicitationID
		if key == "" {
			key = p.URL
		}
		round.Keys = append(round.Keys, key)
		if closed(done) {
			// Named again, but completed again since the last round took its
			// completion: the server sent this -32042 before its completion (during
			// the retry or the pause before this round). Nothing to ask or wait for.
			s.tap.log.Notef(s.server.Name, "%s: URL elicitation %q completed again since the last round; not asking again", what, p.ElicitationID)
			round.Actions = append(round.Actions, elicit.Accept)
			continue
		}
		asked := time.Now()
		resp, err := s.ask(ctx, er)
		chain.paused += time.Since(asked)
		if err != nil {
			return round, fmt.Errorf("%s: URL elicitation %d of %d: %w", what, i+1, len(data.Elicitations), err)
		}
		round.Actions = append(round.Actions, resp.Action)
		if resp.Action != elicit.Accept {
			// Not completed, so the call cannot go on: an unanswered elicitation (exit 3).
			return round, fmt.Errorf("%s: URL elicitation %d of %d %sd: %w: %w", what, i+1, len(data.Elicitations), resp.Action, elicit.ErrUnanswered, rpc)
		}
		if done != nil && (s.opts.RetryNow == nil || !s.opts.RetryNow(er)) {
			waits = append(waits, done)
		}
	}
	retry := s.urls.retryChan() // before the note, so a RetryNow prompted by it counts
	s.tap.log.Notef(s.server.Name, "%s: waiting for %d URL elicitation(s) to complete: %s", what, len(waits), strings.Join(round.Keys, ", "))
	if len(waits) > 0 {
		s.event(EventURLWait, safe.Untrusted(urlWaitText(len(waits), round.Keys, s.opts.URLWait)), "")
	}
	var timeout <-chan time.Time
	if s.opts.URLWait > 0 {
		t := time.NewTimer(s.opts.URLWait)
		defer t.Stop()
		timeout = t.C
	}
	waitStart := time.Now()
	defer func() { chain.paused += time.Since(waitStart) }()
	for _, w := range waits {
		select {
		case <-w:
		case <-retry:
			return round, nil
		case <-timeout:
			return round, fmt.Errorf("%s: URL elicitation not completed within %s: %w", what, s.opts.URLWait, elicit.ErrUnanswered)
		case <-ctx.Done():
			return round, fmt.Errorf("%s: waiting for URL elicitation: %w", what, ctx.Err())
		}
	}
	return round, nil
}

// urlWaitText says what a -32042 wait waits for and how to go on.
func urlWaitText(n int, keys []string, limit time.Duration) string {
	ids := safe.Block(safe.Cut(strings.Join(keys, ", "), 200))
	bound := ""
	if limit > 0 {
		bound = " up to " + limit.String()
	}
	return fmt.Sprintf("waiting%s for the server to confirm %d link(s) were completed (%s); finish them in a browser, "+
		"or retry at once with \"retry: now\" in the answers file (--url-wait changes the bound)", bound, n, ids)
}

// urlChain bounds the -32042 retries of one call: their number (across elicitationIds,
// so a server naming a fresh URL each time cannot loop), the URL entries asked, and
// with a request timeout the time spent outside prompts and completion waits. It backs
// off between retries.
type urlChain struct {
	seen     map[string]int // URL -> times named
	ids      []string       // elicitationIds registered for the call
	rounds   int            // -32042 errors answered
	consents int            // URL entries asked
	start    time.Time      // first -32042
	paused   time.Duration  // time in prompts and completion waits
	backoff  time.Duration  // next wait; zero means urlBackoffFirst
}

// forget stops tracking the chain's elicitationIds once the call is over.
func (c *urlChain) forget(s *Session) {
	for _, id := range c.ids {
		s.urls.forget(id)
	}
}

// closed reports whether ch is closed (false for nil).
func closed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// next is called for every -32042 of the call, before it is answered: it enforces the
// caps and the timeout and waits out the backoff before a retry.
func (c *urlChain) next(ctx context.Context, s *Session, what string, rpc *jsonrpc.Error) error {
	c.rounds++
	if c.rounds == 1 {
		c.start = time.Now()
		return nil
	}
	if c.rounds > maxURLRounds {
		return fmt.Errorf("%s: gave up after %d URL elicitation rounds (-32042 after every retry): %w: %w",
			what, maxURLRounds, elicit.ErrUnanswered, rpc)
	}
	if c.backoff <= 0 {
		c.backoff = urlBackoffFirst
	}
	d := c.backoff
	c.backoff = min(c.backoff*2, urlBackoffMax)
	limit := s.server.Timeout
	busy := func() time.Duration { return time.Since(c.start) - c.paused }
	if limit > 0 && busy()+d > limit {
		d = max(0, limit-busy())
	}
	s.tap.log.Notef(s.server.Name, "%s: -32042 again (round %d); retrying in %s", what, c.rounds, d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if limit > 0 && busy() >= limit {
		return fmt.Errorf("%s: URL elicitations not done: %w after %s: %w", what, ErrTimeout, limit, elicit.ErrUnanswered)
	}
	return nil
}

// RetryNow releases every -32042 wait of this session: the calls retry at once, without
// waiting for the server's completion notifications (the "Retry now" button).
func (s *Session) RetryNow() { s.urls.retryNow() }

// completed handles notifications/elicitation/complete.
func (s *Session) completed(id string) {
	if s.urls.complete(id) {
		s.event(EventElicitationComplete, safe.Untrusted("the step at the link is done (notifications/elicitation/complete for "+id+")"), id)
		return
	}
	s.tap.log.Notef(s.server.Name, "ignored completion for unknown or finished elicitation %q", id)
}

// pendingURLs tracks URL elicitations waiting for their completion notification. An
// id stays tracked for the whole call that registered it (urlChain.forget), so that a
// completion arriving between two -32042 rounds is not lost.
type pendingURLs struct {
	mu      sync.Mutex
	pending map[string]chan struct{}
	// again marks the ids completed once more after their completion was taken: the
	// server may name them in its next -32042 (register then hands out a closed channel).
	again map[string]bool
	retry chan struct{}
}

func newPendingURLs() *pendingURLs {
	return &pendingURLs{pending: map[string]chan struct{}{}, again: map[string]bool{}, retry: make(chan struct{})}
}

// register starts tracking id and returns a channel closed when it completes. For an
// id completed before, the channel is new, unless id completed again since (see again):
// then it is closed already.
func (p *pendingURLs) register(id string) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.pending[id]; ok {
		if !closed(ch) || p.again[id] {
			delete(p.again, id)
			return ch
		}
	}
	ch := make(chan struct{})
	p.pending[id] = ch
	return ch
}

// complete marks id completed; it reports false for an unknown or finished id (a
// finished one is marked in again).
func (p *pendingURLs) complete(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.pending[id]
	if !ok {
		return false
	}
	if closed(ch) {
		p.again[id] = true
		return false
	}
	close(ch)
	return true
}

// forget stops tracking id.
func (p *pendingURLs) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, id)
	delete(p.again, id)
}

func (p *pendingURLs) retryChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.retry
}

func (p *pendingURLs) retryNow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.retry)
	p.retry = make(chan struct{})
}
