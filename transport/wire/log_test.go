package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seqs(es []Entry) []uint64 {
	var out []uint64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestLogRing(t *testing.T) {
	tests := []struct {
		name      string
		capacity  int
		appends   int
		since     uint64
		want      []uint64
		wantDrops uint64
	}{
		{"empty", 3, 0, 0, nil, 0},
		{"under capacity", 3, 2, 0, []uint64{1, 2}, 0},
		{"full", 3, 3, 0, []uint64{1, 2, 3}, 0},
		{"wrapped", 3, 7, 0, []uint64{5, 6, 7}, 4},
		{"since inside", 3, 7, 5, []uint64{6, 7}, 4},
		{"since dropped", 3, 7, 2, []uint64{5, 6, 7}, 4},
		{"since newest", 3, 7, 7, nil, 4},
		{"since past the newest", 3, 7, 9, nil, 4},
		{"wrapped, since just before the oldest kept", 3, 7, 4, []uint64{5, 6, 7}, 4},
		{"wrapped more than once, since inside", 4, 13, 11, []uint64{12, 13}, 9},
		{"capacity zero acts as one", 0, 4, 0, []uint64{4}, 3},
		{"grown past its first allocation, then wrapped", 200, 450, 0, seqRange(251, 450), 250},
		{"grown, not full", 200, 150, 140, seqRange(141, 150), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.capacity)
			for i := 0; i < tt.appends; i++ {
				l.Append(Entry{Server: "s", Dir: Out, Method: fmt.Sprint("m", i)})
			}
			if diff := cmp.Diff(tt.want, seqs(l.Since(tt.since))); diff != "" {
				t.Errorf("Since(%d) seqs (-want +got):\n%s", tt.since, diff)
			}
			if got := l.Dropped(); got != tt.wantDrops {
				t.Errorf("Dropped() = %d, want %d", got, tt.wantDrops)
			}
			if c := cap(l.ring); c > max(tt.capacity, 1) {
				t.Errorf("the ring holds room for %d entries, more than the capacity %d", c, tt.capacity)
			}
		})
	}
}

func TestLogAppendAssignsSeqAndTime(t *testing.T) {
	l := New(4)
	e := l.Append(Entry{Dir: In, Raw: json.RawMessage(`{"a":1}`)})
	if e.Seq != 1 || e.Time.IsZero() {
		t.Fatalf("Append returned seq %d time %v, want seq 1 and a time", e.Seq, e.Time)
	}
	got := l.Snapshot()
	if len(got) != 1 || string(got[0].Raw) != `{"a":1}` {
		t.Fatalf("Snapshot = %+v", got)
	}
}

func TestLogInvalidRawBecomesText(t *testing.T) {
	l := New(4)
	var buf bytes.Buffer
	l.SetFile(&buf)
	l.Append(Entry{Dir: Note, Raw: json.RawMessage("Server v1.0 starting")})
	got := l.Snapshot()[0]
	if got.Raw != nil || got.Text != "Server v1.0 starting" {
		t.Errorf("entry = %+v, want Raw nil and Text set", got)
	}
	if !json.Valid(bytes.TrimSpace(buf.Bytes())) {
		t.Errorf("file line is not JSON: %q", buf.String())
	}
}

// TestLogAppendValid: an entry whose body the caller already parsed is stored as sent,
// like Append's valid entries, and still masked.
func TestLogAppendValid(t *testing.T) {
	l := New(4)
	l.Redact("hunter2")
	var buf bytes.Buffer
	l.SetFile(&buf)
	e := l.AppendValid(Entry{Dir: In, Raw: json.RawMessage(`{"a":1,"p":"hunter2"}`)})
	if e.Seq != 1 || e.Time.IsZero() {
		t.Fatalf("AppendValid returned seq %d time %v, want seq 1 and a time", e.Seq, e.Time)
	}
	got := l.Snapshot()
	if len(got) != 1 || string(got[0].Raw) != `{"a":1,"p":"`+Mask+`"}` || got[0].Text != "" {
		t.Fatalf("Snapshot = %+v, want the body with its secret masked", got)
	}
	if !json.Valid(bytes.TrimSpace(buf.Bytes())) || bytes.Contains(buf.Bytes(), []byte("hunter2")) {
		t.Errorf("file line is not JSON or holds the secret: %q", buf.String())
	}
}

func TestLogFileSinkJSONL(t *testing.T) {
	l := New(2)
	var buf bytes.Buffer
	l.SetFile(&buf)
	for i := 0; i < 5; i++ {
		l.Append(Entry{Server: "s", Dir: Out, Method: "tools/call", Raw: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
	}
	sc := bufio.NewScanner(&buf)
	var got []uint64
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, e.Seq)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, got); diff != "" {
		t.Errorf("file seqs (-want +got):\n%s", diff)
	}
	if l.Err() != nil {
		t.Errorf("Err() = %v", l.Err())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestLogFileErrorKeepsMemory(t *testing.T) {
	l := New(4)
	l.SetFile(failWriter{})
	l.Append(Entry{Dir: Out})
	l.Append(Entry{Dir: Out})
	if l.Err() == nil {
		t.Error("Err() = nil after a failing sink")
	}
	if l.Len() != 2 {
		t.Errorf("Len() = %d, want 2", l.Len())
	}
}

func TestLogLargeRawKeptOnlyInFile(t *testing.T) {
	l := New(4)
	l.SetMaxRaw(16)
	var buf bytes.Buffer
	l.SetFile(&buf)
	raw := json.RawMessage(`{"big":"0123456789012345678901234567890"}`)
	l.Append(Entry{Dir: In, Size: len(raw), Raw: raw})
	if got := l.Snapshot()[0]; got.Raw != nil || got.Text == "" {
		t.Errorf("memory entry = %+v, want Raw dropped with a note", got)
	}
	if !bytes.Contains(buf.Bytes(), raw) {
		t.Errorf("file lost the body: %s", buf.String())
	}
}

func TestLogSubscribeNeverBlocksWriter(t *testing.T) {
	l := New(100)
	ch, cancel := l.Subscribe()
	defer cancel()
	// Nobody reads ch while 50 entries go in: Append must not block.
	for i := 0; i < 50; i++ {
		l.Append(Entry{Dir: Out})
	}
	select {
	case <-ch:
	default:
		t.Fatal("no notification pending after appends")
	}
	if got := len(l.Since(0)); got != 50 {
		t.Errorf("Since(0) has %d entries, want 50", got)
	}
	cancel()
	l.Append(Entry{Dir: Out})
	select {
	case <-ch:
		t.Error("notification after cancel")
	default:
	}
}

func TestLogConcurrentAppendUniqueSeq(t *testing.T) {
	l := New(10000)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				l.Append(Entry{Dir: In})
			}
		}()
	}
	wg.Wait()
	es := l.Snapshot()
	if len(es) != 4000 {
		t.Fatalf("len = %d, want 4000", len(es))
	}
	for i, e := range es {
		if e.Seq != uint64(i+1) {
			t.Fatalf("entry %d has seq %d", i, e.Seq)
		}
	}
}

// TestLogMemoryBounded appends 100,000 entries of about 1 KiB to a 10,000-entry log and
// checks the live heap stays near what 10,000 entries need.
func TestLogMemoryBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory measurement")
	}
	raw := json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + string(bytes.Repeat([]byte("x"), 1000)) + `"}}`)
	l := New(10000)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := 0; i < 10000; i++ {
		l.Append(Entry{Server: "s", Dir: In, Size: len(raw), Raw: raw})
	}
	atCap := heap()
	for i := 0; i < 90000; i++ {
		l.Append(Entry{Server: "s", Dir: In, Size: len(raw), Raw: raw})
	}
	after := heap()
	t.Logf("heap: before %d KiB, at 10k %d KiB, after 100k %d KiB", before>>10, atCap>>10, after>>10)
	if after > atCap+atCap/4 {
		t.Errorf("heap grew from %d to %d bytes after the ring was full", atCap, after)
	}
	if l.Len() != 10000 {
		t.Errorf("Len() = %d", l.Len())
	}
}

func BenchmarkLogAppend(b *testing.B) {
	raw := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	l := New(10000)
	b.ReportAllocs()
	for b.Loop() {
		l.Append(Entry{Server: "s", Dir: Out, Size: len(raw), Raw: raw})
	}
}
