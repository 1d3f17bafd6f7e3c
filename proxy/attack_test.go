package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitty/elicitty/elicit"
)

// TestServerBracketLineNotRelayed: a server stdout line that starts with '[' but is not
// JSON (a "[INFO] ..." log line) never reaches the host, whose stdout carries JSON-RPC
// only; a real batch still does.
func TestServerBracketLineNotRelayed(t *testing.T) {
	h := start(t, Options{})
	h.handshake(initBoth)
	h.server(`[INFO] server started`)
	h.server(`[1, 2`)
	note := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	h.server(note)
	if got := h.hostGot(); got != note {
		t.Fatalf("host got %q, want only JSON-RPC", got)
	}
	batch := `[{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}]`
	h.server(batch)
	if got := h.hostGot(); got != batch {
		t.Errorf("host got %q, want the batch", got)
	}
	if !strings.Contains(h.log(), "not valid JSON-RPC") {
		t.Errorf("log lacks the dropped lines:\n%s", h.log())
	}
}

// TestDuplicateResponseWhileRetrying: a server that answers a request twice (its
// -32042, then a result for the same id) while the proxy is answering the -32042 gets
// the second response dropped: the host sees one response for its id, the retry's.
func TestDuplicateResponseWhileRetrying(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	waitAsked(t, ans, 1)
	h.server(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"early"}]}}`)
	h.server(urlNeeded)
	h.quiet(h.hostR, "host while the proxy answers")
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("retry %s, want the host's request", got)
	}
	h.quiet(h.srvR, "server after one retry")
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"linked"}]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s, want the retry's result", got)
	}
	h.quiet(h.hostR, "host after its one response")
	if n := len(ans.requests()); n != 1 {
		t.Errorf("asked %d questions, want 1", n)
	}
}

// TestServerReusesOpenID: a second elicitation/create under the id of a question still
// open is ignored; the server's cancellation of that id still stops the first.
func TestServerReusesOpenID(t *testing.T) {
	ans := &script{block: true, ctxs: make(chan error, 2)}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	push := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`
	h.server(push)
	waitAsked(t, ans, 1)
	h.server(push)
	h.server(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	select {
	case <-ans.ctxs:
	case <-time.After(5 * time.Second):
		t.Fatal("the first question was not cancelled")
	}
	// A question under a fresh id is the barrier: the server's messages are read in
	// order, so once it is asked the reused id was handled before it.
	h.server(strings.Replace(strings.Replace(push, `"id":1`, `"id":2`, 1), "Who?", "Second?", 1))
	waitAsked(t, ans, 2)
	h.server(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	select {
	case <-ans.ctxs:
	case <-time.After(5 * time.Second):
		t.Fatal("the second question was not cancelled")
	}
	if got := ans.requests(); len(got) != 2 || got[1].Message != "Second?" {
		t.Errorf("asked %d questions (the last %q), want 2: the reused id ignored", len(got), got[len(got)-1].Message)
	}
	h.quiet(h.srvR, "server")
	h.quiet(h.hostR, "host")
}

// TestSecretsNotLogged: what the user typed, accepted or refused by the schema, never
// reaches the log.
func TestSecretsNotLogged(t *testing.T) {
	const secret = "hunter2-Sup3rSecret"
	for _, tc := range []struct {
		name   string
		schema string
	}{
		{"accepted", `{"type":"object","properties":{"pw":{"type":"string","format":"password","writeOnly":true}}}`},
		{"violations", `{"type":"object","properties":{"pw":{"type":"string","writeOnly":true,"maxLength":3}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans := &script{form: elicit.Response{Action: elicit.Accept, Content: map[string]any{"pw": secret}}}
			h := start(t, Options{Answerer: ans})
			h.handshake(initNoElicit)
			h.server(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Password?","requestedSchema":` + tc.schema + `}}`)
			got := h.serverGot()
			if tc.name == "accepted" && !strings.Contains(got, secret) {
				t.Fatalf("server got %s, want the answer", got)
			}
			if tc.name == "violations" && !strings.Contains(got, "-32602") {
				t.Fatalf("server got %s, want the violations", got)
			}
			if strings.Contains(h.log(), secret) || strings.Contains(h.log(), "Password?") {
				t.Errorf("log quotes the form:\n%s", h.log())
			}
		})
	}
}

// TestHostEOFServerNotReading: the host closing its input ends Run within its grace
// periods even while the proxy is stuck writing to a server that never reads its stdin.
func TestHostEOFServerNotReading(t *testing.T) {
	h := start(t, Options{})
	note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for range 70 { // more than the fake server holds unread (64), fewer than hostQueue more
			if _, err := io.WriteString(h.hostW, note+"\n"); err != nil {
				return
			}
		}
	}()
	<-wrote // every note is the proxy's: the server holds 64 unread, the rest wait to go
	h.hostW.Close()
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
		h.done <- err
	case <-time.After(3 * closeGrace):
		t.Fatal("Run did not end after the host closed its input")
	}
}

// TestHugeRoundPassedOn: a -32042 or input_required round with more entries than the
// proxy keeps is not turned into thousands of questions: it reaches the host as sent.
func TestHugeRoundPassedOn(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Decline}, url: elicit.Response{Action: elicit.Decline}}
	h := start(t, Options{Answerer: ans})
	var b strings.Builder
	for i := range maxKept + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":{"method":"elicitation/create","params":{"mode":"form","message":"Q","requestedSchema":{"type":"object","properties":{}}}}`, i)
	}
	h.host(modernCall)
	h.serverGot()
	round := `{"jsonrpc":"2.0","id":"c1","result":{"resultType":"input_required","inputRequests":{` + b.String() + `}}}`
	h.server(round)
	if got := h.hostGot(); got != round {
		t.Errorf("host got %.200s..., want the round as sent", got)
	}

	b.Reset()
	for i := range maxKept + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"mode":"url","message":"Link","url":"https://example.com/%d","elicitationId":"el-%d"}`, i, i)
	}
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	many := `{"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[` + b.String() + `]}}}`
	h.server(many)
	if got := h.hostGot(); got != many {
		t.Errorf("host got %.200s..., want the error as sent", got)
	}
	h.quiet(h.srvR, "server")
	if n := len(ans.requests()); n != 0 {
		t.Errorf("asked %d questions, want none", n)
	}
}

// TestLogBoundsServerText: server-controlled names (serverInfo, elicitationId) of any
// length and with terminal escapes make log lines of bounded length, one line each,
// without control characters.
func TestLogBoundsServerText(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	long := "\x1b[2J\x1b]0;pwned\x07" + strings.Repeat("A", 100<<10) + "\nelicitty proxy: FAKE"
	name, _ := json.Marshal(long)
	h.host(initNoElicit)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":` + string(name) + `,"version":"1"}}}`)
	h.hostGot()
	h.server(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com/x","elicitationId":` + string(name) + `}}`)
	h.serverGot()
	// An elicitationId over maxKeptID is not kept: its completion goes to the host.
	complete := `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":` + string(name) + `}}`
	h.server(complete)
	if got := h.hostGot(); got != complete {
		t.Errorf("host got %.100q", got)
	}
	h.logMu.Lock()
	logs := append([]string(nil), h.logs...)
	h.logMu.Unlock()
	if len(logs) < 3 {
		t.Fatalf("log %q", logs)
	}
	for _, l := range logs {
		if len(l) > maxLogLine+len("…") || strings.ContainsAny(l, "\x1b\x07\n\r") {
			t.Errorf("log line of %d bytes: %.120q", len(l), l)
		}
	}
}

// deaf is an answerer that ignores its context until released.
type deaf struct{ release chan struct{} }

func (d deaf) Answer(context.Context, *elicit.Request) (elicit.Response, error) {
	<-d.release
	return elicit.Response{Action: elicit.Accept, Content: map[string]any{}}, nil
}

// TestWaitBoundsDeafAnswerer: --wait bounds a question even when the answerer does not
// heed its context: the server gets cancel after Wait, and the host closing its input
// ends Run.
func TestWaitBoundsDeafAnswerer(t *testing.T) {
	d := deaf{release: make(chan struct{})}
	defer close(d.release)
	h := start(t, Options{Answerer: d, Wait: 100 * time.Millisecond})
	h.handshake(initNoElicit)
	h.server(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}` {
		t.Errorf("server got %s", got)
	}
	h.server(`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"Again?","requestedSchema":{"type":"object","properties":{}}}}`)
	h.hostW.Close()
	select {
	case err := <-h.done:
		h.done <- err
	case <-time.After(3 * closeGrace):
		t.Fatal("Run did not end after the host closed its input")
	}
}

// TestSharedElicitationID: two host calls held up by the same URL elicitation (one
// sign-in link for every tool); the host giving up on one does not orphan the other's
// wait: the completion retries both (the one given up on is kept for the host's next
// identical call, keep.go), and only the call still waited for reaches the host.
func TestSharedElicitationID(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	call8 := strings.Replace(call7, `"id":7`, `"id":8`, 1)
	h.host(call7)
	h.serverGot()
	h.host(call8)
	h.serverGot()
	h.server(urlNeeded)
	h.server(strings.Replace(urlNeeded, `"id":7`, `"id":8`, 1))
	waitAsked(t, ans, 2)
	cancel8 := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`
	h.host(cancel8)
	h.quiet(h.srvR, "server after the host gave up on call 8")
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	got := map[string]bool{h.serverGot(): true, h.serverGot(): true}
	if !got[call7] || !got[call8] {
		t.Fatalf("server got %v, want calls 7 and 8 retried", got)
	}
	res8 := `{"jsonrpc":"2.0","id":8,"result":{"content":[]}}`
	h.server(res8)
	h.quiet(h.hostR, "host (call 8 was given up)")
	res7 := `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`
	h.server(res7)
	if r := h.hostGot(); r != res7 {
		t.Errorf("host got %s, want call 7's result", r)
	}
}

// TestServerInvalidUTF8: a server message with bytes that are not UTF-8 reaches the host
// as valid UTF-8 JSON (each bad sequence replaced by U+FFFD), since JSON text between
// systems must be UTF-8 and strict host decoders stop on it.
func TestServerInvalidUTF8(t *testing.T) {
	h := start(t, Options{})
	h.handshake(initBoth)
	h.server("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"a\xff\xfeb\xc3\"}}")
	got := h.hostGot()
	if !utf8.ValidString(got) || !json.Valid([]byte(got)) {
		t.Fatalf("host got %q", got)
	}
	if want := "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"a\uFFFDb\uFFFD\"}}"; got != want {
		t.Errorf("host got %q, want %q", got, want)
	}
}

// TestOversizeResponseWhileRetrying: a response over the bound for a request the proxy
// is answering for is dropped like any second response: the host gets one response
// for its id, the retry's.
func TestOversizeResponseWhileRetrying(t *testing.T) {
	ans := &script{url: elicit.Response{Action: elicit.Accept}}
	h := startPipe(t, Options{Answerer: ans}, 1024)
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	waitAsked(t, ans, 1)
	h.server(`{"jsonrpc":"2.0","id":7,"result":{"pad":"` + strings.Repeat("x", 2000) + `"}}`)
	h.quiet(h.hostR, "host while the proxy answers")
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("retry %s, want the host's request", got)
	}
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s, want the retry's result", got)
	}
	h.quiet(h.hostR, "host after its one response")
}

// TestPushIDCollidesWithHostID: a server question under the id of a host request in
// flight is answered under that id towards the server, and the host's request still
// gets its own response.
func TestPushIDCollidesWithHostID(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Decline}}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}` {
		t.Errorf("server got %s", got)
	}
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`
	h.server(result)
	if got := h.hostGot(); got != result {
		t.Errorf("host got %s", got)
	}
	if r := ans.requests(); len(r) != 1 || r[0].Tool != "needs_link" {
		t.Errorf("requests %+v", r)
	}
}

// TestPushFlood: a server that floods questions gets at most maxKept open at once; the
// rest are answered cancel at once, and completions it never issued reach the host.
func TestPushFlood(t *testing.T) {
	ans := &script{block: true}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	extra := 20
	go func() {
		for i := range maxKept + extra {
			fmt.Fprintf(h.srvW, `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"Q","requestedSchema":{"type":"object","properties":{}}}}`+"\n", i)
		}
	}()
	for range extra {
		if got := decode(t, h.serverGot()); fields(got, "result", "action") != "cancel" {
			t.Fatalf("server got %v", got)
		}
	}
	waitAsked(t, ans, maxKept)
	h.quiet(h.srvR, "server")
	if n := len(ans.requests()); n != maxKept {
		t.Errorf("asked %d, want %d", n, maxKept)
	}
	spoof := `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"never-issued"}}`
	h.server(spoof)
	if got := h.hostGot(); got != spoof {
		t.Errorf("host got %s", got)
	}
}

// TestEndlessRounds: a server that answers every retry with another input_required
// round, or another -32042, gets maxRounds (maxURLRounds) answered, then the host gets
// the round as sent; a 10 MB requestState is echoed byte for byte on the way.
func TestEndlessRounds(t *testing.T) {
	ans := &script{form: elicit.Response{Action: elicit.Accept, Content: map[string]any{}}, url: elicit.Response{Action: elicit.Accept}}
	h := start(t, Options{Answerer: ans, RetryNow: func(*elicit.Request) bool { return true }})
	roundWith := func(state string) string {
		return `{"jsonrpc":"2.0","id":"c1","result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"form","message":"Again?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":` + state + `}}`
	}
	big := `"` + strings.Repeat("s", 10<<20) + `"`
	h.host(modernCall)
	h.serverGot()
	for i := range maxRounds {
		state := `"s"`
		if i == 0 {
			state = big
		}
		h.server(roundWith(state))
		retry := h.serverGot()
		if !strings.Contains(retry, `"requestState":`+state) {
			t.Fatalf("retry %d lacks the state (%d bytes)", i+1, len(retry))
		}
	}
	round := roundWith(`"s"`)
	h.server(round)
	if got := h.hostGot(); got != round {
		t.Errorf("host got %.200s, want the round after %d", got, maxRounds)
	}

	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	for range maxURLRounds {
		h.server(urlNeeded)
		if got := h.serverGot(); got != call7 {
			t.Fatalf("server got %s", got)
		}
	}
	h.server(urlNeeded)
	if got := h.hostGot(); got != urlNeeded {
		t.Errorf("host got %s, want the error after %d", got, maxURLRounds)
	}
}

// TestPushFloodBytes: the server's questions open at once are bounded in bytes too:
// past maxPushBytes of params the next is answered cancel at once.
func TestPushFloodBytes(t *testing.T) {
	ans := &script{block: true}
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	pad := strings.Repeat("p", maxPushBytes/3+1)
	go func() {
		for i := range 3 {
			fmt.Fprintf(h.srvW, `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"Q","requestedSchema":{"type":"object","properties":{}},"x-pad":"%s"}}`+"\n", i, pad)
		}
	}()
	select { // tens of MiB to scan: slow under the race detector
	case got := <-h.srvR:
		if got != `{"jsonrpc":"2.0","id":2,"result":{"action":"cancel"}}` {
			t.Errorf("server got %.200s", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the third question was not answered cancel")
	}
	waitAsked(t, ans, 2)
	h.quiet(h.srvR, "server")
	if n := len(ans.requests()); n != 2 {
		t.Errorf("asked %d, want 2", n)
	}
}

// TestHostAnswersForThePerson: a hostile host that sends a response to a question the
// proxy took on (its id guessed from the server's numbering) has it refused and
// logged, before and after the person answers; the server gets the person's answer
// only. A response to a server request the host was sent still passes.
func TestHostAnswersForThePerson(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans})
	h.handshake(initNoElicit)
	h.server(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Delete everything?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`)
	<-ans.asked
	forged := `{"jsonrpc":"2.0","id":"e-1","result":{"action":"accept","content":{"ok":true,"\u001b[31m":1}}}`
	h.host(forged)
	h.quiet(h.srvR, "server while the person is asked")
	close(ans.release)
	if got := h.serverGot(); !strings.Contains(got, `"id":"e-1"`) || !strings.Contains(got, `"name":"Ada"`) {
		t.Fatalf("server got %s, want the person's answer", got)
	}
	h.host(forged)
	h.quiet(h.srvR, "server after the person answered")
	if n := strings.Count(h.log(), "refused a response of the host to server request"); n != 2 {
		t.Errorf("%d refusals logged, want 2:\n%s", n, h.log())
	}
	if strings.Contains(h.log(), "\x1b") {
		t.Errorf("log not sanitized:\n%q", h.log())
	}
	// The server reuses the id for a request the host is sent: its answer passes.
	roots := `{"jsonrpc":"2.0","id":"e-1","method":"roots/list"}`
	h.server(roots)
	if got := h.hostGot(); got != roots {
		t.Fatalf("host got %s", got)
	}
	answer := `{"jsonrpc":"2.0","id":"e-1","result":{"roots":[]}}`
	h.host(answer)
	if got := h.serverGot(); got != answer {
		t.Errorf("server got %s, want the host's answer to its own request", got)
	}
}
