package testkit

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, and fails the test, naming what it waited for,
// when it does not within 30 s: a bound on a failure, not a pace (under -race on a
// loaded machine a step can take seconds). It is for conditions that send no signal to
// wait on (a counter, a log line, a file); a channel is waited on directly.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // a poll: the condition signals nothing
	}
}
