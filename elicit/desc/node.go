package desc

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Kind is the JSON type of a Node.
type Kind uint8

// The JSON types a document node can have.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// String returns the JSON Schema name of the kind.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "unknown"
}

// Location is a 1-based line and column in the source file.
type Location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Node is one value of a loaded document, JSON or YAML alike, with its position.
// Object members keep their source order. The zero value is a null without position.
type Node struct {
	Kind Kind
	// Str is the string value, or the number as written (canonical for YAML numbers).
	Str string
	// Num is the numeric value of a number.
	Num  float64
	Bool bool
	// Items are the elements of an array.
	Items []*Node
	// Keys and Values are the members of an object, in source order.
	Keys   []string
	Values []*Node
	// KeyLocs are the positions of the member keys.
	KeyLocs []Location
	Loc     Location
	index   map[string]int
}

const indexThreshold = 12

// Get returns the member named key of an object node.
func (n *Node) Get(key string) (*Node, bool) {
	if n == nil || n.Kind != KindObject {
		return nil, false
	}
	if n.index != nil {
		i, ok := n.index[key]
		if !ok {
			return nil, false
		}
		return n.Values[i], true
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Values[i], true
		}
	}
	return nil, false
}

// has reports whether an object node has the member key.
func (n *Node) has(key string) bool {
	_, ok := n.Get(key)
	return ok
}

// keyLoc returns the position of member key, or the node's own position.
func (n *Node) keyLoc(key string) Location {
	if n.index != nil {
		if i, ok := n.index[key]; ok {
			return n.KeyLocs[i]
		}
		return n.Loc
	}
	for i, k := range n.Keys {
		if k == key {
			return n.KeyLocs[i]
		}
	}
	return n.Loc
}

// addMember appends a member and reports false when key is already present.
func (n *Node) addMember(key string, loc Location, v *Node) bool {
	if n.index != nil {
		if _, dup := n.index[key]; dup {
			return false
		}
	} else {
		for _, k := range n.Keys {
			if k == key {
				return false
			}
		}
	}
	n.Keys = append(n.Keys, key)
	n.Values = append(n.Values, v)
	n.KeyLocs = append(n.KeyLocs, loc)
	if n.index != nil {
		n.index[key] = len(n.Keys) - 1
	} else if len(n.Keys) > indexThreshold {
		n.index = make(map[string]int, 2*len(n.Keys))
		for i, k := range n.Keys {
			n.index[k] = i
		}
	}
	return true
}

// str returns the string value and whether the node is a string.
func (n *Node) str() (string, bool) {
	if n == nil || n.Kind != KindString {
		return "", false
	}
	return n.Str, true
}

// isInt reports whether the node is a number with an integral value.
func (n *Node) isInt() bool {
	return n != nil && n.Kind == KindNumber && n.Num == float64(int64(n.Num))
}

// MarshalJSON encodes the node as JSON, keeping object member order.
func (n *Node) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	appendJSON(&buf, n)
	return buf.Bytes(), nil
}

func appendJSON(buf *bytes.Buffer, n *Node) {
	if n == nil {
		buf.WriteString("null")
		return
	}
	switch n.Kind {
	case KindNull:
		buf.WriteString("null")
	case KindBool:
		buf.WriteString(strconv.FormatBool(n.Bool))
	case KindNumber:
		buf.WriteString(n.Str)
	case KindString:
		appendString(buf, n.Str)
	case KindArray:
		buf.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			appendJSON(buf, it)
		}
		buf.WriteByte(']')
	case KindObject:
		buf.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			appendString(buf, k)
			buf.WriteByte(':')
			appendJSON(buf, n.Values[i])
		}
		buf.WriteByte('}')
	}
}

func appendString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Truncate(buf.Len() - 1)
}
