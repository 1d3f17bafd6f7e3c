package testkit

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, and fails the test when it does not within 5 s,
// naming what it waited for. It is for conditions that send no signal to wait on (a
// counter, a log line, a file); a channel is waited on directly.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // a poll: the condition signals nothing
	}
}
