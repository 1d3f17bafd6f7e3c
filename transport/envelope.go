package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxDepth is the deepest nesting of a message passed on: go-sdk refuses deeper ones, so
// the tap refuses them first and can fail their request with a clear error.
const maxDepth = 1000

// envelope is what the tap needs of a JSON-RPC message: its kind, method and id, and the
// raw params or result. It is read from the message's bytes in one pass without
// decoding the rest, so the message is decoded in full only once, by go-sdk.
type envelope struct {
	version   []byte // raw "jsonrpc" value
	method    string
	hasMethod bool
	id        jsonrpc.ID
	idRaw     []byte // raw "id" value (nil when absent)
	params    []byte
	paramsEnd int // offset just past params in the message
	result    []byte
	resultEnd int    // offset just past result in the message
	errRaw    []byte // raw "error" value
	// own says the message's bytes are not written again by their reader (a big
	// stdio frame, in a buffer of its own): the tap may keep parts of them uncopied.
	own bool
}

// isRequest reports a request or notification (a "method" member).
func (e *envelope) isRequest() bool { return e.hasMethod }

// isCall reports a request that expects an answer.
func (e *envelope) isCall() bool { return e.hasMethod && e.id.IsValid() }

// isError reports a response with a non-null error.
func (e *envelope) isError() bool { return len(e.errRaw) > 0 && string(e.errRaw) != "null" }

// jsonrpc2 reports whether the message says "jsonrpc": "2.0".
func (e *envelope) jsonrpc2() bool { return string(e.version) == `"2.0"` }

var (
	errNotObject = errors.New("not a JSON object")
	errTooDeep   = errors.New("nested too deep")
	errBadID     = errors.New("invalid id")
	errVersion   = errors.New("not JSON-RPC 2.0")
)

// parseEnvelope reads the envelope of one JSON-RPC message. It fails on anything that is
// not a valid JSON object nested at most maxDepth deep (what go-sdk would refuse), on a
// method that is not a string and on an id that is neither a string nor an integer.
func parseEnvelope(data []byte) (envelope, error) {
	var env envelope
	if !json.Valid(data) {
		return env, errors.New("invalid JSON")
	}
	if depthOver(data, maxDepth) {
		return env, errTooDeep
	}
	s := scanner{b: data}
	s.space()
	if !s.eat('{') {
		return env, errNotObject
	}
	s.space()
	for !s.eat('}') {
		s.space()
		ks := s.pos
		ke := s.skipString()
		key := data[ks+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(data[ks:ke], &k) // valid JSON: cannot fail
			key = []byte(k)
		}
		s.space()
		s.eat(':')
		s.space()
		vs := s.pos
		s.skipValue()
		v := data[vs:s.pos]
		switch string(key) {
		case "jsonrpc":
			env.version = v
		case "method":
			switch {
			case string(v) == "null":
				// go-sdk reads a null method as a present, empty one: a request for "".
				env.method, env.hasMethod = "", true
			case v[0] != '"':
				return env, errors.New("method is not a string")
			default:
				env.method, env.hasMethod = jsonString(v), true // as go-sdk reads it
			}
		case "id":
			env.idRaw = v
		case "params":
			env.params, env.paramsEnd = v, s.pos
		case "result":
			env.result, env.resultEnd = v, s.pos
		case "error":
			env.errRaw = v
		}
		s.space()
		s.eat(',')
	}
	if !env.jsonrpc2() {
		return env, fmt.Errorf("%w: version tag %s", errVersion, truncate(string(env.version), 20))
	}
	if env.idRaw != nil {
		id, err := parseID(env.idRaw)
		if err != nil {
			return env, err
		}
		env.id = id
	}
	if !env.hasMethod {
		if !env.id.IsValid() {
			return env, errors.New("response without an id")
		}
		if len(env.errRaw) > 0 && env.errRaw[0] != '{' && string(env.errRaw) != "null" {
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

// scanner walks JSON already known to be valid.
type scanner struct {
	b   []byte
	pos int
}

func (s *scanner) space() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.pos < len(s.b) && s.b[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// skipString skips the string at pos and returns the position after it.
func (s *scanner) skipString() int {
	s.pos++ // opening quote
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			return s.pos
		}
		s.pos++
	}
	return s.pos
}

// skipValue skips the value at pos.
func (s *scanner) skipValue() {
	if s.pos >= len(s.b) {
		return
	}
	switch s.b[s.pos] {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.pos < len(s.b) {
			switch s.b[s.pos] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return
				}
			}
			s.pos++
		}
	default: // number, true, false, null
		for s.pos < len(s.b) {
			switch s.b[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.pos++
		}
	}
}

// jsonString decodes a raw JSON string (as encoding/json does: invalid UTF-8 becomes
// U+FFFD); "" for anything else.
func jsonString(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
