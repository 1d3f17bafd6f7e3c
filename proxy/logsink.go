package proxy

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// logQueue is how many log lines LogSink holds for a slow reader before it drops them.
const logQueue = 256

// LogSink writes log lines to a writer that may stop reading (a host that never drains
// the proxy's stderr: a full pipe would block every goroutine that logs, the relay
// included). Lines are queued and written by one goroutine; when the queue is full
// they are dropped and counted, and the next line written says how many were lost.
// Use NewLogSink, then Close once.
type LogSink struct {
	w     io.Writer
	lines chan string
	done  chan struct{}

	mu      sync.Mutex // guards dropped and closed
	dropped int
	closed  bool
}

// NewLogSink starts a sink writing to w.
func NewLogSink(w io.Writer) *LogSink {
	s := &LogSink{w: w, lines: make(chan string, logQueue), done: make(chan struct{})}
	go s.run()
	return s
}

// Line queues one line (with its line break); it never blocks.
func (s *LogSink) Line(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.lines <- line:
	default:
		s.dropped++
	}
}

// run writes the queued lines until Close.
func (s *LogSink) run() {
	defer close(s.done)
	for line := range s.lines {
		s.mu.Lock()
		lost := s.dropped
		s.dropped = 0
		s.mu.Unlock()
		if lost > 0 {
			line = fmt.Sprintf("elicitty proxy: %d log lines dropped: nobody read them in time\n", lost) + line
		}
		if _, err := io.WriteString(s.w, line); err != nil {
			continue // the reader is gone: keep draining so Line never blocks
		}
	}
}

// Close stops taking lines and waits up to wait for the queued ones to be written.
func (s *LogSink) Close(wait time.Duration) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.lines)
	s.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
	}
}
