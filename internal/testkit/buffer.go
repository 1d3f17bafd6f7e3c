package testkit

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that a writer goroutine (a process's output, a log)
// and the test reading it may use at once. The zero value is empty and ready.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
