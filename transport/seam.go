package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
)

// notificationElicitationComplete ends a URL elicitation of the 2025-11-25 era.
const notificationElicitationComplete = "notifications/elicitation/complete"

// elicitMiddleware answers server-pushed elicitation/create requests (2025-06-18,
// 2025-11-25) through the Answerer. It never calls next, so go-sdk's own schema check,
// validation and defaults never run (docs/protocol.md, "go-sdk facts").
func (s *Session) elicitMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "ping" {
			if m, params, ok := servedTaskRequest(req); ok {
				return s.served.served(ctx, m, params)
			}
		}
		if method == methodSampling && s.opts.Sampling {
			if ttl, asTask := samplingTask(req); asTask {
				// Task-augmented (declared with tasks.requests.sampling.createMessage):
				// the server polls the task while the person writes the reply.
				return s.startTask(method, ttl, func(ctx context.Context) (mcp.Result, error) {
					return s.samplingPush(ctx, req)
				})
			}
			return s.samplingPush(ctx, req)
		}
		if method == notificationElicitationComplete {
			if p, ok := req.GetParams().(*mcp.ElicitationCompleteParams); !ok || p == nil {
				// go-sdk lets this notification come without params and then reads
				// them: a server's bare notification would end the program.
				s.tap.log.Notef(s.server.Name, "dropped %s without params", method)
				return nil, nil
			}
		}
		if method != "elicitation/create" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.ElicitParams)
		if !ok || p == nil {
			return nil, invalidParams(fmt.Sprintf("unreadable elicitation params (%T)", req.GetParams()))
		}
		raw := s.tap.rawParams(p)
		if ttl, asTask := requestedTTL(raw); asTask {
			// Task-augmented (we declare tasks.requests.elicitation.create): the server
			// gets a task now and polls it while the person answers.
			return s.startTask(method, ttl, func(ctx context.Context) (mcp.Result, error) {
				return s.answerPush(ctx, p, raw, true)
			})
		}
		return s.answerPush(ctx, p, raw, false)
	}
}

// answerPush answers one pushed elicitation/create through the Answerer; asTask marks
// one the server made a task of.
func (s *Session) answerPush(ctx context.Context, p *mcp.ElicitParams, raw json.RawMessage, asTask bool) (mcp.Result, error) {
	{
		er := s.newRequest(elicit.OriginPush, p, raw)
		call, tool, taskID := s.askingCall(p.Meta)
		if call != "" {
			er.Call, er.Tool = call, tool
		} else if asTask {
			er.Call = "elicitation/create as a task (the server polls for the answer)"
		}
		if er.Mode == elicit.ModeURL && !s.opts.URLMode {
			s.tap.log.Notef(s.server.Name, "refused URL-mode elicitation: URL mode not declared")
			s.event(EventRefused, safe.Untrusted("refused a URL-mode elicitation: URL mode is not declared (--no-url or urlPolicy.disabled)"), "")
			return nil, invalidParams("client does not support URL-mode elicitation")
		}
		if er.Mode == elicit.ModeURL && p.ElicitationID != "" {
			s.urls.register(p.ElicitationID) // so its completion is recognised
		}
		resp, err := s.ask(ctx, er)
		if err != nil {
			if ctx.Err() != nil {
				// The server cancelled: the tap drops the response go-sdk still writes
				// (docs/protocol.md, "Timeouts and cancellation"). go-sdk cancels with a bare context.Canceled only for
				// notifications/cancelled; a connection that broke (a crashed server) or
				// closed has its own cause, reported by the exit event or the call.
				if context.Cause(ctx) == context.Canceled {
					s.event(EventCancelled, safe.Untrusted("the server cancelled its request: "+er.Message), "")
				}
				return nil, ctx.Err()
			}
			var ve *elicit.ViolationsError
			var pe *elicit.ProtocolError
			switch {
			case errors.As(err, &ve):
				// The server gets the violations; the call fails with them too, so a
				// script that cannot answer validly ends in exit 3.
				s.failCalls(err)
				return nil, violationsError(ve)
			case errors.As(err, &pe):
				return nil, invalidParams(pe.Reason)
			}
			s.failCalls(err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "elicitation not answered: " + err.Error()}
		}
		out := elicitResult(resp)
		if taskID != "" {
			// Every message of a task carries its id (spec 2025-11-25 tasks).
			out.Meta = mcp.Meta{relatedTaskKey: map[string]any{"taskId": taskID}}
		}
		return out, nil
	}
}

// violationsError is the bare -32602 error for invalid content (docs/protocol.md, "Validation"). It
// must reach go-sdk unwrapped, or Data is lost.
func violationsError(ve *elicit.ViolationsError) *jsonrpc.Error {
	vs := ve.Violations
	if vs == nil {
		vs = []elicit.Violation{}
	}
	data, _ := json.Marshal(map[string]any{"errors": vs})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation response does not match requestedSchema", Data: data}
}

func invalidParams(reason string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: reason}
}

func elicitResult(r elicit.Response) *mcp.ElicitResult {
	out := &mcp.ElicitResult{Action: string(r.Action)}
	if r.Action == elicit.Accept {
		out.Content = r.Content
	}
	return out
}

// ask hands req to the Answerer while pausing request timeouts (docs/protocol.md, "Timeouts and cancellation").
func (s *Session) ask(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	if s.opts.Answerer == nil {
		return elicit.Response{Action: elicit.Cancel}, nil
	}
	if req.Form == nil && req.Mode != elicit.ModeURL && len(req.Schema) > 0 {
		// Parsed once, here: the Engine and the answerers behind it use this parse, and
		// the secret fields are found in it below.
		req.Form = elicit.ParseWith(req.Schema, req.Protocol, req.ParseOptions())
	}
	s.prompt.enter()
	resp, err := s.opts.Answerer.Answer(ctx, req)
	s.prompt.leave()
	if err == nil && resp.Action == elicit.Accept && req.Mode != elicit.ModeURL && len(resp.Content) > 0 {
		// What the user typed into a secret field goes on the wire only: the wire log
		// (Log tab, --log file) masks it from the answer on.
		form := req.ParsedForm()
		for _, v := range form.SecretValues(resp.Content) {
			s.tap.log.Redact(v)
		}
		// A chosen file's bytes are not logged either (SEP-2356, "Logging and telemetry").
		for _, v := range form.FileValues(resp.Content) {
			s.tap.log.Redact(v)
		}
	}
	return resp, err
}

// newRequest builds an elicit.Request from go-sdk's decoded params and, when the tap
// caught them, the raw params in server order.
func (s *Session) newRequest(origin elicit.Origin, p *mcp.ElicitParams, raw json.RawMessage) *elicit.Request {
	info := ""
	if si := s.ServerInfo(); si != nil {
		info = si.Name
	}
	return NewRequest(RequestSource{Server: s.server.Name, ServerInfo: info, Protocol: s.Protocol(), URLDeclared: s.opts.URLMode, FileInputs: s.opts.FileInputs}, origin, p, raw)
}

// RequestSource is who asks an elicitation: what NewRequest copies into each
// elicit.Request besides the elicitation's own params.
type RequestSource struct {
	// Server is the configured name of the asking server.
	Server string
	// ServerInfo is the server's serverInfo.name as sent (NewRequest sanitizes it).
	ServerInfo string
	// Host is the MCP host an `elicitty proxy` relays for ("" for elicitty itself).
	Host string
	// Protocol is the negotiated protocol version.
	Protocol string
	// URLDeclared reports whether URL mode was declared to the server.
	URLDeclared bool
	// FileInputs reports whether file inputs were declared (elicit.Request.FileInputs).
	FileInputs bool
}

// NewRequest builds the elicit.Request of one elicitation from go-sdk's decoded params p
// and, when caught, the raw params in server order (the schema is taken from them). It
// is the one place an elicit.Request is built from the wire, for a session and for the
// proxy alike; the caller adds Call, Tool, Key, Index and Total.
func NewRequest(src RequestSource, origin elicit.Origin, p *mcp.ElicitParams, raw json.RawMessage) *elicit.Request {
	er := &elicit.Request{
		Server:      src.Server,
		Host:        src.Host,
		Origin:      origin,
		Protocol:    src.Protocol,
		Mode:        elicit.ModeForm,
		Message:     p.Message,
		URL:         p.URL,
		URLDeclared: src.URLDeclared,
		FileInputs:  src.FileInputs,
		Params:      raw,
	}
	if src.Protocol < protocol.Version20260728 {
		// 2026-07-28 removed elicitationId (changelog, minor change 11): one a server
		// sends anyway is not kept, so nothing waits for a completion that cannot come.
		er.ElicitationID = p.ElicitationID
	}
	if src.ServerInfo != "" {
		er.ServerInfo = serverInfoName(src.ServerInfo)
	}
	switch p.Mode {
	case "", "form":
	case "url":
		er.Mode = elicit.ModeURL
	default:
		er.Mode = elicit.Mode(p.Mode)
	}
	if raw != nil {
		// raw is valid JSON, params the tap kept from a message it read (rawParams).
		if sc, ok := spansOf(raw)["requestedSchema"]; ok && string(raw[sc.start:sc.end]) != "null" {
			er.Schema = raw[sc.start:sc.end:sc.end]
		}
	} else if p.RequestedSchema != nil {
		// The tap missed it: order is lost, but the schema is still usable.
		er.Schema, _ = json.Marshal(p.RequestedSchema)
		er.Params, _ = json.Marshal(p)
	}
	return er
}

// callTrack collects the failures of pushed elicitations that happened during a call,
// so the call's error can wrap them (elicit.ErrUnanswered -> exit 3).
type callTrack struct {
	mu  sync.Mutex
	err error
}

func (s *Session) track() (*callTrack, func()) {
	t := &callTrack{}
	s.mu.Lock()
	s.calls[t] = struct{}{}
	s.mu.Unlock()
	return t, func() {
		s.mu.Lock()
		delete(s.calls, t)
		s.mu.Unlock()
	}
}

func (t *callTrack) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// failCalls records err on every call in flight.
func (s *Session) failCalls(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.calls {
		t.mu.Lock()
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
	}
}

// pauser counts open prompts; request timers stand still while any is open. A progress
// notification pokes the token it carries, which restarts the idle timer of the request
// that watches that token (the one that sent it) and no other.
type pauser struct {
	mu      sync.Mutex
	open    int
	watched map[string]*watch // by progress token
	changed chan struct{}
}

// watch is a progress token some request contexts (refs) watch, and the progress
// notifications that carried it so far.
type watch struct{ refs, pokes int }

func (p *pauser) init() { p.changed = make(chan struct{}) }

// signal wakes every waiter; p.mu is held.
func (p *pauser) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *pauser) update(open int) {
	p.mu.Lock()
	p.open += open
	p.signal()
	p.mu.Unlock()
}

func (p *pauser) enter() { p.update(1) }
func (p *pauser) leave() { p.update(-1) }

// watch starts counting the progress of token ("" is no token); unwatch stops once
// every watch of token has.
func (p *pauser) watch(token string) {
	if token == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watched == nil {
		p.watched = map[string]*watch{}
	}
	w := p.watched[token]
	if w == nil {
		w = &watch{}
		p.watched[token] = w
	}
	w.refs++
}

func (p *pauser) unwatch(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.watched[token]; w != nil {
		if w.refs--; w.refs <= 0 {
			delete(p.watched, token)
		}
	}
}

// poke counts a progress notification for token; one for a token no request of ours
// watches (a foreign or finished one) is ignored, and poke reports false.
func (p *pauser) poke(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.watched[token]
	if w == nil {
		return false
	}
	w.pokes++
	p.signal()
	return true
}

// state returns the open prompts, the progress counted for token, and a channel
// closed at the next change.
func (p *pauser) state(token string) (open, pokes int, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.watched[token]; w != nil {
		pokes = w.pokes
	}
	return p.open, pokes, p.changed
}

// requestContext bounds one request by the server's Timeout, as idle time: the clock
// stops while any prompt of this session is open, so a legacy tools/call waiting on a
// form does not time out under the user (docs/protocol.md, "Timeouts and cancellation"),
// and starts over at each progress notification carrying the request's own progress
// token (token; "" for a request that sent none), up to progressBudget times Timeout of
// unpaused time in all, so that endless progress cannot hold a call forever; each MRTR
// retry gets a fresh budget.
func (s *Session) requestContext(ctx context.Context, token string) (context.Context, context.CancelFunc) {
	return s.boundedContext(ctx, s.server.Timeout, token)
}

// progressBudget is how many request timeouts of unpaused time progress notifications
// can keep one request alive.
const progressBudget = 5

// boundedContext is requestContext with the budget d (zero: unbounded).
func (s *Session) boundedContext(ctx context.Context, d time.Duration, token string) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	s.prompt.watch(token)
	go func() {
		defer s.prompt.unwatch(token)
		remaining := d
		var active time.Duration // unpaused time so far
		for {
			open, pokes, changed := s.prompt.state(token)
			if open > 0 {
				select {
				case <-changed:
					continue
				case <-cctx.Done():
					return
				}
			}
			start := time.Now()
			t := time.NewTimer(remaining)
			select {
			case <-t.C:
				cancel(fmt.Errorf("%w after %s", ErrTimeout, d))
				return
			case <-changed:
				t.Stop()
				spent := time.Since(start)
				active += spent
				if _, p, _ := s.prompt.state(token); p != pokes {
					if left := progressBudget*d - active; left < d {
						if left <= 0 {
							cancel(fmt.Errorf("%w: progress for %s without a result", ErrTimeout, progressBudget*d))
							return
						}
						remaining = left
					} else {
						remaining = d
					}
				} else {
					remaining -= spent
				}
			case <-cctx.Done():
				t.Stop()
				return
			}
		}
	}()
	return cctx, func() { cancel(context.Canceled) }
}

// serverInfoName is a server's own name as elicitty shows and matches it: sanitized,
// on one line, at most 100 runes.
func serverInfoName(name string) string {
	name = strings.Join(strings.Fields(safe.Block(name)), " ")
	if r := []rune(name); len(r) > 100 {
		name = string(r[:100])
	}
	return name
}
