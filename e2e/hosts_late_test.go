package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHostMatrixAgentResetOnProgress: a host on the TypeScript SDK that restarts its
// 60-second request timeout on progress (resetTimeoutOnProgress), the person answering
// 75 seconds after the call. The proxy's progress notifications while the question
// waits keep the first call alive: it gets the answer, and the server ran the tool once.
func TestHostMatrixAgentResetOnProgress(t *testing.T) {
	t.Parallel()
	const late = 75 * time.Second
	k := newHostKit(t)
	dir, env := hostedDir(t)
	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env),
		Tool: "ask", Arguments: map[string]any{"topic": "patient"}, Attempts: 3, ResetTimeoutOnProgress: true}, k.hostEnv(t))
	h.note = func() string { return fmt.Sprintf("the server ran the tool %d times", k.runCount(t)) }
	h.waitEvent("call", 30*time.Second)
	start := time.Now()
	tm.WaitFocus("Name *")
	// The person is away: the delay is the scenario, not a synchronisation.
	time.Sleep(time.Until(start.Add(late)))
	answerName(tm, "Patient")
	got, attempt := h.result(time.Until(start.Add(late + 60*time.Second)))
	if got != "accept Patient" || attempt != 1 {
		h.failf("the host got %q on attempt %d, want \"accept Patient\" on attempt 1", got, attempt)
	}
	progress := 0
	for _, e := range h.seen {
		if e.Event == "progress" && strings.Contains(e.Message, "elicitty inbox") {
			progress++
		}
	}
	if progress < 5 {
		h.failf("the host saw %d progress notifications naming the inbox in %s, want at least 5 (one every 10 s)", progress, late)
	}
	h.finish()
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1\nevents %s", n, h.events())
	}
}

// TestHostMatrixAgentManyTimeouts: the person answers after five of the host's request
// timeouts, the case of an answer after 5 minutes with the SDK's 60-second default, with
// the host's timeout set to 5 seconds so the test takes 25. The agent calls again after
// each "Request timed out"; each new call joins the one still running at the server,
// the answer reaches the host within its attempts, and the server ran the tool once.
func TestHostMatrixAgentManyTimeouts(t *testing.T) {
	t.Parallel()
	const (
		timeout  = 5 * time.Second
		late     = 5 * timeout
		attempts = 10
	)
	k := newHostKit(t)
	dir, env := hostedDir(t)
	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env),
		Tool: "ask", Arguments: map[string]any{"topic": "later"}, Attempts: attempts, TimeoutMs: int(timeout / time.Millisecond)}, k.hostEnv(t))
	h.note = func() string { return fmt.Sprintf("the server ran the tool %d times", k.runCount(t)) }
	h.waitEvent("call", 30*time.Second)
	start := time.Now()
	tm.WaitFocus("Name *")
	time.Sleep(time.Until(start.Add(late))) // the person is away: the scenario, not a synchronisation
	tm.WaitFocus("Name *")                  // the question is still there
	answerName(tm, "Later")
	got, attempt := h.result(time.Until(start.Add(attempts*timeout + 30*time.Second)))
	if got != "accept Later" {
		h.failf("the host got %q on attempt %d, want \"accept Later\"", got, attempt)
	}
	if attempt < 5 {
		h.failf("the host got the answer on attempt %d: its earlier attempts did not time out as the scenario needs", attempt)
	}
	h.finish()
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1 (the host made %d attempts)\nevents %s", n, attempt, h.events())
	}
}
