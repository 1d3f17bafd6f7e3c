package proxy

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestLogSinkNeverBlocks: a reader that never reads (a host that ignores the proxy's
// stderr) does not block the lines logged; once it reads, the loss is reported.
func TestLogSinkNeverBlocks(t *testing.T) {
	r, w := io.Pipe()
	s := NewLogSink(w)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 10*logQueue; i++ {
			s.Line("elicitty proxy: a line\n")
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("logging blocked on a reader that does not read")
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	for deadline := time.Now().Add(5 * time.Second); len(s.lines) > 0; {
		if time.Now().After(deadline) {
			t.Fatal("the queued lines were not written once the reader read")
		}
		time.Sleep(time.Millisecond) // the writer goroutine signals nothing when it drains
	}
	s.Line("elicitty proxy: the last line\n")
	s.Close(5 * time.Second)
	w.Close()
	out := <-got
	if !strings.Contains(out, "log lines dropped") {
		t.Errorf("the loss is not reported:\n%.300s", out)
	}
	if !strings.HasSuffix(out, "elicitty proxy: the last line\n") {
		t.Errorf("the last line is missing:\n…%s", out[max(0, len(out)-200):])
	}
}

// TestLogSinkCloseBounded: Close returns within its wait even when the reader is stuck.
func TestLogSinkCloseBounded(t *testing.T) {
	_, w := io.Pipe() // never read
	s := NewLogSink(w)
	s.Line("elicitty proxy: stuck\n")
	start := time.Now()
	s.Close(100 * time.Millisecond)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	s.Line("after close\n") // dropped, never panics
}
