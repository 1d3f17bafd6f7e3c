// Package tree parses JSON, JSONC and YAML into one order- and position-keeping tree:
// every value knows its line and column, object members keep their order, and
// duplicate keys are found. It is the one parser behind elicitty's config files,
// answers files, requestedSchemas and MCP Description files.
//
// Parsing is linear in the input: positions are computed by one forward cursor and
// duplicate keys by a map per large object. Limits on depth and node count bound
// hostile input. The package imports nothing of elicitty's.
package tree

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Kind is the JSON type of a Node.
type Kind uint8

// The JSON types a node can have.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// String returns the JSON Schema name of the kind ("null", "boolean", "number",
// "string", "array", "object").
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

// Location is a 1-based line and column (in characters) in the source; the zero value
// means unknown.
type Location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Node is one parsed value, JSON or YAML alike, with its position. Object members keep
// their source order. A parsed tree is not modified afterwards and may be read from
// several goroutines. The zero value is a null without position.
type Node struct {
	Kind Kind
	Bool bool
	// Str is the string value, or the number as written (JSON; canonical decimal for
	// strict YAML, as written otherwise).
	Str string
	// Num is the numeric value of a number (±Inf when out of range).
	Num float64
	// Tag is the YAML short tag of a scalar ("!!int", "!!str", "!!timestamp", ...);
	// empty for JSON.
	Tag string
	// Items are the elements of an array, unless it is packed (Options.PackStrings,
	// Options.PackRecords): then Items is nil and its elements are strings (Strings) or
	// flat objects of strings (Record). Len and Item read all three.
	Items []*Node
	// Keys and Values are the members of an object, in source order; KeyLocs are the
	// positions of the keys.
	Keys    []string
	Values  []*Node
	KeyLocs []Location
	// Loc is where the value starts.
	Loc Location
	// Raw is the value's bytes as written (JSON with Options.Raw only).
	Raw []byte

	index  map[string]int // member positions of a large object, built while parsing
	packed *packing       // the items of a packed array
}

// packing is the items of a packed array: strings (Options.PackStrings), or records,
// objects whose members are all strings (Options.PackRecords). Record i has the keys
// shapes[shape[i]] and the values vals[start[i]:][:len(keys)]; records with the same
// keys in the same order share them.
type packing struct {
	strs   []string
	shapes [][]string
	shape  []int32
	start  []int32
	vals   []string
}

// Strings returns the items of a packed array of strings (Options.PackStrings), and
// false for any other node, whose items, if any, are in Items or Record.
func (n *Node) Strings() ([]string, bool) {
	if n == nil || n.packed == nil || n.packed.shape != nil {
		return nil, false
	}
	return n.packed.strs, true
}

// Record returns the member keys and values, in source order, of item i of a packed
// array of records (Options.PackRecords), and false for any other node. The slices
// belong to the tree: they must not be modified.
func (n *Node) Record(i int) (keys, values []string, ok bool) {
	if n == nil || n.packed == nil || n.packed.shape == nil {
		return nil, nil, false
	}
	pk := n.packed
	keys = pk.shapes[pk.shape[i]]
	s, k := int(pk.start[i]), len(keys)
	return keys[:k:k], pk.vals[s : s+k : s+k], true
}

// Len returns the number of items of an array node, packed or not; 0 for other nodes.
func (n *Node) Len() int {
	if n == nil || n.Kind != KindArray {
		return 0
	}
	if n.packed != nil {
		if n.packed.shape != nil {
			return len(n.packed.shape)
		}
		return len(n.packed.strs)
	}
	return len(n.Items)
}

// Item returns item i of an array node. An item of a packed array is made on each
// call, a string or an object of strings, without positions or Raw: loops over big
// arrays read Strings or Record.
func (n *Node) Item(i int) *Node {
	if n.packed == nil {
		return n.Items[i]
	}
	keys, vals, ok := n.Record(i)
	if !ok {
		return &Node{Kind: KindString, Str: n.packed.strs[i]}
	}
	obj := &Node{Kind: KindObject, Keys: keys, Values: make([]*Node, len(vals)), KeyLocs: make([]Location, len(keys))}
	for j, v := range vals {
		obj.Values[j] = &Node{Kind: KindString, Str: v}
	}
	return obj
}

// indexThreshold is the member count above which an object keeps a key index.
const indexThreshold = 12

// Get returns the member named key of an object node.
func (n *Node) Get(key string) (*Node, bool) {
	i := n.memberIndex(key)
	if i < 0 {
		return nil, false
	}
	return n.Values[i], true
}

// At returns the member named key of an object node, or nil.
func (n *Node) At(key string) *Node {
	v, _ := n.Get(key)
	return v
}

// Has reports whether an object node has the member key.
func (n *Node) Has(key string) bool { return n.memberIndex(key) >= 0 }

// KeyLoc returns the position of member key, or the node's own position.
func (n *Node) KeyLoc(key string) Location {
	if i := n.memberIndex(key); i >= 0 {
		return n.KeyLocs[i]
	}
	return n.Loc
}

func (n *Node) memberIndex(key string) int {
	if n == nil || n.Kind != KindObject {
		return -1
	}
	if n.index != nil {
		if i, ok := n.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range n.Keys {
		if k == key {
			return i
		}
	}
	return -1
}

// AsString returns the string value and whether the node is a string.
func (n *Node) AsString() (string, bool) {
	if n == nil || n.Kind != KindString {
		return "", false
	}
	return n.Str, true
}

// IsInt reports whether the node is a number with an integral value.
func (n *Node) IsInt() bool {
	return n != nil && n.Kind == KindNumber && n.Num == float64(int64(n.Num))
}

// addMember appends a member; when key is already present it returns the index of the
// first one and adds nothing.
func (n *Node) addMember(key string, loc Location, v *Node) int {
	if i := n.memberIndex(key); i >= 0 {
		return i
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
	return -1
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
		if n.packed != nil {
			for i := range n.Len() {
				if i > 0 {
					buf.WriteByte(',')
				}
				appendJSON(buf, n.Item(i))
			}
		}
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
