package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/safe"
)

// This file keeps a person's answer alive past the host's patience. A host gives up on
// a request after its own timeout (60 s in the TypeScript SDK) and an agent then sends
// the same call again; a person may take minutes. So a call the proxy asked a person
// about is kept when the host cancels it: the server is not told, the question stays
// open, and the host's next identical call (same method, same params but _meta) is
// joined to it instead of running the tool again. Its response goes to every host
// request still waiting for it, or, with none, is kept for the next identical call.
// While a question waits, each waiting request that carried a progressToken gets
// notifications/progress, so hosts that reset their timeout on progress keep waiting.

// Why the proxy stopped a question it asked for a host's call (the inbox shows it).
var (
	errHostCancelled = errors.New("the host cancelled the call")
	errHostGone      = errors.New("the host gave up on the call and did not call again")
	errCallEnded     = errors.New("the call it was asked for has ended")
	errServerGone    = errors.New("cancelled by the server")
	errStopped       = errors.New("the proxy stopped")
)

// progressMessage is what the proxy's progress notifications say.
const progressMessage = "waiting for a person to answer in elicitty inbox"

// hostReq is a host request waiting for the response of a call it was joined to.
type hostReq struct {
	id    jsonrpc.ID
	raw   []byte          // the id as the host sent it
	token json.RawMessage // its params._meta.progressToken, nil when none
}

// hasLive reports whether a host request waits for c's response; the caller holds p.mu.
func (c *call) hasLive() bool { return !c.gone || len(c.joined) > 0 }

// signature is what makes two host requests the same call: the method and the params
// in canonical JSON (keys sorted), without _meta and the 2026-07-28 members the proxy
// or the round adds (inputResponses, requestState); "" when params cannot be read.
func signature(method string, line []byte) string {
	env, err := jsonrpcio.ParseEnvelope(line)
	if err != nil {
		return ""
	}
	m := map[string]any{}
	if ps := env.Params; len(ps) > 0 && string(ps) != "null" {
		d := json.NewDecoder(bytes.NewReader(ps))
		d.UseNumber()
		if d.Decode(&m) != nil || m == nil {
			return ""
		}
	}
	delete(m, "_meta")
	delete(m, "inputResponses")
	delete(m, "requestState")
	b, err := json.Marshal(m) // map keys sorted: canonical
	if err != nil {
		return ""
	}
	return method + "\n" + string(b)
}

// progressToken returns params._meta.progressToken of a request line, nil when none.
func progressToken(line []byte) json.RawMessage {
	if !bytes.Contains(line, []byte(`"progressToken"`)) {
		return nil
	}
	env, err := jsonrpcio.ParseEnvelope(line)
	if err != nil {
		return nil
	}
	var ps struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(env.Params, &ps) != nil {
		return nil
	}
	t := ps.Meta.ProgressToken
	if len(t) == 0 || string(t) == "null" || (t[0] != '"' && (t[0] < '0' || t[0] > '9') && t[0] != '-') {
		return nil
	}
	return t
}

// tokenKey is the lookup key of a raw progress token, whatever its spacing.
func tokenKey(raw []byte) string {
	id, err := decodeID(raw)
	if err != nil {
		return ""
	}
	return idKey(id)
}

// withID returns the response msg under the id raw (a host request joined to the
// call msg answers).
func withID(msg, raw []byte) []byte {
	env, err := jsonrpcio.ParseEnvelope(msg)
	old := env.IDRaw
	if err != nil || old == nil {
		return msg
	}
	start := cap(msg) - cap(old) // old is a slice of msg
	out := make([]byte, 0, len(msg)-len(old)+len(raw))
	out = append(out, msg[:start]...)
	out = append(out, raw...)
	return append(out, msg[start+len(old):]...)
}

// questionStarted notes that a person is asked, until deadline, for the host's call c:
// from now on c outlives the host's cancellation and an identical call joins it.
func (p *Proxy) questionStarted(c *call, deadline time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !c.asked {
		c.asked = true
		if c.name != "" {
			c.sig = signature(c.method, c.line)
		}
		if c.sig != "" && !c.cancelled {
			p.bySig[c.sig] = c
			p.nSig.Store(int32(len(p.bySig)))
		}
	}
	c.asking++
	c.keepUntil = later(c.keepUntil, deadline)
}

// questionEnded notes that a question asked for c ended, answered or not: c is kept
// for Options.Keep more, for its response.
func (p *Proxy) questionEnded(c *call) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.asking--
	c.keepUntil = later(c.keepUntil, time.Now().Add(p.opts.Keep))
	if !c.hasLive() {
		p.scheduleLocked(c)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// scheduleLocked arms c's expiry at c.keepUntil; the caller holds p.mu.
func (p *Proxy) scheduleLocked(c *call) {
	d := time.Until(c.keepUntil)
	if c.timer == nil {
		c.timer = time.AfterFunc(d, func() { p.expire(c) })
		return
	}
	c.timer.Reset(d)
}

// forgetLocked stops c being joinable; the caller holds p.mu.
func (p *Proxy) forgetLocked(c *call) {
	if c.sig != "" && p.bySig[c.sig] == c {
		delete(p.bySig, c.sig)
		p.nSig.Store(int32(len(p.bySig)))
	}
	for _, h := range c.joined {
		if p.joinedIDs[idKey(h.id)] == c {
			delete(p.joinedIDs, idKey(h.id))
		}
	}
	for _, key := range c.sentTo {
		if p.joinedIDs[key] == c {
			delete(p.joinedIDs, key)
		}
	}
	if c.timer != nil {
		c.timer.Stop()
	}
}

// expire ends a kept call nobody came back for: a call still running is cancelled at
// the server (its questions withdrawn), a kept response dropped.
func (p *Proxy) expire(c *call) {
	p.mu.Lock()
	if c.cancelled || (c.hasLive() && !c.done) || p.closing || p.ctx.Err() != nil || c.asking > 0 {
		p.mu.Unlock() // joined again, or a question still open: its end re-arms this
		return
	}
	if time.Now().Before(c.keepUntil) {
		p.scheduleLocked(c)
		p.mu.Unlock()
		return
	}
	c.cancelled = true
	p.forgetLocked(c)
	p.dropHeldLocked(c)
	running := !c.done
	if running && p.pending[idKey(c.id)] == c {
		delete(p.pending, idKey(c.id))
	}
	cancel, stops := c.cancel, c.stops
	c.stops = nil
	p.mu.Unlock()
	if cancel != nil {
		cancel(errHostGone)
	}
	for _, stop := range stops {
		stop(errHostGone)
	}
	if !running {
		if len(c.sentTo) == 0 {
			p.logf("dropped the kept response of %s %s: the host did not call it again", c.method, safe.Block(c.name))
		}
		return
	}
	p.logf("the host did not call %s %s again in time; cancelling it at the server", c.method, safe.Block(c.name))
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the host gave up on it"}}`, c.idRaw)
	if err := p.toServer(b); err != nil {
		p.logf("sending to the server: %v", err)
	}
}

// dropHeldLocked forgets c's kept response; the caller holds p.mu.
func (p *Proxy) dropHeldLocked(c *call) {
	p.heldBytes -= len(c.held)
	c.held = nil
}

// hostCancelled handles the host's notifications/cancelled; it returns the message to
// pass on to the server, nil for none. A call a person is asked about (or was) is kept
// (see above), its cancellation stopping at the proxy; any other call's cancellation
// stops the proxy's work on it and is passed on.
func (p *Proxy) hostCancelled(env *jsonrpcio.Envelope, msg []byte) []byte {
	var n struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(env.Params, &n) != nil || len(n.RequestID) == 0 {
		return msg
	}
	id, err := decodeID(n.RequestID)
	if err != nil {
		return msg
	}
	key := idKey(id)
	p.mu.Lock()
	if c := p.joinedIDs[key]; c != nil {
		// A request joined to a call (the server never saw its id), or one the
		// response was sent to.
		delete(p.joinedIDs, key)
		if c.done {
			// Cancelled as its response went out: the host dropped it unread, so it
			// stays kept for the host's next identical call.
			c.sentTo = slices.DeleteFunc(c.sentTo, func(k string) bool { return k == key })
			p.mu.Unlock()
			p.logf("the host gave up on %s %s as its response went out; the response is kept for its next identical call", c.method, safe.Block(c.name))
			return nil
		}
		for i, h := range c.joined {
			if idKey(h.id) == key {
				c.joined = append(c.joined[:i:i], c.joined[i+1:]...)
				break
			}
		}
		if !c.hasLive() {
			p.scheduleLocked(c)
		}
		until := c.keepUntil
		p.mu.Unlock()
		p.logf("the host gave up on %s %s again; still keeping it (until %s)", c.method, safe.Block(c.name), until.Format(time.TimeOnly))
		return nil
	}
	c := p.pending[key]
	if c == nil {
		p.mu.Unlock()
		return msg
	}
	if c.asked && !c.gone {
		c.gone = true
		if !c.hasLive() {
			p.scheduleLocked(c)
		}
		until := c.keepUntil
		p.mu.Unlock()
		p.logf("the host gave up on %s %s while a person is asked; keeping the call and its question for its next identical call (until %s)",
			c.method, safe.Block(c.name), until.Format(time.TimeOnly))
		return nil
	}
	if c.gone {
		p.mu.Unlock()
		return nil // a second cancellation of a kept call
	}
	c.cancelled = true
	delete(p.pending, key)
	cancel := c.cancel
	p.mu.Unlock()
	if cancel != nil {
		p.logf("the host cancelled %s %s; stopped answering for it", c.method, safe.Block(c.name))
		cancel(errHostCancelled)
	}
	return msg
}

// join joins the host's request c (line as sent) to a kept call with the same
// signature; it reports whether it did (then nothing goes to the server). A kept
// response is sent at once.
func (p *Proxy) join(c *call, line []byte) bool {
	sig := signature(c.method, line)
	if sig == "" {
		return false
	}
	h := hostReq{id: c.id, raw: c.idRaw, token: progressToken(line)}
	p.mu.Lock()
	k := p.bySig[sig]
	if k == nil || k.cancelled {
		p.mu.Unlock()
		return false
	}
	if k.done {
		held := k.held
		p.dropHeldLocked(k)
		k.cancelled = true // served, or taken: nothing more of it
		p.forgetLocked(k)
		if len(k.sentTo) > 0 || held == nil {
			p.mu.Unlock()
			return false // the host has its response: this is a new call
		}
		p.mu.Unlock()
		p.logf("the host called %s %s again: it gets the response kept for it (the tool ran once)", k.method, safe.Block(k.name))
		p.toHost(withID(held, h.raw))
		return true
	}
	key := idKey(c.id)
	if key == idKey(k.id) {
		k.gone = false // the same request again, under the id the server knows
	} else {
		k.joined = append(k.joined, h)
		p.joinedIDs[key] = k
	}
	p.mu.Unlock()
	p.logf("the host called %s %s again while a person is asked: joined to the call still running (the tool runs once)", k.method, safe.Block(k.name))
	return true
}

// deliver sends the final response msg of the kept call c (under the id the server
// knows) to every host request waiting for it; with none waiting it is kept for the
// host's next identical call, for Options.Keep.
func (p *Proxy) deliver(c *call, msg []byte) {
	p.mu.Lock()
	key := idKey(c.id)
	if p.pending[key] == c {
		delete(p.pending, key)
	}
	if !c.asked {
		p.mu.Unlock()
		p.toHost(msg)
		return
	}
	if c.cancelled {
		p.mu.Unlock()
		return
	}
	// The response is kept even when sent: a host whose cancellation crosses it drops
	// it unread (hostCancelled), and its next identical call gets it. What is kept is
	// bounded (maxHeldBytes): past it, a response sent is not kept, one nobody waits
	// for is dropped.
	c.done = true
	live := c.hasLive()
	if p.heldBytes+len(msg) <= maxHeldBytes {
		c.held = bytes.Clone(msg)
		p.heldBytes += len(c.held)
	} else if !live {
		c.cancelled = true
		p.forgetLocked(c)
		p.mu.Unlock()
		p.logf("dropped the response of %s %s, which ended while the host was away: too much is kept already", c.method, safe.Block(c.name))
		return
	}
	c.keepUntil = later(c.keepUntil, time.Now().Add(p.opts.Keep))
	p.scheduleLocked(c)
	stops := c.stops
	c.stops = nil
	if !live {
		until := c.keepUntil
		p.mu.Unlock()
		for _, stop := range stops {
			stop(errCallEnded)
		}
		p.logf("%s %s ended while the host was away; its response is kept for the host's next identical call (until %s)", c.method, safe.Block(c.name), until.Format(time.TimeOnly))
		return
	}
	original := !c.gone
	joined := c.joined
	if original {
		c.sentTo = append(c.sentTo, key)
		p.joinedIDs[key] = c
	}
	for _, h := range joined {
		c.sentTo = append(c.sentTo, idKey(h.id))
	}
	c.gone, c.joined = true, nil
	p.mu.Unlock()
	for _, stop := range stops {
		stop(errCallEnded)
	}
	if original {
		p.toHost(msg)
	}
	for _, h := range joined {
		p.toHost(withID(msg, h.raw))
	}
}

// progress tells each host request waiting for c that a person is being asked, with
// notifications/progress for those that carried a progressToken (hosts that reset
// their timeout on progress keep waiting). Values only grow, past the server's own.
func (p *Proxy) progress(c *call) {
	if p.opts.Progress < 0 {
		return
	}
	p.mu.Lock()
	var toks []json.RawMessage
	if !c.gone {
		if !c.tokenRead {
			c.token, c.tokenRead = progressToken(c.line), true
		}
		if c.token != nil {
			toks = append(toks, c.token)
		}
	}
	for _, h := range c.joined {
		if h.token != nil {
			toks = append(toks, h.token)
		}
	}
	msgs := make([][]byte, 0, len(toks))
	for _, t := range toks {
		v := max(c.prog, p.serverProgress[tokenKey(t)]) + 1
		c.prog = v
		msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%s,"message":%q}}`,
			t, strconv.FormatFloat(v, 'f', -1, 64), progressMessage))
	}
	p.mu.Unlock()
	for _, m := range msgs {
		p.toHost(m)
	}
}

// progressOf reads a server's notifications/progress once: the key of its
// progressToken (tokenKey) and its progress value; ok is false when either is missing
// or unreadable.
func progressOf(env *jsonrpcio.Envelope) (key string, progress float64, ok bool) {
	var n struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      *float64        `json:"progress"`
	}
	if json.Unmarshal(env.Params, &n) != nil || n.Progress == nil {
		return "", 0, false
	}
	key = tokenKey(n.ProgressToken)
	return key, *n.Progress, key != ""
}

// fanOutProgress passes the server's progress (value server, for the token of key k)
// for a call a person is asked about to every host request waiting for it, each under
// its own progressToken: the server tags it with the token of the request that started
// the call, which the host may have given up, so a request joined to the call (the
// host's call again after its timeout) would never see it. Values never fall below
// what the proxy sent before for the call. It reports whether the notification was
// handled (false: not such a call's; it goes on as the server sent it).
func (p *Proxy) fanOutProgress(env *jsonrpcio.Envelope, k string, server float64) bool {
	p.mu.Lock()
	var c *call
	for _, kc := range p.bySig {
		if !kc.tokenRead {
			kc.token, kc.tokenRead = progressToken(kc.line), true
		}
		if kc.token != nil && tokenKey(kc.token) == k {
			c = kc
			break
		}
	}
	if c == nil || len(c.joined) == 0 {
		p.mu.Unlock()
		return false // nobody but the original request waits: as the server sent it
	}
	var toks []json.RawMessage
	if !c.gone {
		toks = append(toks, c.token)
	}
	for _, h := range c.joined {
		if h.token != nil {
			toks = append(toks, h.token)
		}
	}
	v := server
	if v <= c.prog {
		v = c.prog + 1
	}
	c.prog = v
	p.mu.Unlock()
	// The server's other params (message, total) go along: only here, for a call
	// joined, are they read whole.
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil {
		return false
	}
	params["progress"] = json.RawMessage(strconv.FormatFloat(v, 'f', -1, 64))
	for _, t := range toks {
		params["progressToken"] = t
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
		if err != nil {
			continue
		}
		p.toHost(b)
	}
	return true
}

// noteProgress remembers the latest progress value the server sent for the token of
// key k, so the proxy's own progress for it keeps growing.
func (p *Proxy) noteProgress(k string, progress float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.serverProgress) >= maxKept {
		clear(p.serverProgress)
	}
	p.serverProgress[k] = max(p.serverProgress[k], progress)
}

// ownsServerRequest reports whether the server request id is one the proxy answers (or
// answered): a response from the host for it is refused.
func (p *Proxy) ownsServerRequest(id jsonrpc.ID) bool {
	key := idKey(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, open := p.pushes[key]
	return open || p.answered[key]
}

// noteAnsweredLocked remembers the id of a server request the proxy answered (a bounded
// number of them); the caller holds p.mu.
func (p *Proxy) noteAnsweredLocked(key string) {
	if len(p.answeredOrder) >= maxKept {
		delete(p.answered, p.answeredOrder[0])
		p.answeredOrder = p.answeredOrder[1:]
	}
	p.answered[key] = true
	p.answeredOrder = append(p.answeredOrder, key)
}
