package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/transport/wire"
)

// maxKept bounds the tap's lookup tables (raw elicitation params, requestState tokens).
const maxKept = 256

// tap watches every JSON-RPC message of one session in both directions. It logs each
// one, keeps the raw bytes go-sdk throws away (schema property order, requestState
// tokens), and edits the stream where go-sdk gets the protocol wrong (docs/protocol.md, "go-sdk facts").
// It is shared by the Connection wrapper (stdio, in-memory) and the HTTP RoundTripper.
type tap struct {
	server string
	log    *wire.Log

	mu        sync.Mutex
	inflight  map[string]outReq            // our request ids
	cancelled map[string]bool              // server request ids the server cancelled
	raws      map[string][]json.RawMessage // elicitKey -> raw params
	light     map[string]json.RawMessage   // token -> raw params handed to go-sdk light (keepRaw)
	lightSeq  uint64                       // the last token
	kept      int                          // raw params in raws and light
	states    map[string]json.RawMessage   // decoded requestState -> raw JSON token
	answered  map[string]bool              // request ids we answered locally (late replies dropped)
	asked     map[string]bool              // server requests not yet answered
	refused   map[string]string            // server requests dropped unread -> why (refuse)
	askedDone chan struct{}                // closed when asked becomes empty; nil while it is
	owedDone  chan struct{}                // closed when no cancellation is owed (owed.go); nil while none is awaited
	injectFn  func(jsonrpc.Message) bool   // delivers a local message to the reader, when possible
	discover  time.Duration                // server/discover deadline (0: none)
	// toolsList sees each raw tools/list result with the cursor its request sent and
	// returns the result to hand go-sdk instead (nil: the result as sent); see tools.go.
	toolsList func(cursor string, result json.RawMessage) json.RawMessage
	// onRefused, when set, is told of each server request refused unread (refuse).
	onRefused func(reason string)

	// Tasks (tasks.go, taskserve.go): clientTasks is added to initialize as
	// capabilities.tasks (nil: none), serverTasks is the server's, as sent; the server's
	// tasks/* requests go to our middleware; notifyFn writes a notification of ours on
	// the connection (nil: Streamable HTTP, which POSTs it).
	clientTasks json.RawMessage
	serverTasks json.RawMessage
	// fileInputs adds fileInputs: {} to the capabilities we declare (files.go).
	fileInputs bool
	notifyFn   func(jsonrpc.Message) error
	created    map[string]json.RawMessage // 2026-07-28 CreateTaskResults by progress token
	// handoff holds, by taskId, the tool of each task a tools/call of ours created,
	// from the moment its response arrives until the caller notes the task (noteTask):
	// a server request the task raises in between still finds its call.
	handoff map[string]handoff
}

// outReq is a request we sent and have not seen answered.
type outReq struct {
	method, name string
	start        time.Time
	// ctx is the caller's context, when the connection hands it over (Streamable HTTP
	// does not: Background); told is set once a notifications/cancelled for the
	// request was written.
	// A request whose ctx ended and that is not told is owed a cancellation (owed.go).
	ctx    context.Context
	told   bool
	token  string // params._meta.progressToken of a tools/call
	task   bool   // a task-augmented tools/call (params.task)
	cursor string // params.cursor of a tools/list
}

// newOutReq is the record of a request we send with method and params.
func newOutReq(method string, params json.RawMessage) outReq {
	or := outReq{method: method, name: paramName(params), start: time.Now()}
	switch method {
	case "tools/call":
		or.token = progressTokenOf(params)
		if bytes.Contains(params, []byte(`"task"`)) {
			_, or.task = topSpans(params)["task"]
		}
	case "tools/list":
		or.cursor = paramCursor(params)
	}
	return or
}

func newTap(server string, log *wire.Log, discover time.Duration) *tap {
	return &tap{
		server:    server,
		log:       log,
		discover:  discover,
		inflight:  map[string]outReq{},
		cancelled: map[string]bool{},
		raws:      map[string][]json.RawMessage{},
		light:     map[string]json.RawMessage{},
		states:    map[string]json.RawMessage{},
		answered:  map[string]bool{},
		refused:   map[string]string{},
	}
}

// idKey returns a map key for a JSON-RPC id ("" for none).
func idKey(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	switch v := id.Raw().(type) {
	case string:
		return "s:" + v
	default:
		return fmt.Sprintf("n:%v", v)
	}
}

// idText returns an id as shown in the log.
func idText(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	return fmt.Sprint(id.Raw())
}

// out handles a message we are about to send; it returns the message to send, or nil
// to send nothing. It logs the message (encoding it): for connections whose bytes are
// logged where they are written, see outState.
func (t *tap) out(ctx context.Context, msg jsonrpc.Message) jsonrpc.Message {
	m := t.outState(ctx, msg)
	if m == nil {
		return nil
	}
	switch m := m.(type) {
	case *jsonrpc.Request:
		t.logMsg(wire.Out, m, m.Method, idText(m.ID), 0)
	case *jsonrpc.Response:
		t.logMsg(wire.Out, m, "", idText(m.ID), 0)
	}
	return m
}

// outState is out without the log entry: the bookkeeping of a message we are about to
// send, and the requestState splice. ctx is the sender's context, or Background.
func (t *tap) outState(ctx context.Context, msg jsonrpc.Message) jsonrpc.Message {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		t.taskOut(m)
		t.filesOut(m)
		if m.IsCall() {
			t.mu.Lock()
			or := newOutReq(m.Method, m.Params)
			or.ctx = ctx
			t.inflight[idKey(m.ID)] = or
			if len(m.Params) > 0 {
				m.Params = t.spliceState(m.Params)
			}
			t.mu.Unlock()
			t.watchDiscover(m.Method, m.ID)
		}
		return m
	case *jsonrpc.Response:
		reason, refused := t.takeRefused(m.ID)
		if t.dropOurResponse(m.ID) {
			return nil
		}
		if refused {
			return &jsonrpc.Response{ID: m.ID, Error: refusedError(reason)}
		}
		return m
	}
	return msg
}

// watchDiscover arms the server/discover deadline for a request we send.
func (t *tap) watchDiscover(method string, id jsonrpc.ID) {
	if method == "server/discover" && t.discover > 0 && t.injectFn != nil {
		time.AfterFunc(t.discover, func() { t.expireDiscover(id) })
	}
}

// dropOurResponse settles the server request id we answer and reports whether the
// answer must be dropped (the server cancelled the request).
func (t *tap) dropOurResponse(id jsonrpc.ID) bool {
	key := idKey(id)
	t.mu.Lock()
	drop := t.cancelled[key]
	delete(t.cancelled, key)
	t.settle(key)
	t.mu.Unlock()
	if drop {
		t.log.Notef(t.server, "dropped our response to request %s: the server cancelled it", idText(id))
	}
	return drop
}

// outRaw is out for a message we send as bytes (Streamable HTTP): it returns the bytes
// to send (raw, or raw with the requestState spliced), or nil to send nothing.
func (t *tap) outRaw(raw []byte, env *jsonrpcio.Envelope) []byte {
	if !env.IsRequest() {
		reason, refused := t.takeRefused(env.ID)
		if t.dropOurResponse(env.ID) {
			return nil
		}
		if refused {
			if b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: env.ID, Error: refusedError(reason)}); err == nil {
				raw = b
			}
		}
		t.logRaw(wire.Out, raw, "", idText(env.ID), 0)
		return raw
	}
	if env.Method == methodTaskCall || env.Method == "initialize" || (t.fileInputs && env.IsCall()) {
		// Requests the tap edits for tasks (taskOut), rare: decoded, edited, encoded.
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			if m := t.out(context.Background(), msg); m == nil { // no caller context: nothing is ever owed
				return nil
			} else if b, err := jsonrpc.EncodeMessage(m); err == nil {
				return b
			}
		}
	}
	if env.IsCall() {
		t.mu.Lock()
		t.inflight[idKey(env.ID)] = newOutReq(env.Method, env.Params)
		if len(env.Params) > 0 {
			if p := t.spliceState(env.Params); &p[0] != &env.Params[0] || len(p) != len(env.Params) {
				at := env.ParamsEnd - len(env.Params)
				out := make([]byte, 0, len(raw)-len(env.Params)+len(p))
				out = append(out, raw[:at]...)
				out = append(out, p...)
				raw = append(out, raw[env.ParamsEnd:]...)
			}
		}
		t.mu.Unlock()
		t.watchDiscover(env.Method, env.ID)
	}
	t.logRaw(wire.Out, raw, env.Method, idText(env.ID), 0)
	return raw
}

// ask marks the server request key waiting for our answer; t.mu is held.
func (t *tap) ask(key string) {
	if t.asked == nil {
		t.asked = map[string]bool{}
	}
	if len(t.asked) == 0 {
		t.askedDone = make(chan struct{})
	}
	t.asked[key] = true
}

// settle marks the server request key answered (or given up); t.mu is held.
func (t *tap) settle(key string) {
	if !t.asked[key] {
		return
	}
	delete(t.asked, key)
	if len(t.asked) == 0 && t.askedDone != nil {
		close(t.askedDone)
		t.askedDone = nil
	}
}

// awaitAnswered waits until every request the server sent has been answered (or
// withdrawn by the server), or until d has passed.
func (t *tap) awaitAnswered(d time.Duration) {
	t.mu.Lock()
	done := t.askedDone
	t.mu.Unlock()
	if done == nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// in handles a message that arrived as a decoded message (in-memory and legacy HTTP+SSE
// connections); it returns the message to deliver, or nil to drop it.
func (t *tap) in(msg jsonrpc.Message) jsonrpc.Message {
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return msg
	}
	env, err := jsonrpcio.ParseEnvelope(raw)
	if err != nil {
		return msg
	}
	out := t.inRaw(raw, &env)
	switch {
	case out == nil:
		return nil
	case len(out) == len(raw) && &out[0] == &raw[0]:
		return msg
	}
	m, err := jsonrpc.DecodeMessage(out)
	if err != nil {
		return msg
	}
	return m
}

// inRaw handles a message that arrived, as the bytes received and their envelope: it
// returns the bytes to deliver (raw itself, or a local replacement), or nil to drop the
// message. It decodes nothing but what it keeps: the message is decoded once, by go-sdk.
// raw is what parseEnvelope accepted (env), so valid JSON.
func (t *tap) inRaw(raw []byte, env *jsonrpcio.Envelope) []byte {
	if !env.IsRequest() {
		key := idKey(env.ID)
		t.mu.Lock()
		if t.answered[key] {
			delete(t.answered, key)
			t.mu.Unlock()
			t.logRaw(wire.In, raw, "", idText(env.ID), 0)
			t.log.Notef(t.server, "dropped late response to request %s", idText(env.ID))
			return nil
		}
		req, ok := t.inflight[key]
		delete(t.inflight, key)
		t.checkOwed()
		if req.task && !env.IsError() {
			t.keepHandoff(req.name, env.Result)
		}
		t.mu.Unlock()
		var lat time.Duration
		if ok {
			lat = time.Since(req.start)
		}
		t.logRaw(wire.In, raw, req.method, idText(env.ID), lat)
		if !env.IsError() && req.method == "tools/list" && t.toolsList != nil && len(env.Result) > 0 {
			if light := t.toolsList(req.cursor, env.Result); light != nil {
				// go-sdk gets the light result; the wire log above keeps what was sent.
				at := env.ResultEnd - len(env.Result)
				out := make([]byte, 0, at+len(light)+len(raw)-env.ResultEnd)
				out = append(out, raw[:at]...)
				out = append(out, light...)
				raw = append(out, raw[env.ResultEnd:]...)
				env.Result, env.ResultEnd = raw[at:at+len(light)], at+len(light)
			}
		}
		if !env.IsError() && req.method == "initialize" {
			t.noteServerTasks(env.Result)
		}
		if !env.IsError() && len(env.Result) > 0 {
			if bad := t.noteResult(env.Result); bad == `"task"` && req.method == "tools/call" {
				// A 2026-07-28 tasks-extension CreateTaskResult: the call polls it.
				t.mu.Lock()
				t.keepCreatedTask(req.token, env.Result)
				t.keepHandoff(req.name, env.Result)
				t.mu.Unlock()
			} else if bad != "" {
				t.log.Notef(t.server, "response %s has unknown resultType %s; treated as an error", idText(env.ID), bad)
				b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: env.ID, Error: &jsonrpc.Error{
					Code:    jsonrpc.CodeInternalError,
					Message: "invalid result: unknown resultType " + bad,
				}})
				return b
			}
		}
		return raw
	}
	t.logRaw(wire.In, raw, env.Method, idText(env.ID), 0)
	t.mu.Lock()
	serve := t.clientTasks != nil // we run tasks for the server (taskserve.go)
	t.mu.Unlock()
	if env.IsCall() {
		t.mu.Lock()
		t.ask(idKey(env.ID))
		t.mu.Unlock()
		if serve && servedTaskMethod(env.Method) {
			// A tasks/* request we serve: decoded and sent on as a ping (taskserve.go).
			if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
				if rq, ok := msg.(*jsonrpc.Request); ok {
					if b, err := jsonrpc.EncodeMessage(disguiseTaskRequest(rq)); err == nil {
						return b
					}
				}
			}
		}
	}
	switch env.Method {
	case "elicitation/create":
		if light := t.keepRaw(env.Params, true, env.Owned); light != nil {
			// go-sdk decodes the light params; the middleware answers with the kept ones.
			at := env.ParamsEnd - len(env.Params)
			out := make([]byte, 0, at+len(light)+len(raw)-env.ParamsEnd)
			out = append(out, raw[:at]...)
			out = append(out, light...)
			return append(out, raw[env.ParamsEnd:]...)
		}
	case methodSampling:
		if env.IsCall() {
			// Over the bounds: refused before go-sdk decodes every message of it.
			if reason := samplingTooLarge(env.Params); reason != "" {
				return t.refuse(env.ID, reason)
			}
		}
		if serve && env.IsCall() {
			if b := carrySamplingTask(raw, env); b != nil {
				return b
			}
		}
	case notificationCancelled:
		if key, ok := cancelledKey(env.Params); ok {
			t.mu.Lock()
			t.cancelled[key] = true
			t.settle(key)
			t.mu.Unlock()
		}
	}
	return raw
}

// dropFrame handles a message dropped unread (over jsonrpcio.MaxFrame, or not decodable) whose id
// could be told, and returns the message to hand go-sdk in its place (nil: none). A
// response fails our request with reason (dropResponse). A server request is refused:
// go-sdk answers its stand-in, and that answer leaves as an error saying why (refuse).
func (t *tap) dropFrame(id jsonrpc.ID, request bool, reason string) []byte {
	if request {
		return t.refuse(id, reason)
	}
	t.dropResponse(id, reason)
	return nil
}

// refuse notes that the server request id was dropped unread for reason and returns
// its stand-in: a request of the same id for refuseMethod, which go-sdk answers with an
// error that out and outRaw replace with refusedError(reason). Without an answer, the
// server would wait for one until it gave up, and so would the call that led to it.
func (t *tap) refuse(id jsonrpc.ID, reason string) []byte {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: refuseMethod})
	if err != nil {
		return nil
	}
	key := idKey(id)
	t.mu.Lock()
	t.refused[key] = reason
	t.ask(key)
	t.mu.Unlock()
	t.log.Notef(t.server, "refused request %q unread: %s", idText(id), reason)
	if t.onRefused != nil {
		t.onRefused(reason)
	}
	return b
}

// takeRefused reports whether id is a server request refused unread, and why; the
// record goes with the answer.
func (t *tap) takeRefused(id jsonrpc.ID) (string, bool) {
	key := idKey(id)
	t.mu.Lock()
	defer t.mu.Unlock()
	reason, ok := t.refused[key]
	delete(t.refused, key)
	return reason, ok
}

// dropResponse fails the request id locally: its response arrived but was dropped unread
// (over jsonrpcio.MaxFrame, or not decodable), so the call ends with reason instead of waiting.
func (t *tap) dropResponse(id jsonrpc.ID, reason string) {
	t.mu.Lock()
	inject := t.injectFn
	t.mu.Unlock()
	if t.dropped(id, reason) && inject != nil {
		inject(droppedResponse(id, reason))
	}
}

// dropped notes that the response to id was dropped unread and reports whether id was
// a request of ours still waiting.
func (t *tap) dropped(id jsonrpc.ID, reason string) bool {
	key := idKey(id)
	t.mu.Lock()
	_, pending := t.inflight[key]
	delete(t.inflight, key)
	t.checkOwed()
	t.mu.Unlock()
	t.log.Notef(t.server, "dropped the response to request %q: %s", idText(id), reason)
	return pending
}

// expireDiscover answers an unanswered server/discover locally so go-sdk falls back to
// initialize (docs/protocol.md, "Negotiation").
func (t *tap) expireDiscover(id jsonrpc.ID) {
	key := idKey(id)
	t.mu.Lock()
	_, pending := t.inflight[key]
	if pending {
		delete(t.inflight, key)
		t.answered[key] = true
		t.checkOwed()
	}
	t.mu.Unlock()
	if !pending {
		return
	}
	t.log.Notef(t.server, "server/discover unanswered after %s; falling back to initialize", t.discover)
	resp := discoverTimeoutResponse(id, t.discover)
	if !t.injectFn(resp) {
		t.mu.Lock()
		delete(t.answered, key)
		t.mu.Unlock()
	}
}

func discoverTimeoutResponse(id jsonrpc.ID, d time.Duration) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("server/discover timed out after %s", d),
	}}
}

// noteResult keeps what go-sdk loses from a result: the raw requestState token and the
// raw params of inputRequests entries. It returns the raw resultType when unknown.
func (t *tap) noteResult(result json.RawMessage) (badType string) {
	if !bytes.Contains(result, []byte(`"resultType"`)) && !bytes.Contains(result, []byte(`"requestState"`)) &&
		!bytes.Contains(result, []byte(`"inputRequests"`)) {
		return ""
	}
	f := topFields(result)
	if rt, ok := f["resultType"]; ok {
		var s string
		if json.Unmarshal(rt, &s) != nil || (s != "complete" && s != "input_required") {
			badType = string(rt)
		}
	}
	if tok, ok := f["requestState"]; ok {
		var s string
		if json.Unmarshal(tok, &s) == nil {
			t.mu.Lock()
			if len(t.states) >= maxKept {
				clear(t.states)
			}
			t.states[s] = append(json.RawMessage(nil), tok...)
			t.mu.Unlock()
		}
	}
	if ir, ok := f["inputRequests"]; ok {
		var entries map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(ir, &entries) == nil {
			for _, e := range entries {
				if e.Method == "elicitation/create" {
					t.keepRaw(e.Params, false, false)
				}
			}
		}
	}
	return badType
}

// spliceState replaces the requestState go-sdk re-encoded with the token exactly as the
// server sent it. t.mu is held.
func (t *tap) spliceState(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"requestState"`)) {
		return params
	}
	spans := topSpans(params)
	sp, ok := spans["requestState"]
	if !ok {
		return params
	}
	var s string
	if json.Unmarshal(params[sp.start:sp.end], &s) != nil {
		return params
	}
	tok, ok := t.states[s]
	if !ok || bytes.Equal(tok, params[sp.start:sp.end]) {
		return params
	}
	out := make(json.RawMessage, 0, len(params)+len(tok))
	out = append(out, params[:sp.start]...)
	out = append(out, tok...)
	return append(out, params[sp.end:]...)
}

// canonicalElicit returns the form go-sdk gives an ElicitParams when it re-encodes it.
func canonicalElicit(p *mcp.ElicitParams) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	return string(b)
}

// elicitKey is what tells elicitation params apart without decoding their schema: the
// message, mode, elicitation id and URL.
func elicitKey(message, mode, id, url string) string {
	return message + "\x00" + mode + "\x00" + id + "\x00" + url
}

// lightParams is the size of elicitation params above which go-sdk gets light params
// (keepRaw): their schema is read from the bytes received, by elicit.Parse, and go-sdk's
// decoding of it into maps (a million-option enum: a million interface values) would only
// be thrown away.
const lightParams = 64 << 10

// lightKey is the member of the placeholder schema of light params that names the kept
// params (tap.light).
const lightKey = "x-elicitty-params"

// keepRaw remembers raw elicitation params under their elicitKey, read from the raw
// members without decoding the schema. With lighten, params over lightParams are kept
// under a token instead, and keepRaw returns them with the requestedSchema replaced by a placeholder
// object naming the token (nil for params kept as they are): go-sdk decodes those;
// rawParams reads them once. own says nobody writes raw's bytes again (envelope.own):
// light params are then kept as they are, not copied.
// raw is valid JSON (a member of a message parseEnvelope or json.Unmarshal read).
func (t *tap) keepRaw(raw json.RawMessage, lighten, own bool) json.RawMessage {
	f := spansOf(raw)
	if f == nil {
		return nil
	}
	str := func(k string) string {
		if sp, ok := f[k]; ok {
			return jsonrpcio.JSONString(raw[sp.start:sp.end])
		}
		return ""
	}
	key := elicitKey(str("message"), str("mode"), str("elicitationId"), str("url"))
	t.mu.Lock()
	defer t.mu.Unlock()
	if sc, ok := f["requestedSchema"]; ok && lighten && len(raw) > lightParams && raw[sc.start] == '{' {
		if t.kept >= maxKept || t.light == nil {
			t.clearKept()
		}
		t.lightSeq++
		tok := strconv.FormatUint(t.lightSeq, 10)
		if own {
			t.light[tok] = raw[:len(raw):len(raw)]
		} else {
			t.light[tok] = append(json.RawMessage(nil), raw...)
		}
		t.kept++
		ph := `{"type":"object","` + lightKey + `":"` + tok + `"}`
		out := make(json.RawMessage, 0, len(raw)-(sc.end-sc.start)+len(ph))
		out = append(out, raw[:sc.start]...)
		out = append(out, ph...)
		return append(out, raw[sc.end:]...)
	}
	for _, r := range t.raws[key] {
		if bytes.Equal(r, raw) {
			return nil
		}
	}
	if t.kept >= maxKept {
		t.clearKept()
	}
	t.raws[key] = append(t.raws[key], append(json.RawMessage(nil), raw...))
	t.kept++
	return nil
}

// clearKept forgets every kept params; t.mu is held.
func (t *tap) clearKept() {
	clear(t.raws)
	t.light = map[string]json.RawMessage{}
	t.kept = 0
}

// rawParams returns the raw params go-sdk decoded into p, or nil when unknown. Light
// params (keepRaw) name theirs; otherwise, only when several kept params share p's
// message, mode, id and URL are their schemas compared, in the form go-sdk re-encodes
// them.
func (t *tap) rawParams(p *mcp.ElicitParams) json.RawMessage {
	if sc, ok := p.RequestedSchema.(map[string]any); ok && len(sc) == 2 {
		if tok, ok := sc[lightKey].(string); ok {
			// Read once: the middleware asks for each request's params once, and a big
			// schema must not outlive its request.
			t.mu.Lock()
			r := t.light[tok]
			delete(t.light, tok)
			t.mu.Unlock()
			if r != nil {
				return r
			}
		}
	}
	key := elicitKey(p.Message, p.Mode, p.ElicitationID, p.URL)
	t.mu.Lock()
	cands := t.raws[key]
	t.mu.Unlock()
	if len(cands) == 1 {
		return cands[0]
	}
	want := canonicalElicit(p)
	for i := len(cands) - 1; i >= 0; i-- {
		var q mcp.ElicitParams
		if json.Unmarshal(cands[i], &q) == nil && canonicalElicit(&q) == want {
			return cands[i]
		}
	}
	return nil
}

// callsInFlight returns the tools/call, prompts/get and resources/read requests pending.
func (t *tap) callsInFlight() []outReq {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []outReq
	for _, r := range t.inflight {
		switch r.method {
		case "tools/call", "prompts/get", "resources/read":
			out = append(out, r)
		}
	}
	return out
}

func (t *tap) logMsg(dir wire.Dir, msg jsonrpc.Message, method, id string, lat time.Duration) {
	if t.log == nil {
		return
	}
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.log.Notef(t.server, "cannot encode %s message: %v", dir, err)
		return
	}
	t.logRaw(dir, raw, method, id, lat)
}

// logRaw logs a message as the bytes sent or received (the log copies them); raw is
// valid JSON (a message parseEnvelope read or go-sdk encoded), so the log does not check
// it a second time: a big message is read once.
func (t *tap) logRaw(dir wire.Dir, raw []byte, method, id string, lat time.Duration) {
	if t.log == nil {
		return
	}
	t.log.AppendValid(wire.Entry{Server: t.server, Dir: dir, Method: method, ID: id, Size: len(raw), Latency: lat, Raw: raw})
}

// paramCursor returns params.cursor ("" when absent or not a string).
func paramCursor(params json.RawMessage) string {
	if len(params) == 0 || !bytes.Contains(params, []byte(`"cursor"`)) {
		return ""
	}
	sp, ok := topSpans(params)["cursor"]
	if !ok {
		return ""
	}
	return jsonrpcio.JSONString(params[sp.start:sp.end])
}

// paramName returns params.name or params.uri, for the log and for elicit.Request.Tool.
func paramName(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if p.Name != "" {
		return p.Name
	}
	return p.URI
}

// span is a byte range of a JSON value.
type span struct{ start, end int }

// topSpans returns the byte ranges of the top-level members of a JSON object (nil when
// obj is not a valid JSON object). A repeated key keeps its last occurrence. It reads
// the object in one pass without decoding the values.
func topSpans(obj []byte) map[string]span {
	if !json.Valid(obj) {
		return nil
	}
	return spansOf(obj)
}

// spansOf is topSpans for JSON known to be valid.
func spansOf(obj []byte) map[string]span {
	s := jsonrpcio.Scanner{B: obj}
	s.Space()
	if !s.Eat('{') {
		return nil
	}
	out := map[string]span{}
	s.Space()
	for !s.Eat('}') {
		s.Space()
		ks := s.Pos
		key := jsonrpcio.JSONString(obj[ks:s.SkipString()])
		s.Space()
		s.Eat(':')
		s.Space()
		vs := s.Pos
		s.SkipValue()
		out[key] = span{vs, s.Pos}
		s.Space()
		s.Eat(',')
	}
	return out
}

// topFields returns the raw top-level members of a JSON object, as sent.
func topFields(obj []byte) map[string]json.RawMessage {
	spans := topSpans(obj)
	if spans == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(spans))
	for k, s := range spans {
		out[k] = json.RawMessage(obj[s.start:s.end])
	}
	return out
}

// tapTransport wraps an mcp.Transport whose connections can be wrapped (stdio,
// in-memory, legacy HTTP+SSE; not Streamable HTTP, which needs go-sdk's private session
// hooks).
type tapTransport struct {
	inner mcp.Transport
	tap   *tap
	// inject, when set, delivers a local message to the reader: then the tap already
	// saw and logged every message as bytes on the wire (stdio: filterLines and
	// tapWriter), and the connection only keeps the books of what we send.
	inject func(jsonrpc.Message) bool
}

// Connect implements mcp.Transport.
func (tt *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if tt.inject != nil {
		tt.tap.mu.Lock()
		tt.tap.injectFn = tt.inject
		tt.tap.mu.Unlock()
		return &wireConn{Connection: c, tap: tt.tap}, nil
	}
	tc := &tapConn{inner: c, tap: tt.tap, msgs: make(chan readResult, 16), inject: make(chan jsonrpc.Message, 4), done: make(chan struct{})}
	tt.tap.mu.Lock()
	tt.tap.injectFn = tc.deliver
	tt.tap.notifyFn = func(m jsonrpc.Message) error { return tc.Write(context.Background(), m) }
	tt.tap.mu.Unlock()
	return tc, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// tapConn is an mcp.Connection that passes every message through a tap.
type tapConn struct {
	inner     mcp.Connection
	tap       *tap
	startOnce sync.Once
	closeOnce sync.Once
	msgs      chan readResult
	inject    chan jsonrpc.Message
	done      chan struct{}
}

func (c *tapConn) deliver(m jsonrpc.Message) bool {
	select {
	case c.inject <- m:
		return true
	case <-c.done:
		return false
	}
}

func (c *tapConn) pump() {
	for {
		msg, err := c.inner.Read(context.Background())
		if err == nil {
			if msg = c.tap.in(msg); msg == nil {
				continue
			}
		}
		select {
		case c.msgs <- readResult{msg, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements mcp.Connection.
func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.startOnce.Do(func() { go c.pump() })
	select {
	case m := <-c.inject:
		return m, nil
	case r := <-c.msgs:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, mcp.ErrConnectionClosed
	}
}

// Write implements mcp.Connection.
func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if msg = c.tap.out(ctx, msg); msg == nil {
		return nil
	}
	err := c.inner.Write(ctx, msg)
	c.tap.written(msg, err)
	return err
}

// Close implements mcp.Connection.
func (c *tapConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return c.inner.Close()
}

// SessionID implements mcp.Connection.
func (c *tapConn) SessionID() string { return c.inner.SessionID() }

// wireConn is the mcp.Connection of a transport whose bytes the tap sees on the wire
// (stdio): reads go straight to go-sdk, writes only update the tap's books.
type wireConn struct {
	mcp.Connection
	tap *tap
}

// Write implements mcp.Connection.
func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if msg = c.tap.outState(ctx, msg); msg == nil {
		return nil
	}
	err := c.Connection.Write(ctx, msg)
	c.tap.written(msg, err)
	return err
}

// tapWriter logs each message go-sdk writes (one whole message and its newline a
// Write) as the bytes sent.
type tapWriter struct {
	w   io.WriteCloser
	tap *tap
}

// Write implements io.Writer.
func (w *tapWriter) Write(p []byte) (int, error) {
	msg := bytes.TrimRight(p, "\n")
	if env, err := jsonrpcio.ParseEnvelope(msg); err == nil {
		w.tap.logRaw(wire.Out, msg, env.Method, idText(env.ID), 0)
	} else if w.tap.log != nil {
		w.tap.log.Append(wire.Entry{Server: w.tap.server, Dir: wire.Out, Size: len(msg), Raw: msg}) // checked there
	}
	return w.w.Write(p)
}

// Close implements io.Closer.
func (w *tapWriter) Close() error { return w.w.Close() }
