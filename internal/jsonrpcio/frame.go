package jsonrpcio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxFrame is the largest JSON-RPC message read from a peer, on every transport and by
// the relay (go-sdk's stdio limit). A longer message is dropped unread and, when its id
// can be told (FrameID), fails its request with a clear error instead of ending the
// session.
const MaxFrame = 16 << 20

// FrameIDPrefix is how much of a dropped frame FrameID searches for its id.
const FrameIDPrefix = 64 << 10

// LineReader reads newline-delimited frames of at most a bound, reusing its buffer. It
// is not safe for concurrent use.
type LineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// NewLineReader returns a reader of r's lines of at most max bytes (MaxFrame when max
// <= 0).
func NewLineReader(r io.Reader, max int) *LineReader { return NewLineReaderSize(r, max, 64<<10) }

// NewLineReaderSize is NewLineReader reading r through a buffer of size bytes (a
// longer line is gathered anyway): a small one suits many short-lived streams.
func NewLineReaderSize(r io.Reader, max, size int) *LineReader {
	if max <= 0 {
		max = MaxFrame
	}
	return &LineReader{br: bufio.NewReaderSize(r, size), max: max}
}

// Next returns the next line (with its newline, when there was one) and whether it was
// longer than the bound; then only its first max bytes are returned and the rest is
// discarded. The slice is valid until the next call, unless Owned reports it.
func (f *LineReader) Next() (line []byte, tooLong bool, err error) {
	if cap(f.buf) > bigLine {
		f.buf = nil // do not keep a big buffer for the next small line
	}
	f.buf = f.buf[:0]
	n := 0
	for {
		chunk, err := f.br.ReadSlice('\n')
		n += len(chunk)
		if room := f.max - len(f.buf); room > 0 {
			take := chunk[:min(len(chunk), room)]
			if need := len(f.buf) + len(take); need > cap(f.buf) {
				// Double, never past max: append's 1.25x growth of big slices would
				// leave several frames' worth of garbage behind.
				nb := make([]byte, len(f.buf), min(f.max, max(need, 2*cap(f.buf))))
				copy(nb, f.buf)
				f.buf = nb
			}
			f.buf = append(f.buf, take...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			n--
		}
		return f.buf, n > f.max, err
	}
}

// Drain reads the rest of the input and discards it (so a writer never blocks on a
// reader that is gone); it returns the error that ended the input, nil at EOF.
func (f *LineReader) Drain() error {
	_, err := io.Copy(io.Discard, f.br)
	return err
}

// bigLine is the buffer size above which LineReader does not reuse its buffer.
const bigLine = 1 << 20

// Owned reports whether line, returned by LineReader.Next (or a part of it), is the
// caller's to keep: the reader never writes its buffer again.
func Owned(line []byte) bool { return cap(line) > bigLine }

// FrameID finds the top-level "id" of a (possibly truncated: a message over the size
// bound) JSON-RPC object in its first FrameIDPrefix bytes. isRequest reports a "method" member, wherever it is: go-sdk
// and most servers write "id" before "method", and a request taken for a response would
// fail a request of ours that happens to have the same id. A frame with an id but
// neither "method", "result" nor "error" in its prefix is taken for a response.
func FrameID(frame []byte) (id jsonrpc.ID, isRequest, ok bool) {
	if len(frame) > FrameIDPrefix {
		frame = frame[:FrameIDPrefix]
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return id, false, false
	}
	hasID, known := false, false // known: "method", "result" or "error" seen
	for dec.More() && !(hasID && known) {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		switch key {
		case "method":
			isRequest, known = true, true
		case "result", "error":
			known = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break // truncated: what was seen is all there is
		}
		if key == "id" {
			var raw any // a number decodes as float64, as jsonrpc.MakeID wants
			if json.Unmarshal(v, &raw) != nil {
				return id, isRequest, false
			}
			if id, err = jsonrpc.MakeID(raw); err != nil || !id.IsValid() {
				return id, isRequest, false
			}
			hasID = true
		}
	}
	return id, isRequest, hasID
}
