package elicit

import (
	"encoding/json"
	"errors"
	"strings"
)

// jkind is the JSON type of a decoded node.
type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// String returns the JSON Schema name of the kind.
func (k jkind) String() string {
	switch k {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNumber:
		return "number"
	case jString:
		return "string"
	case jArray:
		return "array"
	case jObject:
		return "object"
	}
	return "unknown"
}

// jnode is one decoded JSON value that keeps object member order and the raw bytes
// of the value as sent.
type jnode struct {
	kind  jkind
	b     bool
	num   json.Number
	str   string
	items []*jnode
	keys  []string
	vals  []*jnode
	raw   json.RawMessage
}

// get returns the member named key of an object node, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// value converts the node to the plain Go value encoding/json would produce
// (float64 numbers, []any, map[string]any).
func (n *jnode) value() any {
	switch n.kind {
	case jBool:
		return n.b
	case jNumber:
		f, err := n.num.Float64()
		if err != nil {
			return nil
		}
		return f
	case jString:
		return n.str
	case jArray:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = it.value()
		}
		return out
	case jObject:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k] = n.vals[i].value()
		}
		return out
	}
	return nil
}

// maxDepth bounds nesting so hostile schemas cannot exhaust the stack.
const maxDepth = 64

// decodeTree decodes one JSON document into an order-preserving tree. Duplicate object
// keys keep their first position and their last value, as encoding/json does; their
// names are returned. The document is checked with json.Valid first, so the walk below
// only ever sees well-formed JSON.
func decodeTree(data []byte) (*jnode, []string, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for the error message
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, nil, err
	}
	p := treeParser{data: data}
	n, err := p.value(0)
	if err != nil {
		return nil, nil, err
	}
	return n, p.dups, nil
}

// treeParser walks well-formed JSON.
type treeParser struct {
	data []byte
	pos  int
	dups []string
}

func (p *treeParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *treeParser) value(depth int) (*jnode, error) {
	if depth > maxDepth {
		return nil, errors.New("schema nested too deeply")
	}
	p.ws()
	start := p.pos
	n := &jnode{}
	switch c := p.data[p.pos]; c {
	case '{':
		n.kind = jObject
		p.pos++
		p.ws()
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		for {
			p.ws()
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			p.pos++ // ':'
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if i := indexOf(n.keys, key); i >= 0 {
				n.vals[i] = v
				p.dups = append(p.dups, key)
			} else {
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			p.ws()
			c := p.data[p.pos]
			p.pos++
			if c == '}' {
				break
			}
		}
	case '[':
		n.kind = jArray
		p.pos++
		p.ws()
		if p.data[p.pos] == ']' {
			p.pos++
			break
		}
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
			p.ws()
			c := p.data[p.pos]
			p.pos++
			if c == ']' {
				break
			}
		}
	case '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.kind, n.str = jString, s
	case 't':
		n.kind, n.b = jBool, true
		p.pos += 4
	case 'f':
		n.kind = jBool
		p.pos += 5
	case 'n':
		n.kind = jNull
		p.pos += 4
	default:
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		n.kind, n.num = jNumber, json.Number(p.data[start:p.pos])
	}
	n.raw = json.RawMessage(p.data[start:p.pos])
	return n, nil
}

// str reads the string starting at p.pos.
func (p *treeParser) str() (string, error) {
	start := p.pos
	p.pos++
	escaped := false
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			escaped = true
			p.pos++
		}
		p.pos++
	}
	p.pos++
	if !escaped {
		return string(p.data[start+1 : p.pos-1]), nil
	}
	var s string
	if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
		return "", err
	}
	return s, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
