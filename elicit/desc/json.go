package desc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonParser is a small recursive-descent JSON (RFC 8259) parser that records the
// line:column of every value and key, rejects duplicate keys and bounds nesting. It
// defers to encoding/json only to decode strings that contain escapes.
type jsonParser struct {
	data     []byte
	pos      int
	maxDepth int
	// cursor for incremental offset → line:column conversion
	off, line, col int
}

func loadJSON(data []byte, maxDepth int) (*Node, *loadError) {
	p := &jsonParser{data: data, maxDepth: maxDepth, line: 1, col: 1}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.fail(p.pos, "unexpected data after the top-level value")
	}
	return n, nil
}

// locAt converts a byte offset to a position; offsets arrive mostly in increasing order.
func (p *jsonParser) locAt(off int) Location {
	if off < p.off {
		p.off, p.line, p.col = 0, 1, 1
	}
	for p.off < off && p.off < len(p.data) {
		c := p.data[p.off]
		if c < utf8.RuneSelf {
			p.off++
			if c == '\n' {
				p.line++
				p.col = 1
			} else {
				p.col++
			}
			continue
		}
		_, size := utf8.DecodeRune(p.data[p.off:])
		p.off += size
		p.col++
	}
	return Location{Line: p.line, Column: p.col}
}

func (p *jsonParser) fail(off int, format string, args ...any) *loadError {
	return &loadError{msg: "invalid JSON: " + fmt.Sprintf(format, args...), loc: p.locAt(off)}
}

func (p *jsonParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) unexpected() *loadError {
	if p.pos >= len(p.data) {
		return p.fail(p.pos, "unexpected end of input")
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return p.fail(p.pos, "unexpected character %q", r)
}

func (p *jsonParser) value(depth int) (*Node, *loadError) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected()
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= p.maxDepth {
			return nil, &loadError{msg: fmt.Sprintf("the document nests deeper than %d levels", p.maxDepth), loc: p.locAt(start)}
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Node{Kind: KindString, Str: s, Loc: p.locAt(start)}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", &Node{Kind: KindBool, Bool: true})
	case c == 'f':
		return p.literal("false", &Node{Kind: KindBool})
	case c == 'n':
		return p.literal("null", &Node{Kind: KindNull})
	}
	return nil, p.unexpected()
}

func (p *jsonParser) literal(word string, n *Node) (*Node, *loadError) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.unexpected()
	}
	n.Loc = p.locAt(p.pos)
	p.pos += len(word)
	return n, nil
}

func (p *jsonParser) object(depth int) (*Node, *loadError) {
	n := &Node{Kind: KindObject, Loc: p.locAt(p.pos)}
	p.pos++ // {
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.pos < len(p.data) {
				return nil, p.fail(p.pos, "object key is not a string")
			}
			return nil, p.unexpected()
		}
		kpos := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		kloc := p.locAt(kpos)
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if !n.addMember(key, kloc, v) {
			return nil, &loadError{msg: fmt.Sprintf("duplicate key %q", key), loc: kloc}
		}
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.unexpected()
		}
	}
}

func (p *jsonParser) array(depth int) (*Node, *loadError) {
	n := &Node{Kind: KindArray, Loc: p.locAt(p.pos)}
	p.pos++ // [
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.unexpected()
		}
	}
}

// str reads a string starting at the opening quote.
func (p *jsonParser) str() (string, *loadError) {
	start := p.pos
	p.pos++
	escaped := false
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.fail(start, "bad string escape")
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.fail(p.pos, "control character in string")
		default:
			p.pos++
		}
	}
	return "", p.fail(start, "unterminated string")
}

// number reads a JSON number, checking its grammar.
func (p *jsonParser) number() (*Node, *loadError) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return nil, p.unexpected()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	lit := string(d[start:i])
	f, _ := strconv.ParseFloat(lit, 64) // out of range keeps ±Inf
	p.pos = i
	return &Node{Kind: KindNumber, Str: lit, Num: f, Loc: p.locAt(start)}, nil
}
