package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
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

// DefaultMaxRaw is the largest Raw a Log keeps in memory per entry; larger bodies are
// written to the file sink in full but kept in memory only as their size.
const DefaultMaxRaw = 256 << 10

// Log is a bounded, concurrency-safe ring of entries. The zero value is not usable; use New.
type Log struct {
	mu      sync.Mutex
	ring    []Entry // grows up to max entries, then wraps
	max     int
	start   int // index of the oldest entry in ring
	n       int // number of entries held
	next    uint64
	dropped uint64
	maxRaw  int
	subs    map[*subscription]struct{}
	file    io.Writer
	fileErr error
	secrets []string // values masked in every entry appended from now on
}

// Mask is what a secret value is replaced with in logged entries.
const Mask = "********"

// Redact masks value in every entry appended from now on, in memory and in the file
// sink: where it appears in a message body (as a JSON string or inside one) and in a
// stderr line or note. Transports call it with what the user typed into a secret field
// before the message carrying it is sent; the wire still carries the value. Empty
// values are ignored.
func (l *Log) Redact(value string) {
	if l == nil || value == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.secrets {
		if s == value {
			return
		}
	}
	l.secrets = append(l.secrets, value)
}

// redact masks the secrets in e; l.mu is held.
func (l *Log) redact(e *Entry) {
	for _, s := range l.secrets {
		if e.Text != "" {
			e.Text = strings.ReplaceAll(e.Text, s, Mask)
		}
		if len(e.Raw) == 0 {
			continue
		}
		for _, enc := range jsonForms(s) {
			e.Raw = bytes.ReplaceAll(e.Raw, []byte(enc), []byte(Mask))
			for _, enc2 := range jsonForms(enc) { // JSON text inside a string: a server's echo
				e.Raw = bytes.ReplaceAll(e.Raw, []byte(enc2), []byte(Mask))
			}
		}
	}
	if len(e.Raw) > 0 && len(l.secrets) > 0 && !json.Valid(e.Raw) {
		// A mask cut an escape sequence: keep nothing of the body rather than the secret.
		e.Raw, e.Text = nil, fmt.Sprintf("body of %d bytes withheld: it held a secret", e.Size)
	}
}

// jsonForms returns how s may appear inside a JSON string: escaped as encoding/json
// does with and without HTML escaping.
func jsonForms(s string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) == nil {
			q := strings.TrimSuffix(b.String(), "\n")
			q = q[1 : len(q)-1] // without the quotes
			if len(out) == 0 || out[0] != q {
				out = append(out, q)
			}
		}
	}
	return out
}

type subscription struct{ ch chan struct{} }

// New returns a log that keeps at most capacity entries (older ones are dropped).
// A capacity below 1 is treated as 1.
func New(capacity int) *Log {
	if capacity < 1 {
		capacity = 1
	}
	// The ring grows as entries come (append's doubling) instead of being allocated
	// whole: a full ring is over a megabyte of pointerful memory that every garbage
	// collection would scan, and a run may never fill it.
	return &Log{
		max:    capacity,
		next:   1,
		maxRaw: DefaultMaxRaw,
		subs:   map[*subscription]struct{}{},
	}
}

// SetMaxRaw sets the largest Raw kept in memory per entry (the file sink always gets
// the full body). n <= 0 restores DefaultMaxRaw.
func (l *Log) SetMaxRaw(n int) {
	if n <= 0 {
		n = DefaultMaxRaw
	}
	l.mu.Lock()
	l.maxRaw = n
	l.mu.Unlock()
}

// SetFile makes the log also write every appended entry as one JSON line to w (nil
// stops). Entries appended earlier are not written. Write errors stop the sink; Err
// reports the first one.
func (l *Log) SetFile(w io.Writer) {
	l.mu.Lock()
	l.file = w
	l.fileErr = nil
	l.mu.Unlock()
}

// Err returns the first error the file sink met, or nil.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fileErr
}

// Append stores e, assigning its Seq (and its Time when zero), and returns the stored
// entry. It never blocks on subscribers. A nil Log ignores the call.
func (l *Log) Append(e Entry) Entry {
	return l.append(e, false)
}

// AppendValid is Append for an entry whose Raw the caller has already found to be
// valid JSON (a transport that parsed the message): the body is not checked again,
// which for a stream of large results (pages of thousands of tools) is a pass over
// every byte saved.
func (l *Log) AppendValid(e Entry) Entry {
	return l.append(e, true)
}

// append is Append; valid says e.Raw is known to be valid JSON.
func (l *Log) append(e Entry, valid bool) Entry {
	if l == nil {
		return e
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if len(e.Raw) > 0 && !valid && !json.Valid(e.Raw) {
		// Keep the bytes readable without breaking the JSONL sink.
		if e.Text == "" {
			e.Text = string(e.Raw)
		}
		e.Raw = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.secrets) > 0 {
		l.redact(&e)
	}
	e.Seq = l.next
	l.next++
	if l.file != nil && l.fileErr == nil {
		line, err := json.Marshal(e)
		if err == nil {
			line = append(line, '\n')
			_, err = l.file.Write(line)
		}
		if err != nil {
			l.fileErr = fmt.Errorf("write wire log: %w", err)
		}
	}
	mem := e
	if len(mem.Raw) > l.maxRaw {
		mem.Raw = nil
		if mem.Text == "" {
			mem.Text = fmt.Sprintf("body of %d bytes not kept in memory", e.Size)
		}
	} else if len(mem.Raw) > 0 {
		// Own the bytes: callers may reuse their buffers.
		mem.Raw = append(json.RawMessage(nil), mem.Raw...)
	}
	if l.n == l.max {
		l.ring[l.start] = mem
		l.start = (l.start + 1) % len(l.ring)
		l.dropped++
	} else { // not full: start is 0 and the ring grows (entries are never removed)
		if len(l.ring) == cap(l.ring) {
			grown := make([]Entry, len(l.ring), min(max(2*cap(l.ring), 64), l.max))
			copy(grown, l.ring)
			l.ring = grown
		}
		l.ring = append(l.ring, mem)
		l.n++
	}
	for s := range l.subs {
		select {
		case s.ch <- struct{}{}:
		default: // a notification is already pending; it covers this entry too
		}
	}
	return e
}

// Notef appends a Note entry for server with a formatted text.
func (l *Log) Notef(server, format string, args ...any) {
	l.Append(Entry{Server: server, Dir: Note, Text: fmt.Sprintf(format, args...)})
}

// Snapshot returns a copy of the entries held, oldest first.
func (l *Log) Snapshot() []Entry { return l.Since(0) }

// Since returns a copy of the held entries whose Seq is greater than seq, oldest first.
// Entries already dropped from the ring are not returned; compare the first Seq with
// seq+1 to detect a gap.
func (l *Log) Since(seq uint64) []Entry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The ring holds consecutive sequence numbers, the newest being next-1: the
	// entries after seq are its last next-1-seq, read without a pass over the rest.
	newest := l.next - 1
	if seq >= newest || l.n == 0 {
		return nil
	}
	k := l.n
	if newest-seq < uint64(k) {
		k = int(newest - seq)
	}
	out := make([]Entry, k)
	for i := range out {
		out[i] = l.ring[(l.start+l.n-k+i)%len(l.ring)]
	}
	return out
}

// Len returns the number of entries held.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Dropped returns how many entries were evicted from the ring so far.
func (l *Log) Dropped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// LastSeq returns the Seq of the newest entry, or 0 when none was appended.
func (l *Log) LastSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next - 1
}

// Subscribe returns a channel that receives a value after new entries are appended
// (notifications coalesce: one value may stand for many entries; read them with Since)
// and a function that ends the subscription. The writer never blocks on it.
func (l *Log) Subscribe() (<-chan struct{}, func()) {
	s := &subscription{ch: make(chan struct{}, 1)}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.subs, s)
			l.mu.Unlock()
		})
	}
}
