package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// person answers each question once the test releases it, with {"name": "Ada"}; it
// records how each question it did not answer ended.
type person struct {
	release chan struct{} // closed: answer
	asked   chan *elicit.Request
	ended   chan error // the cause of each question withdrawn before the answer
}

func newPerson() *person {
	return &person{release: make(chan struct{}), asked: make(chan *elicit.Request, 16), ended: make(chan error, 16)}
}

func (p *person) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	p.asked <- req
	select {
	case <-p.release:
		return elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}, nil
	case <-ctx.Done():
		p.ended <- context.Cause(ctx)
		return elicit.Response{}, ctx.Err()
	}
}

// toolServer is a fake server whose tool "signup" asks its caller a question
// (elicitation/create) and answers the call with what it got; it counts the tool's
// runs. Its other lines (answers, cancellations) go to other.
type toolServer struct {
	h     *harness
	runs  atomic.Int32
	other chan string
	mu    sync.Mutex
	calls map[string]json.RawMessage // the tools/call id per question id
	quiet bool                       // never answer the tools/call
}

func serveTool(h *harness) *toolServer {
	s := &toolServer{h: h, other: make(chan string, 64), calls: map[string]json.RawMessage{}}
	go s.run()
	return s
}

func (s *toolServer) send(line string) { _, _ = io.WriteString(s.h.srvW, line+"\n") }

func (s *toolServer) run() {
	for line := range s.h.srvR {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				Action  string         `json:"action"`
				Content map[string]any `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			s.send(initResult)
		case m.Method == "tools/call":
			n := s.runs.Add(1)
			q := fmt.Sprintf(`"q-%d"`, n)
			s.mu.Lock()
			s.calls[q] = m.ID
			s.mu.Unlock()
			s.send(`{"jsonrpc":"2.0","id":` + q + `,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
		case m.Method == "" && strings.HasPrefix(string(m.ID), `"q-`):
			s.mu.Lock()
			id := s.calls[string(m.ID)]
			s.mu.Unlock()
			if !s.quiet {
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s: %v"}]}}`, id, m.Result.Action, m.Result.Content["name"]))
			}
			s.other <- line
		default:
			s.other <- line
		}
	}
}

// agent behaves as an agent on the TypeScript SDK: it calls the tool "signup" with the
// same arguments and a progressToken of its own each time, waits timeout for the
// result (reset by each progress notification when resetOnProgress), and on a
// timeout sends notifications/cancelled and calls again, up to attempts times. It
// returns the result line and the attempt that got it; sent gets each attempt's
// number once it is written; before (nil: none) runs before each retry.
type agent struct {
	h               *harness
	timeout         time.Duration
	resetOnProgress bool
	sent            chan int
	before          func(attempt int)
	progress        atomic.Int32
}

func (a *agent) call(attempts int) (string, int) {
	a.h.t.Helper()
	for n := 1; n <= attempts; n++ {
		if n > 1 && a.before != nil {
			a.before(n)
		}
		id := 100 + n
		write(a.h.t, a.h.hostW, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"signup","arguments":{"plan":"pro","seats":2},"_meta":{"progressToken":"tok-%d"}}}`, id, n))
		if a.sent != nil {
			a.sent <- n
		}
		timer := time.NewTimer(a.timeout)
	wait:
		for {
			select {
			case line, ok := <-a.h.hostR:
				if !ok {
					a.h.t.Fatal("the proxy closed the host's stream")
				}
				var m struct {
					ID     *int   `json:"id"`
					Method string `json:"method"`
					Params struct {
						ProgressToken string `json:"progressToken"`
					} `json:"params"`
				}
				_ = json.Unmarshal([]byte(line), &m)
				switch {
				case m.ID != nil && *m.ID == id:
					timer.Stop()
					return line, n
				case m.Method == "notifications/progress" && m.Params.ProgressToken == fmt.Sprintf("tok-%d", n):
					a.progress.Add(1)
					if a.resetOnProgress {
						timer.Reset(a.timeout)
					}
				}
			case <-timer.C:
				// "Request timed out": the SDK cancels the request.
				write(a.h.t, a.h.hostW, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"McpError: Request timed out"}}`, id))
				break wait
			}
		}
	}
	a.h.t.Fatalf("no result in %d attempts", attempts)
	return "", 0
}

// wantAnswered checks the result line carries the person's answer under the id of
// attempt n.
func wantAnswered(t *testing.T, line string, n, gotN int) {
	t.Helper()
	if gotN != n {
		t.Errorf("the result came to attempt %d, want %d", gotN, n)
	}
	m := decode(t, line)
	if m["id"] != float64(100+n) || !strings.Contains(line, `accept: Ada`) {
		t.Errorf("host got %s, want the answer under id %d", line, 100+n)
	}
}

// TestAgentRetriesGetTheAnswerOfOneRun: an agent that times out (as the TypeScript
// SDK does after 60 s, here 80 ms) and calls the same tool again, three times, while
// the person takes longer: the retries join the call still running, the person's
// answer reaches the agent's latest attempt, and the server ran the tool once.
func TestAgentRetriesGetTheAnswerOfOneRun(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: -1})
	srv := serveTool(h)
	h.host(initNoElicit)
	h.hostGot()
	a := &agent{h: h, timeout: 80 * time.Millisecond, sent: make(chan int, 8)}
	go func() {
		<-ans.asked
		for n := range a.sent {
			if n == 4 { // three timeouts later: the person answers
				close(ans.release)
				return
			}
		}
	}()
	line, n := a.call(6)
	wantAnswered(t, line, 4, n)
	if runs := srv.runs.Load(); runs != 1 {
		t.Errorf("the tool ran %d times, want 1", runs)
	}
	// Each retry joined the call running, or (the answer quicker than the last
	// retry) got the response kept for it. The proxy notes a join once it is made,
	// so the response can reach the host first: wait for the notes.
	retries := func() int {
		l := h.log()
		return strings.Count(l, "joined to the call still running") + strings.Count(l, "it gets the response kept for it")
	}
	testkit.WaitFor(t, "three retries joined or served", func() bool { return retries() >= 3 })
	if got := retries(); got != 3 {
		t.Errorf("%d retries joined, want 3:\n%s", got, h.log())
	}
	if len(ans.asked) != 0 {
		t.Errorf("%d more questions asked, want none", len(ans.asked))
	}
}

// TestAnswerWhileTheHostIsAway: the person answers after the host gave up and before it
// calls again: the result is kept, and the next identical call gets it at once
// without running the tool again.
func TestAnswerWhileTheHostIsAway(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: -1})
	srv := serveTool(h)
	h.host(initNoElicit)
	h.hostGot()
	a := &agent{h: h, timeout: 50 * time.Millisecond}
	a.before = func(n int) {
		if n == 2 {
			close(ans.release)
			// Kept as the host was away, or as its cancellation crossed the response.
			testkit.WaitFor(t, "the response kept", func() bool {
				l := h.log()
				return strings.Contains(l, "its response is kept for the host's next identical call") ||
					strings.Contains(l, "as its response went out; the response is kept")
			})
		}
	}
	line, n := a.call(3)
	wantAnswered(t, line, 2, n)
	if runs := srv.runs.Load(); runs != 1 {
		t.Errorf("the tool ran %d times, want 1", runs)
	}
	// Served: the call after it runs the tool again.
	h.host(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"signup","arguments":{"seats":2,"plan":"pro"}}}`)
	testkit.WaitFor(t, "a second run", func() bool { return srv.runs.Load() == 2 })
}

// TestProgressKeepsTheHostWaiting: a host that resets its timeout on progress (the
// TypeScript SDK's resetTimeoutOnProgress) waits through a question longer than its
// timeout: it gets progress notifications for its token, with growing values past the
// server's own, and the answer on its first attempt.
func TestProgressKeepsTheHostWaiting(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: 10 * time.Millisecond})
	h.handshake(initNoElicit)
	h.host(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{},"_meta":{"progressToken":"t1"}}}`)
	h.serverGot()
	server := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":40,"total":100}}`
	h.server(server)
	if got := h.hostGot(); got != server {
		t.Fatalf("host got %s, want the server's progress", got)
	}
	h.server(whoAsked)
	<-ans.asked
	last := 40.0
	for i := range 5 { // five notifications, each past the host's timeout if it were 10 ms
		var m struct {
			Method string `json:"method"`
			Params struct {
				ProgressToken string  `json:"progressToken"`
				Progress      float64 `json:"progress"`
				Message       string  `json:"message"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(h.hostGot()), &m); err != nil || m.Method != "notifications/progress" || m.Params.ProgressToken != "t1" {
			t.Fatalf("notification %d: %+v (%v)", i, m, err)
		}
		if m.Params.Progress <= last || !strings.Contains(m.Params.Message, "elicitty inbox") {
			t.Fatalf("notification %d: progress %v after %v, message %q", i, m.Params.Progress, last, m.Params.Message)
		}
		last = m.Params.Progress
	}
	close(ans.release)
	if got := h.serverGot(); !strings.Contains(got, `"id":"e-1"`) || !strings.Contains(got, "Ada") {
		t.Fatalf("server got %s, want the answer", got)
	}
}

// TestProgressViaAgent: an agent whose timer each progress notification resets gets the
// answer on its first attempt, however long the person takes.
func TestProgressViaAgent(t *testing.T) {
	ans := newPerson()
	// A notification every 20 ms against a 1 s timeout: only a stall of the proxy's
	// progress longer than the host's patience (a second) fails the test, however
	// loaded the machine; the person answers after 1.5 s of progress, past it.
	h := start(t, Options{Answerer: ans, Progress: 20 * time.Millisecond})
	srv := serveTool(h)
	h.host(initNoElicit)
	h.hostGot()
	a := &agent{h: h, timeout: time.Second, resetOnProgress: true}
	go func() {
		<-ans.asked
		for a.progress.Load() < 75 {
			time.Sleep(5 * time.Millisecond) // the agent's count is all there is to watch: poll it
		}
		close(ans.release)
	}()
	line, n := a.call(1)
	wantAnswered(t, line, 1, n)
	if runs := srv.runs.Load(); runs != 1 {
		t.Errorf("the tool ran %d times, want 1", runs)
	}
}

// TestKeptCallExpires: a host that gives up and never calls again: the question ends at
// its own deadline (withdrawn: nobody answered in time), and once the call has been
// kept Keep longer it is cancelled at the server.
func TestKeptCallExpires(t *testing.T) {
	h, ans := askDuringCall(t, Options{Wait: 100 * time.Millisecond, Keep: 50 * time.Millisecond, Progress: -1}, `{}`)
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if err := <-ans.ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the question ended with %v, want its deadline", err)
	}
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":"e-1","result":{"action":"cancel"}}` {
		t.Fatalf("server got %s, want the question cancelled", got)
	}
	got := decode(t, h.serverGot())
	if got["method"] != "notifications/cancelled" || fields(got, "params", "requestId") != float64(1) {
		t.Errorf("server got %v, want the call cancelled", got)
	}
	h.quiet(h.hostR, "host")
	// The call is gone: the same call again runs anew.
	h.host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"signup","arguments":{}}}`)
	if got := decode(t, h.serverGot()); got["id"] != float64(2) {
		t.Errorf("server got %v, want the new call", got)
	}
}

// TestOtherArgumentsRunAgain: only an identical call joins: other arguments, or
// another tool, reach the server.
func TestOtherArgumentsRunAgain(t *testing.T) {
	h, ans := askDuringCall(t, Options{Progress: -1}, `{"plan":"pro"}`)
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	for _, c := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"signup","arguments":{"plan":"free"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"signin","arguments":{"plan":"pro"}}}`,
	} {
		h.host(c)
		if got := h.serverGot(); got != c {
			t.Errorf("server got %s, want %s", got, c)
		}
	}
	// The identical one joins, whatever its _meta and key order.
	h.host(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":9},"arguments":{"plan":"pro"},"name":"signup"}}`)
	h.quiet(h.srvR, "server")
	close(ans.release)
	h.serverGot() // the answer
	h.server(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	if got := h.hostGot(); got != `{"jsonrpc":"2.0","id":4,"result":{"content":[]}}` {
		t.Errorf("host got %s, want the result under the joined id", got)
	}
}

// TestKeptIDReused: a host request under the id of a call kept for the host is refused
// with an error (the server still runs the call under that id).
func TestKeptIDReused(t *testing.T) {
	h, _ := askDuringCall(t, Options{Progress: -1}, `{}`)
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	h.host(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	got := decode(t, h.hostGot())
	if got["id"] != float64(1) || fields(got, "error", "code") != float64(-32600) {
		t.Errorf("host got %v, want an error", got)
	}
	h.quiet(h.srvR, "server")
}

// TestCallEndedWithdrawsItsQuestion: a server that ends the call without withdrawing
// the question it asked for it: the question is withdrawn (the inbox drops it, with
// the reason) and the server's request answered cancel.
func TestCallEndedWithdrawsItsQuestion(t *testing.T) {
	h, ans := askDuringCall(t, Options{Progress: -1}, `{}`)
	res := `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`
	h.server(res)
	if got := h.hostGot(); got != res {
		t.Errorf("host got %s", got)
	}
	if err := <-ans.ended; !errors.Is(err, errCallEnded) {
		t.Errorf("the question ended with %v, want %v", err, errCallEnded)
	}
	if got := h.serverGot(); got != `{"jsonrpc":"2.0","id":"e-1","result":{"action":"cancel"}}` {
		t.Errorf("server got %s, want the question answered cancel", got)
	}
}

// whoAsked is the server's question of the keep tests, asked during a call.
const whoAsked = `{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`

// askDuringCall starts a proxy with opts, a person answering, whose host (declaring no
// elicitation) calls the tool signup with args under id 1 and whose server then asks
// whoAsked; it returns once the person has the question.
func askDuringCall(t *testing.T, opts Options, args string) (*harness, *person) {
	t.Helper()
	ans := newPerson()
	opts.Answerer = ans
	h := start(t, opts)
	h.handshake(initNoElicit)
	h.host(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":` + args + `}}`)
	h.serverGot()
	h.server(whoAsked)
	<-ans.asked
	return h, ans
}

// TestURLRequiredKeptAndJoined: the -32042 path: the host gives up while the person
// is asked for consent, calls again, and gets the result of the retry the proxy sends
// under the id the server knows, after the completion.
func TestURLRequiredKeptAndJoined(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: -1})
	h.handshake(initNoElicit)
	h.host(call7)
	h.serverGot()
	h.server(urlNeeded)
	<-ans.asked
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	again := strings.Replace(strings.Replace(call7, `"id":7`, `"id":"r2"`, 1), `"p7"`, `"p8"`, 1)
	h.host(again)
	h.quiet(h.srvR, "server")
	close(ans.release)
	h.server(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-7"}}`)
	if got := h.serverGot(); got != call7 {
		t.Fatalf("server got %s, want the retry under the id it knows", got)
	}
	h.server(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"linked"}]}}`)
	if got := h.hostGot(); got != `{"jsonrpc":"2.0","id":"r2","result":{"content":[{"type":"text","text":"linked"}]}}` {
		t.Errorf("host got %s, want the result under its new id", got)
	}
	h.quiet(h.hostR, "host")
}

// TestQuestionDuringParallelCalls: a question asked while two calls are in flight
// could belong to either: both outlive the host's cancellation while it is open, and
// the retry of the one that asked joins it.
func TestQuestionDuringParallelCalls(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: -1})
	h.handshake(initNoElicit)
	h.host(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{}}}`)
	h.serverGot()
	h.host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}}}`)
	h.serverGot()
	h.server(whoAsked)
	if r := <-ans.asked; r.Call != "" {
		t.Errorf("the question names %q, want no call (it could be either)", r.Call)
	}
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	h.quiet(h.srvR, "server after both cancellations")
	h.host(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"signup","arguments":{}}}`)
	h.quiet(h.srvR, "server after the retry")
	close(ans.release)
	h.serverGot() // the answer
	h.server(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	if got := h.hostGot(); got != `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` {
		t.Errorf("host got %s, want the result under the retry's id", got)
	}
}
