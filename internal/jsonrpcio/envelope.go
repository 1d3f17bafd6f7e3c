package jsonrpcio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxDepth is the deepest nesting of a message passed on: go-sdk refuses deeper ones, so
// ParseEnvelope refuses them first and its caller can fail their request with a clear
// error.
const MaxDepth = 1000

// Envelope is what a reader of JSON-RPC messages (the transport's tap, the relay)
// needs of one: its kind, method and id, and the raw params, result or error. It is
// read from the message's bytes in one pass without decoding the rest (ParseEnvelope),
// so the message is decoded in full only once, by go-sdk. Byte slices point into the
// parsed message. The zero value is an empty message.
type Envelope struct {
	Version   []byte // raw "jsonrpc" value
	Method    string
	HasMethod bool // a "method" member, even a null one
	ID        jsonrpc.ID
	IDRaw     []byte // raw "id" value (nil when absent)
	Params    []byte // raw "params" value (nil when absent)
	ParamsEnd int    // offset just past Params in the message
	Result    []byte // raw "result" value (nil when absent)
	ResultEnd int    // offset just past Result in the message
	ErrorRaw  []byte // raw "error" value (nil when absent)
	// Owned says the message's bytes are not written again by their reader (a big
	// frame, in a buffer of its own: see Owned): parts of them may be kept uncopied.
	// ParseEnvelope leaves it false; the reader sets it.
	Owned bool
}

// IsRequest reports a request or notification (a "method" member).
func (e *Envelope) IsRequest() bool { return e.HasMethod }

// IsCall reports a request that expects an answer.
func (e *Envelope) IsCall() bool { return e.HasMethod && e.ID.IsValid() }

// IsError reports a response with a non-null error.
func (e *Envelope) IsError() bool { return len(e.ErrorRaw) > 0 && string(e.ErrorRaw) != "null" }

// ParamsSpan returns where the params value lies in the message: [start, end).
func (e *Envelope) ParamsSpan() (start, end int) { return e.ParamsEnd - len(e.Params), e.ParamsEnd }

// jsonrpc2 reports whether the message says "jsonrpc": "2.0".
func (e *Envelope) jsonrpc2() bool { return string(e.Version) == `"2.0"` }

var (
	errNotObject = errors.New("not a JSON object")
	errTooDeep   = errors.New("nested too deep")
	errBadID     = errors.New("invalid id")
	// ErrVersion is the error of ParseEnvelope for a JSON object that does not say
	// "jsonrpc": "2.0" (a JSON log line, say, rather than a broken message).
	ErrVersion = errors.New("not JSON-RPC 2.0")
)

// ParseEnvelope reads the envelope of one JSON-RPC message. It fails on anything that is
// not a valid JSON object nested at most MaxDepth deep (what go-sdk would refuse), on a
// method that is not a string and on an id that is neither a string nor an integer.
func ParseEnvelope(data []byte) (Envelope, error) {
	var env Envelope
	if !json.Valid(data) {
		return env, errors.New("invalid JSON")
	}
	if depthOver(data, MaxDepth) {
		return env, errTooDeep
	}
	s := Scanner{B: data}
	s.Space()
	if !s.Eat('{') {
		return env, errNotObject
	}
	s.Space()
	for !s.Eat('}') {
		s.Space()
		ks := s.Pos
		ke := s.SkipString()
		key := data[ks+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(data[ks:ke], &k) // valid JSON: cannot fail
			key = []byte(k)
		}
		s.Space()
		s.Eat(':')
		s.Space()
		vs := s.Pos
		s.SkipValue()
		v := data[vs:s.Pos]
		switch string(key) {
		case "jsonrpc":
			env.Version = v
		case "method":
			switch {
			case string(v) == "null":
				// go-sdk reads a null method as a present, empty one: a request for "".
				env.Method, env.HasMethod = "", true
			case v[0] != '"':
				return env, errors.New("method is not a string")
			default:
				env.Method, env.HasMethod = JSONString(v), true // as go-sdk reads it
			}
		case "id":
			env.IDRaw = v
		case "params":
			env.Params, env.ParamsEnd = v, s.Pos
		case "result":
			env.Result, env.ResultEnd = v, s.Pos
		case "error":
			env.ErrorRaw = v
		}
		s.Space()
		s.Eat(',')
	}
	if !env.jsonrpc2() {
		// At most 20 runes of the tag: %.20s cuts at a rune, never inside one.
		return env, fmt.Errorf("%w: version tag %.20s", ErrVersion, string(env.Version))
	}
	if env.IDRaw != nil {
		id, err := parseID(env.IDRaw)
		if err != nil {
			return env, err
		}
		env.ID = id
	}
	if !env.HasMethod {
		if !env.ID.IsValid() {
			return env, errors.New("response without an id")
		}
		if len(env.ErrorRaw) > 0 && env.ErrorRaw[0] != '{' && string(env.ErrorRaw) != "null" {
			return env, errors.New("error is not an object")
		}
	}
	return env, nil
}

// parseID reads a raw JSON-RPC id as go-sdk does: a string, null, or a number decoded
// as a float64 and truncated to an integer.
func parseID(raw []byte) (jsonrpc.ID, error) {
	switch {
	case string(raw) == "null":
		return jsonrpc.ID{}, nil
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, errBadID
		}
		return jsonrpc.MakeID(s)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return jsonrpc.ID{}, errBadID
	}
	return jsonrpc.MakeID(f)
}

// depthOver reports whether valid JSON data nests deeper than max.
func depthOver(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// Scanner walks JSON already known to be valid (json.Valid): it does not check what it
// skips. Pos is the offset of the next byte of B to read.
type Scanner struct {
	B   []byte
	Pos int
}

// Space skips white space.
func (s *Scanner) Space() {
	for s.Pos < len(s.B) {
		switch s.B[s.Pos] {
		case ' ', '\t', '\n', '\r':
			s.Pos++
		default:
			return
		}
	}
}

// Eat skips c if it is the next byte and reports whether it was.
func (s *Scanner) Eat(c byte) bool {
	if s.Pos < len(s.B) && s.B[s.Pos] == c {
		s.Pos++
		return true
	}
	return false
}

// SkipString skips the string at Pos and returns the position after it.
func (s *Scanner) SkipString() int {
	s.Pos++ // opening quote
	for s.Pos < len(s.B) {
		switch s.B[s.Pos] {
		case '\\':
			s.Pos += 2
			continue
		case '"':
			s.Pos++
			return s.Pos
		}
		s.Pos++
	}
	return s.Pos
}

// SkipValue skips the value at Pos.
func (s *Scanner) SkipValue() {
	if s.Pos >= len(s.B) {
		return
	}
	switch s.B[s.Pos] {
	case '"':
		s.SkipString()
	case '{', '[':
		depth := 0
		for s.Pos < len(s.B) {
			switch s.B[s.Pos] {
			case '"':
				s.SkipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.Pos++
					return
				}
			}
			s.Pos++
		}
	default: // number, true, false, null
		for s.Pos < len(s.B) {
			switch s.B[s.Pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.Pos++
		}
	}
}

// JSONString decodes a raw JSON string (as encoding/json does: invalid UTF-8 becomes
// U+FFFD); "" for anything else.
func JSONString(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
