package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// harness runs a Proxy between a fake host and a fake server, both driven by the test
// line by line.
type harness struct {
	t      *testing.T
	hostW  *io.PipeWriter // host -> proxy
	hostR  chan string    // proxy -> host
	srvW   *io.PipeWriter // server -> proxy
	srvR   chan string    // proxy -> server
	done   chan error
	cancel context.CancelFunc
	logMu  sync.Mutex
	logs   []string
}

// lines reads r's lines into a channel.
func lines(r io.Reader) chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				ch <- strings.TrimSuffix(l, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func start(t *testing.T, opts Options) *harness {
	t.Helper()
	return startPipe(t, opts, 0)
}

// startPipe is start with the server's lines bounded by pipeMax (0: the default).
func startPipe(t *testing.T, opts Options, pipeMax int) *harness {
	t.Helper()
	hostInR, hostInW := io.Pipe()
	hostOutR, hostOutW := io.Pipe()
	upR, upW := io.Pipe()     // server -> proxy
	downR, downW := io.Pipe() // proxy -> server
	h := &harness{t: t, hostW: hostInW, hostR: lines(hostOutR), srvW: upW, srvR: lines(downR), done: make(chan error, 1)}
	opts.Logf = func(format string, args ...any) {
		h.logMu.Lock()
		defer h.logMu.Unlock()
		h.logs = append(h.logs, fmt.Sprintf(format, args...))
	}
	if opts.Server == "" {
		opts.Server = "fake"
	}
	p := New(NewPipe(upR, downW, pipeMax, nil), opts)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		err := p.Run(ctx, hostInR, hostOutW)
		hostOutW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		hostInW.Close()
		upW.Close()
		cancel()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("the proxy did not end")
		}
	})
	return h
}

func (h *harness) host(msg string)   { h.t.Helper(); write(h.t, h.hostW, msg) }
func (h *harness) server(msg string) { h.t.Helper(); write(h.t, h.srvW, msg) }

func write(t *testing.T, w io.Writer, msg string) {
	t.Helper()
	if _, err := io.WriteString(w, msg+"\n"); err != nil {
		t.Fatalf("write %q: %v", msg, err)
	}
}

// next returns the next line from ch, failing after a while.
func (h *harness) next(ch chan string, who string) string {
	h.t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			h.t.Fatalf("%s: stream ended", who)
		}
		return l
	case <-time.After(nextWithin):
		h.t.Fatalf("%s got nothing within %s", who, nextWithin)
	}
	return ""
}

// nextWithin bounds the wait for a message the test expects: only a failing test waits
// it out, so it is generous enough for a 10 MB message relayed under the race detector
// on a loaded 2-core machine (5 s was not).
const nextWithin = 60 * time.Second

func (h *harness) hostGot() string   { h.t.Helper(); return h.next(h.hostR, "host") }
func (h *harness) serverGot() string { h.t.Helper(); return h.next(h.srvR, "server") }

// quiet checks that ch receives nothing for a moment.
func (h *harness) quiet(ch chan string, who string) {
	h.t.Helper()
	select {
	case l := <-ch:
		h.t.Fatalf("%s got %s, want nothing", who, l)
	case <-time.After(100 * time.Millisecond):
	}
}

func (h *harness) log() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return strings.Join(h.logs, "\n")
}

// decode decodes a JSON line into a generic value.
func decode(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON: %q: %v", line, err)
	}
	return m
}

// fields walks a decoded value by keys.
func fields(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// script answers each question with the response given for its mode and records it.
type script struct {
	mu    sync.Mutex
	asked []*elicit.Request
	form  elicit.Response
	url   elicit.Response
	block bool // wait for ctx instead of answering
	ctxs  chan error
}

func (s *script) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	s.mu.Lock()
	s.asked = append(s.asked, req)
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		if s.ctxs != nil {
			s.ctxs <- ctx.Err()
		}
		return elicit.Response{}, ctx.Err()
	}
	if req.Mode == elicit.ModeURL {
		return s.url, nil
	}
	return s.form, nil
}

func (s *script) requests() []*elicit.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*elicit.Request(nil), s.asked...)
}

const (
	initNoElicit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"host-x","version":"1"}}}`
	initBoth     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"host-y","version":"1"}}}`
	initResult   = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake-server","version":"1"}}}`
)

// handshake runs initialize with init and returns what the server received.
func (h *harness) handshake(init string) string {
	h.t.Helper()
	h.host(init)
	got := h.serverGot()
	h.server(initResult)
	if r := h.hostGot(); r != initResult {
		h.t.Fatalf("host got %s, want the result unchanged", r)
	}
	return got
}

// TestPassThroughByteExact: a host that declares both modes, and everything else
// relayed in both directions with its bytes unchanged (spacing, key order, escapes,
// ids of both kinds, notifications, requests to the host and their answers).
func TestPassThroughByteExact(t *testing.T) {
	h := start(t, Options{Answerer: &script{}})
	if got := h.handshake(initBoth); got != initBoth {
		t.Fatalf("server got %s, want the host's initialize unchanged", got)
	}
	toServer := []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{ "method" : "tools/list", "id" : "a\u0062", "jsonrpc":"2.0" , "params":{"_meta":{"progressToken":7}} }`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"s":"<&>é\u2028"}}}`,
		`{"jsonrpc":"2.0","id":"srv-9","result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}`,
	}
	toHost := []string{
		`{"jsonrpc":"2.0","id":"ab","result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":"srv-9","method":"roots/list","params":{"_meta":{"k":"v"}}}`,
		`{"jsonrpc":"2.0","id":"srv-10","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
		`{"jsonrpc":"2.0","id":11,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"srv-12","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{"x":1}}}`,
	}
	for _, m := range toServer {
		h.host(m)
		if got := h.serverGot(); got != m {
			t.Errorf("server got\n%s\nwant\n%s", got, m)
		}
	}
	for _, m := range toHost {
		h.server(m)
		if got := h.hostGot(); got != m {
			t.Errorf("host got\n%s\nwant\n%s", got, m)
		}
	}
}

// TestInitializeEdit: the host's initialize is edited only for the modes it lacks, and
// only its elicitation capability changes.
func TestInitializeEdit(t *testing.T) {
	for _, tc := range []struct {
		name, init string
		want       any // capabilities.elicitation the server gets
		same       bool
	}{
		{name: "none", init: initNoElicit, want: map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
		{name: "form only", init: strings.Replace(initNoElicit, `"roots":{"listChanged":true}`, `"elicitation":{"form":{}}`, 1),
			want: map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
		{name: "empty object means form", init: strings.Replace(initNoElicit, `"roots":{"listChanged":true}`, `"elicitation":{}`, 1),
			want: map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
		{name: "2025-06-18 gets the bare capability", init: strings.Replace(initNoElicit, "2025-11-25", "2025-06-18", 1),
			want: map[string]any{}},
		{name: "both", init: initBoth, same: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, Options{})
			h.host(tc.init)
			got := h.serverGot()
			if tc.same {
				if got != tc.init {
					t.Fatalf("server got %s, want it unchanged", got)
				}
				return
			}
			gm, hm := decode(t, got), decode(t, tc.init)
			if diff := cmp.Diff(tc.want, fields(gm, "params", "capabilities", "elicitation")); diff != "" {
				t.Errorf("elicitation (-want +got):\n%s", diff)
			}
			// Everything else as the host sent it.
			delete(fields(gm, "params", "capabilities").(map[string]any), "elicitation")
			delete(fields(hm, "params", "capabilities").(map[string]any), "elicitation")
			if diff := cmp.Diff(hm, gm); diff != "" {
				t.Errorf("rest of initialize (-host +server):\n%s", diff)
			}
		})
	}
}

// TestPushedForm: a form the host cannot show is answered by the proxy under the
// server's id, with the schema's defaults merged; the host sees only the tool result.
func TestPushedForm(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.host(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"signup","arguments":{}}}`)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"seats":{"type":"integer","default":2}},"required":["name"]}}}`)
	got := decode(t, h.serverGot())
	want := map[string]any{"jsonrpc": "2.0", "id": "e-1", "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "seats": float64(2)}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server got (-want +got):\n%s", diff)
	}
	h.quiet(h.hostR, "host")
	result := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"ok"}]}}`
	h.server(result)
	if r := h.hostGot(); r != result {
		t.Errorf("host got %s", r)
	}
	reqs := ans.requests()
	if len(reqs) != 1 {
		t.Fatalf("asked %d questions, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Host != "host-x" || r.ServerInfo != "fake-server" || r.Server != "fake" || r.Tool != "signup" || r.Call != "tools/call signup" ||
		r.Origin != elicit.OriginPush || r.Protocol != "2025-11-25" || r.Mode != elicit.ModeForm {
		t.Errorf("request = %+v", r)
	}
	if left := time.Until(r.Deadline); left <= 0 || left > DefaultWait {
		t.Errorf("deadline %v from now, want within the default wait", left)
	}
	if want := `{"type":"object","properties":{"name":{"type":"string"},"seats":{"type":"integer","default":2}},"required":["name"]}`; string(r.Schema) != want {
		t.Errorf("schema %s, want the server's bytes", r.Schema)
	}
}

// TestPushedFormHostDeclared: a host that declared form gets the form itself.
func TestPushedFormHostDeclared(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initBoth)
	push := `{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`
	h.server(push)
	if got := h.hostGot(); got != push {
		t.Fatalf("host got %s", got)
	}
	if n := len(ans.requests()); n != 0 {
		t.Errorf("the proxy asked %d questions itself", n)
	}
}

// TestAnswerHere: with AnswerHere the proxy answers even what the host declared, and
// leaves its initialize alone.
func TestAnswerHere(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Decline}}
	h := start(t, Options{Answerer: ans, AnswerHere: true})
	if got := h.handshake(initBoth); got != initBoth {
		t.Fatalf("initialize edited: %s", got)
	}
	h.server(`{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}` {
		t.Errorf("server got %s", got)
	}
}

// TestPushedURL: a URL request is answered by the proxy, and the server's completion
// notice for it stops at the proxy; other completions reach the host.
func TestPushedURL(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.server(`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/x","elicitationId":"el-1"}}`)
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}` {
		t.Errorf("server got %s", got)
	}
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-1"}}`)
	other := `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-2"}}`
	h.server(other)
	if got := h.hostGot(); got != other {
		t.Errorf("host got %s, want only the completion it may know", got)
	}
	if r := ans.requests(); len(r) != 1 || r[0].URL != "https://example.com/x" || r[0].ElicitationID != "el-1" || r[0].Mode != elicit.ModeURL {
		t.Errorf("requests %+v", r)
	}
}

const (
	call7     = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"needs_link","arguments":{},"_meta":{"progressToken":"p7"}}}`
	urlNeeded = `{"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","message":"Link","url":"https://example.com/link","elicitationId":"el-7"}]}}}`
)

// TestURLRequiredRetry: a -32042 is answered, its completion awaited and consumed, and
// the host's request sent again under its own id; the host sees only the result.
func TestURLRequiredRetry(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.host(call7)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("server got %s", got)
	}
	h.server(urlNeeded)
	h.quiet(h.srvR, "server before the completion")
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("retry %s, want the host's request as sent", got)
	}
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"linked"}]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s, want only the result", got)
	}
	if r := ans.requests(); len(r) != 1 || r[0].Origin != elicit.OriginURLRequired || r[0].Tool != "needs_link" || r[0].Index != 1 || r[0].Total != 1 {
		t.Errorf("requests %+v", r)
	}
}

// TestURLRequiredDeclined: a declined -32042 reaches the host unchanged, no retry.
func TestURLRequiredDeclined(t *testing.T) {
	h := start(t, Options{Answerer: &script{url: elicit.Response{Action: elicit.Decline}}})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s, want the error unchanged", got)
	}
	h.quiet(h.srvR, "server")
}

// TestURLRequiredHostDeclared: a host with URL mode handles its -32042 itself.
func TestURLRequiredHostDeclared(t *testing.T) {
	h := start(t, Options{Answerer: &script{url: elicit.Response{Action: elicit.Accept}}})
	h.handshake(initBoth)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s", got)
	}
}

const modernCall = `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"pick","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"modern-host","version":"2"}}}}`

// TestURLRequiredModernPassedOn: -32042 is 2025-11-25 only; one a server sends to a
// 2026-07-28 request reaches the host unchanged, with nothing asked and no retry.
func TestURLRequiredModernPassedOn(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.host(modernCall)
	h.serverGot()
	minus := `{"jsonrpc":"2.0","id":"c1","error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","message":"Link","url":"https://example.com/link","elicitationId":"el-1"}]}}}`
	h.server(minus)
	if got := h.hostGot(); got != minus {
		t.Errorf("host got %s, want the error unchanged", got)
	}
	h.quiet(h.srvR, "server")
	if r := ans.requests(); len(r) != 0 {
		t.Errorf("asked %d questions", len(r))
	}
}

// TestInputRequiredRound: a 2026-07-28 request declares its own capabilities; the
// proxy adds elicitation there, answers the round's elicitations and sends the request
// again with inputResponses and the requestState as the server sent it.
func TestInputRequiredRound(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Accept, Content: map[string]any{"colour": "red"}}}
	h := start(t, Options{Answerer: ans})
	h.host(modernCall)
	sent := decode(t, h.serverGot())
	caps := fields(sent, "params", "_meta", metaCaps)
	if diff := cmp.Diff(map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}, caps); diff != "" {
		t.Fatalf("declared capabilities (-want +got):\n%s", diff)
	}
	h.server(`{"jsonrpc":"2.0","id":"c1","result":{"resultType":"input_required","inputRequests":{"k1":{"method":"elicitation/create","params":{"mode":"form","message":"Colour?","requestedSchema":{"type":"object","properties":{"colour":{"type":"string"}}}}}},"requestState":"s<&>\u00e9"}}`)
	retry := h.serverGot()
	if !strings.Contains(retry, `"requestState":"s<&>\u00e9"`) {
		t.Errorf("retry %s does not echo requestState byte for byte", retry)
	}
	rm := decode(t, retry)
	if rm["id"] != "c1" || fields(rm, "params", "name") != "pick" {
		t.Errorf("retry %s: want the host's id and params", retry)
	}
	if diff := cmp.Diff(map[string]any{"k1": map[string]any{"action": "accept", "content": map[string]any{"colour": "red"}}}, fields(rm, "params", "inputResponses")); diff != "" {
		t.Errorf("inputResponses (-want +got):\n%s", diff)
	}
	h.quiet(h.hostR, "host")
	result := `{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"red"}]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s", got)
	}
	if r := ans.requests(); len(r) != 1 || r[0].Origin != elicit.OriginInputRequest || r[0].Key != "k1" || r[0].Host != "modern-host" || r[0].Protocol != "2026-07-28" {
		t.Errorf("requests %+v", *r[0])
	}
}

// TestInputRequiredSamplingPassesThrough: a round that also asks for sampling, which the
// host declared, goes to the host unchanged.
func TestInputRequiredSamplingPassesThrough(t *testing.T) {
	h := start(t, Options{Answerer: &script{}})
	h.host(modernCall)
	h.serverGot()
	res := `{"jsonrpc":"2.0","id":"c1","result":{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}},"b":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}}}}`
	h.server(res)
	if got := h.hostGot(); got != res {
		t.Errorf("host got %s", got)
	}
}

// TestHostCancelsRetry: a host's notifications/cancelled for a request the proxy is
// answering for stops at the proxy: the question stays open (the host's next identical
// call joins it, keep_test.go) and the server hears nothing.
func TestHostCancelsRetry(t *testing.T) {
	ans := &script{block: true, ctxs: make(chan error, 1)}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	waitAsked(t, ans, 1)
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	h.quiet(h.srvR, "server")
	h.quiet(h.hostR, "host")
	select {
	case err := <-ans.ctxs:
		t.Fatalf("the question ended (%v), want it kept", err)
	default:
	}
	if !strings.Contains(h.log(), "keeping the call and its question") {
		t.Errorf("log lacks the keep line:\n%s", h.log())
	}
}

// TestHostCancelsPlainCall: a call nobody is asked about is cancelled as before: the
// notification reaches the server.
func TestHostCancelsPlainCall(t *testing.T) {
	h := start(t, Options{Answerer: &script{}})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
	h.host(cancel)
	if got := h.serverGot(); got != cancel {
		t.Fatalf("server got %s, want the cancellation", got)
	}
}

// TestServerCancelsPush: the server's notifications/cancelled for a question the proxy
// is asking cancels it; no answer is sent, and the host never hears of it.
func TestServerCancelsPush(t *testing.T) {
	ans := &script{block: true, ctxs: make(chan error, 1)}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.server(`{"jsonrpc":"2.0","id":"e-2","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	waitAsked(t, ans, 1)
	h.server(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e-2"}}`)
	select {
	case <-ans.ctxs:
	case <-time.After(5 * time.Second):
		t.Fatal("the question was not cancelled")
	}
	h.quiet(h.srvR, "server")
	h.quiet(h.hostR, "host")
}

// TestWaitTimeout: a question nobody answers within Wait is cancelled, with a log line.
func TestWaitTimeout(t *testing.T) {
	h := start(t, Options{Answerer: &script{block: true}, Wait: 50 * time.Millisecond})
	h.handshake(initNoElicit)
	h.server(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}` {
		t.Errorf("server got %s", got)
	}
	if !strings.Contains(h.log(), "nobody answered within 50ms") {
		t.Errorf("log lacks the timeout line:\n%s", h.log())
	}
	// A -32042 that times out reaches the host unchanged.
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s", got)
	}
}

// TestURLCompletionTimeout: an accepted -32042 whose completion never comes is passed to
// the host unchanged after Wait, with a log line.
func TestURLCompletionTimeout(t *testing.T) {
	h := start(t, Options{Answerer: &script{url: elicit.Response{Action: elicit.Accept}}, Wait: 100 * time.Millisecond})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s", got)
	}
	h.quiet(h.srvR, "server")
	if !strings.Contains(h.log(), "did not complete within 100ms") {
		t.Errorf("log lacks the timeout:\n%s", h.log())
	}
}

// TestOversizeLine: a host message over the bound is dropped, its request answered
// with an error, and the session goes on.
func TestOversizeLine(t *testing.T) {
	h := start(t, Options{MaxLine: 512})
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":{"s":"` + strings.Repeat("a", 1000) + `"}}}`
	h.host(big)
	got := decode(t, h.hostGot())
	if got["id"] != float64(5) || fields(got, "error", "code") != float64(-32600) {
		t.Errorf("host got %v", got)
	}
	h.host(initBoth)
	if g := h.serverGot(); g != initBoth {
		t.Errorf("server got %s after the dropped line", g)
	}
}

// TestOversizeServerLine: a response over the bound is dropped and its request
// answered with an error; a batch from the server reaches the host as sent.
func TestOversizeServerLine(t *testing.T) {
	h := startPipe(t, Options{}, 512)
	h.handshake(initBoth)
	h.host(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":8,"result":{"tools":[],"pad":"` + strings.Repeat("x", 1000) + `"}}`)
	got := decode(t, h.hostGot())
	if got["id"] != float64(8) || fields(got, "error", "code") != float64(-32603) {
		t.Errorf("host got %v, want an error for request 8", got)
	}
	batch := `[{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]`
	h.server(batch)
	if g := h.hostGot(); g != batch {
		t.Errorf("host got %s", g)
	}
}

// TestOversizeServerRequest: a server request over the bound is answered with an error
// at once, and its id, the same as a host call's, fails nothing of the host's.
func TestOversizeServerRequest(t *testing.T) {
	h := startPipe(t, Options{}, 512)
	h.handshake(initBoth)
	h.host(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"message":"` + strings.Repeat("x", 1000) + `","requestedSchema":{"type":"object"}}}`)
	got := decode(t, h.serverGot())
	if got["id"] != float64(8) || fields(got, "error", "code") != float64(-32600) {
		t.Errorf("server got %v, want an error for its request 8", got)
	}
	list := `{"jsonrpc":"2.0","id":8,"result":{"tools":[]}}`
	h.server(list)
	if g := h.hostGot(); g != list {
		t.Errorf("host got %s, want its own call's result", g)
	}
}

// TestServerExit: the server ending the session ends Run with ErrServerExited.
func TestServerExit(t *testing.T) {
	h := start(t, Options{})
	h.srvW.Close()
	select {
	case err := <-h.done:
		if !errors.Is(err, ErrServerExited) {
			t.Errorf("Run = %v, want ErrServerExited", err)
		}
		h.done <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end")
	}
}

// TestHostEOF: the host closing its input closes the server's and ends Run cleanly.
func TestHostEOF(t *testing.T) {
	h := start(t, Options{})
	h.hostW.Close()
	select {
	case _, ok := <-h.srvR:
		if ok {
			t.Error("server got a message")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server's input was not closed")
	}
	h.srvW.Close()
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
		h.done <- err
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end")
	}
}

// waitAsked waits until s has been asked n questions.
func waitAsked(t *testing.T, s *script, n int) {
	t.Helper()
	testkit.WaitFor(t, fmt.Sprintf("%d questions asked", n), func() bool { return len(s.requests()) >= n })
}
