package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// errWait reports a question nobody answered within Options.Wait.
var errWait = errors.New("not answered in time")

// ask hands one question to the answerer, bounded by Options.Wait. c, when known, is
// the host's call it is asked for: kept alive meanwhile, its host requests told of the
// wait with progress notifications (keep.go).
func (p *Proxy) ask(ctx context.Context, c *call, req *elicit.Request) (elicit.Response, error) {
	if p.answerer == nil {
		p.logf("%s: no answerer; answering cancel", what(req))
		return elicit.Response{Action: elicit.Cancel}, nil
	}
	if req.Form == nil && req.Mode != elicit.ModeURL && len(req.Schema) > 0 {
		req.Form = elicit.Parse(req.Schema, req.Protocol)
	}
	req.Deadline = time.Now().Add(p.opts.Wait) // when the proxy stops waiting for the answer
	actx, cancel := context.WithDeadline(ctx, req.Deadline)
	defer cancel()
	if c != nil {
		p.questionStarted(c, req.Deadline)
		defer p.questionEnded(c)
	}
	p.logf("%s: asking", what(req))
	resp, err := p.answerBounded(actx, c, req)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		p.logf("%s: nobody answered within %s; cancelling it", what(req), p.opts.Wait)
		return elicit.Response{}, errWait
	}
	if err == nil {
		p.logf("%s: answered %s", what(req), resp.Action)
	}
	return resp, err
}

// answerBounded calls the answerer and returns once it answers or ctx is done, even
// when the answerer does not heed ctx (it is then left to finish on its own): --wait
// and the host leaving bound every question.
func (p *Proxy) answerBounded(ctx context.Context, c *call, req *elicit.Request) (elicit.Response, error) {
	type answer struct {
		resp elicit.Response
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		resp, err := p.answerer.Answer(ctx, req)
		ch <- answer{resp, err}
	}()
	var tick <-chan time.Time
	if c != nil && p.opts.Progress > 0 {
		t := time.NewTicker(p.opts.Progress)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case a := <-ch:
			return a.resp, a.err
		case <-ctx.Done():
			return elicit.Response{}, ctx.Err()
		case <-tick:
			p.progress(c)
		}
	}
}

// what names a question for the log: its carrier, mode, server and call, never its
// message.
func what(req *elicit.Request) string {
	s := fmt.Sprintf("%s %s question from %s", req.Origin, modeName(req.Mode), req.ServerLabel())
	if req.Call != "" {
		s += " during " + safe.Block(req.Call)
	}
	if req.Key != "" {
		s += fmt.Sprintf(" (input %q)", safe.Block(req.Key))
	}
	return s
}

func modeName(m elicit.Mode) string {
	if m == "" {
		return string(elicit.ModeForm)
	}
	return string(m)
}

// why says why a question got no answer without quoting the error, which may quote
// the server's message (an answers file's "no entry matches ... message ...").
func why(err error) string {
	var ve *elicit.ViolationsError
	switch {
	case errors.Is(err, elicit.ErrUnanswered):
		return "no answer for it: no answers-file entry matches, or nobody can answer"
	case errors.As(err, &ve):
		return fmt.Sprintf("the answer breaks the schema in %d place(s)", len(ve.Violations))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	}
	return fmt.Sprintf("the answerer failed (%T)", err)
}

// elicitResult is the result of an elicitation.
type elicitResult struct {
	Action  elicit.Action  `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

func resultOf(r elicit.Response) elicitResult {
	out := elicitResult{Action: r.Action}
	if r.Action == elicit.Accept {
		out.Content = r.Content
	}
	return out
}

// takePush answers a server's elicitation/create when the host did not declare its
// mode (or with AnswerHere); it reports whether it took it.
func (p *Proxy) takePush(env *jsonrpcio.Envelope) bool {
	var params mcp.ElicitParams
	if err := json.Unmarshal(env.Params, &params); err != nil {
		return false // the host gets it as it is
	}
	mode := elicit.ModeForm
	if params.Mode == "url" {
		mode = elicit.ModeURL
	}
	id := env.ID
	p.mu.Lock()
	declared := p.caps
	size := len(env.Params)
	full := len(p.pushes) >= maxKept || p.pushBytes+size > maxPushBytes
	_, reused := p.pushes[idKey(id)]
	p.mu.Unlock()
	if !p.answers(declared, mode) {
		return false
	}
	if reused {
		// Its answer would be ambiguous, and its cancellation would stop the wrong one.
		p.logf("ignored a server question under the id of one still open")
		return true
	}
	idRaw := append([]byte(nil), env.IDRaw...)
	if full {
		p.logf("too many open questions from the server; answering cancel")
		p.answerServer(idRaw, elicitResult{Action: elicit.Cancel}, nil)
		return true
	}
	req := transport.NewRequest(p.source(""), elicit.OriginPush, &params, append(json.RawMessage(nil), env.Params...))
	// The call the question is asked for: the one in flight. With several, it could
	// be any of them: each is kept alive while the question is open (keep.go), but none
	// is named, told of the wait, or ends the question when it ends.
	inFlight := p.inFlight()
	var c *call
	if len(inFlight) == 1 {
		c = inFlight[0]
		req.Call, req.Tool = c.method+" "+c.name, c.name
	}
	ctx, cancel := context.WithCancelCause(p.ctx)
	key := idKey(id)
	p.mu.Lock()
	p.pushes[key] = cancel
	if c != nil {
		c.stops = append(c.stops, cancel) // stopped when its call ends
	}
	p.pushBytes += size
	if mode == elicit.ModeURL && params.ElicitationID != "" && len(params.ElicitationID) <= maxKeptID && len(p.answeredURL) < maxKept {
		p.answeredURL[params.ElicitationID] = true
	}
	p.mu.Unlock()
	p.spawn(func() {
		defer func() {
			p.mu.Lock()
			delete(p.pushes, key)
			p.noteAnsweredLocked(key)
			p.pushBytes -= size
			p.mu.Unlock()
			cancel(nil)
		}()
		if len(inFlight) > 1 {
			for _, o := range inFlight {
				p.questionStarted(o, time.Now().Add(p.opts.Wait))
				defer p.questionEnded(o)
			}
		}
		resp, err := p.ask(ctx, c, req)
		if cause := context.Cause(ctx); errors.Is(cause, errServerGone) || errors.Is(cause, errStopped) {
			p.logf("%s: %v", what(req), cause)
			return // no response to a cancelled request
		} else if cause != nil {
			p.logf("%s: withdrawn: %v; answering cancel", what(req), cause)
			p.answerServer(idRaw, elicitResult{Action: elicit.Cancel}, nil)
			return
		}
		var ve *elicit.ViolationsError
		var pe *elicit.ProtocolError
		switch {
		case err == nil:
			p.answerServer(idRaw, resultOf(resp), nil)
		case errors.As(err, &ve):
			p.logf("%s: the answer does not match the schema; the server gets the violations", what(req))
			p.answerServer(idRaw, nil, transport.ViolationsRPCError(ve))
		case errors.As(err, &pe):
			p.logf("%s: refused: %s", what(req), safe.Block(pe.Reason))
			p.answerServer(idRaw, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: pe.Reason})
		default:
			if !errors.Is(err, errWait) {
				p.logf("%s: not answered (%s); answering cancel", what(req), why(err))
			}
			p.answerServer(idRaw, elicitResult{Action: elicit.Cancel}, nil)
		}
	})
	return true
}

// answerServer sends the response to a server request: result, or rpcErr when set.
func (p *Proxy) answerServer(idRaw []byte, result any, rpcErr *jsonrpc.Error) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(idRaw)
	if rpcErr != nil {
		e, _ := json.Marshal(rpcErr)
		b.WriteString(`,"error":`)
		b.Write(e)
	} else {
		r, err := json.Marshal(result)
		if err != nil {
			r = []byte(`{"action":"cancel"}`)
		}
		b.WriteString(`,"result":`)
		b.Write(r)
	}
	b.WriteByte('}')
	if err := p.toServer(b.Bytes()); err != nil {
		p.logf("sending an answer to the server: %v", err)
	}
}

// serverCancelled stops answering a server question the server cancelled; it reports
// whether the question was the proxy's (the host never saw it, so the notice stops here).
func (p *Proxy) serverCancelled(env *jsonrpcio.Envelope) bool {
	var n struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(env.Params, &n) != nil || len(n.RequestID) == 0 {
		return false
	}
	id, err := decodeID(n.RequestID)
	if err != nil {
		return false
	}
	p.mu.Lock()
	cancel := p.pushes[idKey(id)]
	p.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(errServerGone)
	return true
}

// completed takes a notifications/elicitation/complete for a URL elicitation the proxy
// answered or waits for; it reports whether it was one (then the host never sees it).
func (p *Proxy) completed(env *jsonrpcio.Envelope) bool {
	var n struct {
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(env.Params, &n) != nil || n.ElicitationID == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	w, waiting := p.waits[n.ElicitationID]
	if waiting {
		select {
		case <-w.done:
		default:
			close(w.done)
		}
	}
	ours := p.answeredURL[n.ElicitationID]
	delete(p.answeredURL, n.ElicitationID)
	if waiting || ours {
		p.logf("URL elicitation %q completed", safe.Block(n.ElicitationID))
	}
	return waiting || ours
}

// start marks c as driven by the proxy and returns the context of that work; false
// when the host cancelled it meanwhile.
func (p *Proxy) start(c *call) (context.Context, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.cancelled {
		return nil, false
	}
	ctx, cancel := context.WithCancelCause(p.ctx)
	c.cancel = cancel
	return ctx, true
}

// finish ends the proxy's work on c: the original message goes to the host, or c is
// retried (retry non-nil, with the same id).
func (p *Proxy) finish(ctx context.Context, c *call, original, retry []byte) {
	p.mu.Lock()
	cancelled := c.cancelled || ctx.Err() != nil
	c.cancel = nil
	if !cancelled && retry != nil {
		c.line = retry
	}
	p.mu.Unlock()
	if cancelled {
		return // the host gave up on it: nothing more goes either way
	}
	if retry == nil {
		p.deliver(c, original)
		return
	}
	if err := p.toServer(retry); err != nil {
		p.logf("retrying %s %s: %v", c.method, safe.Block(c.name), err)
		p.failCall(c, fmt.Sprintf("elicitty proxy: the retry could not be sent: %v", err))
	}
}

// takeURLRequired answers a -32042 error to a host request when the host did not
// declare URL mode (or with AnswerHere): consent for each entry, the completions
// awaited, then the same request sent again under the same id. It reports whether it
// took the error.
func (p *Proxy) takeURLRequired(c *call, env *jsonrpcio.Envelope, msg []byte) bool {
	if !bytes.Contains(env.ErrorRaw, []byte("-32042")) {
		return false
	}
	var e struct {
		Code int `json:"code"`
		Data struct {
			Elicitations []json.RawMessage `json:"elicitations"`
		} `json:"data"`
	}
	if json.Unmarshal(env.ErrorRaw, &e) != nil || e.Code != mcp.CodeURLElicitationRequired || len(e.Data.Elicitations) == 0 {
		return false
	}
	if c.meta {
		// 2026-07-28 has no -32042 and no completion notice to wait for (its changelog,
		// minor change 11): the error is the server's mistake, and the host's to see.
		p.logf("%s %s: a 2026-07-28 server answered -32042, which that protocol does not have; passing the error to the host", c.method, safe.Block(c.name))
		return false
	}
	p.mu.Lock()
	declared := p.caps
	if c.meta {
		declared = c.modes
	}
	p.mu.Unlock()
	if !p.answers(declared, elicit.ModeURL) {
		return false
	}
	if len(e.Data.Elicitations) > maxKept {
		p.logf("%s %s: a -32042 with %d URL elicitations; passing the error to the host", c.method, safe.Block(c.name), len(e.Data.Elicitations))
		return false
	}
	c.urlRounds++
	if c.urlRounds > maxURLRounds {
		p.logf("%s %s: -32042 after %d retries; passing the error to the host", c.method, safe.Block(c.name), maxURLRounds)
		return false
	}
	ctx, ok := p.start(c)
	if !ok {
		return true
	}
	original := append([]byte(nil), msg...)
	p.spawn(func() {
		if p.urlRequired(ctx, c, e.Data.Elicitations) {
			p.finish(ctx, c, nil, c.line)
		} else {
			p.finish(ctx, c, original, nil)
		}
	})
	return true
}

// urlWait is a URL elicitation awaited by one host request or more (a server may hold
// several up with one sign-in link).
type urlWait struct {
	done chan struct{} // closed on completion
	n    int           // the requests awaiting it
}

// urlRequired asks consent for each -32042 entry and waits for the completion of each
// accepted one; it reports whether the request may be retried.
func (p *Proxy) urlRequired(ctx context.Context, c *call, entries []json.RawMessage) bool {
	var ids []string
	defer func() {
		p.mu.Lock()
		for _, id := range ids {
			if w := p.waits[id]; w != nil {
				if w.n--; w.n <= 0 {
					delete(p.waits, id)
				}
			}
		}
		p.mu.Unlock()
	}()
	var waits []<-chan struct{}
	var awaited *elicit.Request // the first entry whose completion is awaited
	for i, raw := range entries {
		var ep mcp.ElicitParams
		if err := json.Unmarshal(raw, &ep); err != nil || ep.URL == "" || (ep.Mode != "" && ep.Mode != "url") {
			p.logf("%s %s: -32042 entry %d is no URL elicitation; passing the error on", c.method, safe.Block(c.name), i+1)
			return false
		}
		req := transport.NewRequest(p.source(c.proto), elicit.OriginURLRequired, &ep, append(json.RawMessage(nil), raw...))
		req.Index, req.Total = i+1, len(entries)
		req.Call, req.Tool = c.method+" "+c.name, c.name
		var done chan struct{}
		if ep.ElicitationID != "" {
			// Registered before asking: the server may complete it at once.
			p.mu.Lock()
			w := p.waits[ep.ElicitationID]
			if w == nil {
				w = &urlWait{done: make(chan struct{})}
				p.waits[ep.ElicitationID] = w
			}
			w.n++
			done = w.done
			p.mu.Unlock()
			ids = append(ids, ep.ElicitationID)
		}
		resp, err := p.ask(ctx, c, req)
		if err != nil || resp.Action != elicit.Accept {
			if err != nil && !errors.Is(err, errWait) && ctx.Err() == nil {
				p.logf("%s: not answered (%s)", what(req), why(err))
			}
			return false
		}
		if done != nil && (p.opts.RetryNow == nil || !p.opts.RetryNow(req)) {
			waits = append(waits, done)
			if awaited == nil {
				awaited = req
			}
		}
	}
	if len(waits) > 0 {
		p.logf("%s %s: waiting up to %s for %d URL elicitation(s) to complete", c.method, safe.Block(c.name), p.opts.Wait, len(waits))
	}
	t := time.NewTimer(p.opts.Wait)
	defer t.Stop()
	decided, stop := p.askWait(ctx, awaited)
	ended := errCompleted // why the wait shown in the inbox is withdrawn
	defer func() { stop(ended) }()
	for _, w := range waits {
		select {
		case now := <-decided:
			return p.waitDecided(c, now)
		case <-w:
		case <-t.C:
			ended = errNoCompletion
			p.logf("%s %s: the URL elicitation did not complete within %s; passing the error to the host", c.method, safe.Block(c.name), p.opts.Wait)
			return false
		case <-ctx.Done():
			ended = context.Cause(ctx)
			return false
		}
	}
	p.logf("%s %s: retrying after the URL elicitation", c.method, safe.Block(c.name))
	return true
}

// inputResult is what the proxy reads of a 2026-07-28 result.
type inputResult struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  json.RawMessage            `json:"requestState"`
}

// inputRequest is one entry of inputRequests.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// takeInputRequired answers an input_required round whose input requests are all
// elicitations, one of a mode the host did not declare (or all with AnswerHere), and
// sends the request again with the answers under the same id. It reports whether it
// took the result.
func (p *Proxy) takeInputRequired(c *call, env *jsonrpcio.Envelope, msg []byte) bool {
	res := env.Result
	if !bytes.Contains(res, []byte(`"input_required"`)) {
		return false
	}
	var r inputResult
	if json.Unmarshal(res, &r) != nil || r.ResultType != "input_required" || len(r.InputRequests) == 0 {
		return false // load shedding and the like: the host retries
	}
	if len(r.InputRequests) > maxKept {
		p.logf("%s %s: an input_required round with %d input requests; passing the result to the host", c.method, safe.Block(c.name), len(r.InputRequests))
		return false
	}
	keys := make([]string, 0, len(r.InputRequests))
	entries := map[string]inputRequest{}
	declared := c.modes
	take := false
	for k, raw := range r.InputRequests {
		var ir inputRequest
		if json.Unmarshal(raw, &ir) != nil || ir.Method != "elicitation/create" {
			return false // sampling, roots: the host's (passed through unchanged)
		}
		var mode struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(ir.Params, &mode)
		m := elicit.ModeForm
		if mode.Mode == "url" {
			m = elicit.ModeURL
		}
		if p.answers(declared, m) {
			take = true
		}
		keys = append(keys, k)
		entries[k] = ir
	}
	if !take {
		return false
	}
	c.rounds++
	if c.rounds > maxRounds {
		p.logf("%s %s: more than %d input_required rounds; passing the result to the host", c.method, safe.Block(c.name), maxRounds)
		return false
	}
	slices.Sort(keys)
	ctx, ok := p.start(c)
	if !ok {
		return true
	}
	original := append([]byte(nil), msg...)
	state := append(json.RawMessage(nil), r.RequestState...)
	p.spawn(func() {
		answers := map[string]elicitResult{}
		for i, k := range keys {
			var ep mcp.ElicitParams
			_ = json.Unmarshal(entries[k].Params, &ep)
			req := transport.NewRequest(p.source(c.proto), elicit.OriginInputRequest, &ep, entries[k].Params)
			req.Key, req.Index, req.Total = k, i+1, len(keys)
			req.Call, req.Tool = c.method+" "+c.name, c.name
			resp, err := p.ask(ctx, c, req)
			if ctx.Err() != nil {
				p.finish(ctx, c, nil, nil)
				return
			}
			if err != nil {
				if !errors.Is(err, errWait) {
					p.logf("%s: not answered (%s); answering cancel", what(req), why(err))
				}
				resp = elicit.Response{Action: elicit.Cancel}
			}
			answers[k] = resultOf(resp)
		}
		retry, ok := withInputs(c.line, answers, state)
		if !ok {
			p.logf("%s %s: could not build the retry; passing the result to the host", c.method, safe.Block(c.name))
			p.finish(ctx, c, original, nil)
			return
		}
		p.logf("%s %s: round %d answered; retrying", c.method, safe.Block(c.name), c.rounds)
		p.finish(ctx, c, original, retry)
	})
	return true
}

// withInputs returns the request line with params.inputResponses set to answers and
// params.requestState to state (removed when none).
func withInputs(line []byte, answers map[string]elicitResult, state json.RawMessage) ([]byte, bool) {
	env, err := jsonrpcio.ParseEnvelope(line)
	if err != nil {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	if ps := env.Params; len(ps) > 0 && string(ps) != "null" {
		if json.Unmarshal(ps, &m) != nil || m == nil {
			return nil, false
		}
	}
	ab, err := marshal(answers)
	if err != nil {
		return nil, false
	}
	m["inputResponses"] = ab
	delete(m, "requestState")
	if len(state) > 0 && string(state) != "null" && string(state) != `""` {
		m["requestState"] = state
	}
	params, err := marshal(m)
	if err != nil {
		return nil, false
	}
	start, end := env.ParamsSpan()
	if len(env.Params) == 0 {
		// No params member: add one.
		out := append([]byte(nil), bytes.TrimSuffix(bytes.TrimSpace(line), []byte("}"))...)
		out = append(out, `,"params":`...)
		out = append(out, params...)
		return append(out, '}'), true
	}
	out := make([]byte, 0, len(line)+len(params))
	out = append(out, line[:start]...)
	out = append(out, params...)
	return append(out, line[end:]...), true
}
