package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxFrame is the largest JSON-RPC message read from a server, on every transport (go-sdk's
// stdio limit). A longer message is dropped unread and, when its id can be told, fails
// its request with a clear error instead of ending the session.
const maxFrame = 16 << 20

// frameIDPrefix is how much of a dropped frame is searched for its id.
const frameIDPrefix = 64 << 10

// frameReader reads newline-delimited frames of at most max bytes, reusing its buffer.
type frameReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// next returns the next line (with its newline, when there was one) and whether it was
// longer than max; then only its first max bytes are returned and the rest is discarded.
// The slice is valid until the next call, unless owned reports it.
func (f *frameReader) next() (line []byte, tooLong bool, err error) {
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

// bigLine is the buffer size above which frameReader does not reuse its buffer.
const bigLine = 1 << 20

// owned reports whether line, returned by next (or a part of it), is the caller's to
// keep: frameReader never writes its buffer again.
func owned(line []byte) bool { return cap(line) > bigLine }

// frameID finds the top-level "id" of a (possibly truncated) JSON-RPC object in its
// first frameIDPrefix bytes. isRequest reports a "method" member, wherever it is: go-sdk
// and most servers write "id" before "method", and a request taken for a response would
// fail a request of ours that happens to have the same id. A frame with an id but
// neither "method", "result" nor "error" in its prefix is taken for a response.
func frameID(frame []byte) (id jsonrpc.ID, isRequest, ok bool) {
	if len(frame) > frameIDPrefix {
		frame = frame[:frameIDPrefix]
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

// refuseMethod is the method of the stand-in handed to go-sdk in place of a server
// request dropped unread (tap.refuse): no client has it, so go-sdk answers it with an
// error, which the tap rewrites to say why the request was refused.
const refuseMethod = "elicitty/refused"

// refusedError is the error answering a server request dropped unread.
func refusedError(reason string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "elicitty refused the request unread: " + reason}
}

// droppedResponse is the local error answering a request whose response was dropped.
func droppedResponse(id jsonrpc.ID, reason string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: "elicitty dropped the server's response: " + reason,
	}}
}

// frameTooLarge is the reason given for a frame over maxFrame.
func frameTooLarge() string {
	return fmt.Sprintf("message over the %d MiB frame limit", maxFrame>>20)
}
