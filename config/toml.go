package config

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/elicitty/elicitty/tree"
)

// parseTOML parses a TOML document (Codex's config.toml) into the same order- and
// position-keeping tree as JSON and YAML: tables become objects, arrays of tables
// arrays of objects, dates and times strings. The document is checked first by
// go-toml's decoder, which reports every syntax and semantic error (duplicate keys,
// redefined tables) at its line and column; the tree is then built from go-toml's
// positioned parser.
func parseTOML(data []byte) (*tree.Node, error) {
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &Error{Line: line, Col: col, Msg: "invalid TOML: " + strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &Error{Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: "), Err: err}
	}
	b := &tomlBuilder{lines: newLineIndex(data)}
	root := &tree.Node{Kind: tree.KindObject, Loc: tree.Location{Line: 1, Column: 1}}
	current := root
	p := &unstable.Parser{}
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		var err error
		switch e.Kind {
		case unstable.Table:
			current, err = b.table(root, e.Key(), false)
		case unstable.ArrayTable:
			current, err = b.table(root, e.Key(), true)
		case unstable.KeyValue:
			err = b.keyValue(current, e)
		}
		if err != nil {
			return nil, err
		}
		if b.nodes > maxNodes {
			return nil, &Error{Msg: "file has too many or too deeply nested values"}
		}
	}
	if err := p.Error(); err != nil { // the decoder above accepted it, so this is unexpected
		return nil, &Error{Msg: "invalid TOML: " + err.Error(), Err: err}
	}
	return root, nil
}

// tomlBuilder turns parser expressions into tree nodes.
type tomlBuilder struct {
	lines lineIndex
	nodes int
}

func (b *tomlBuilder) loc(r unstable.Range) tree.Location {
	return b.lines.at(int(r.Offset))
}

// keys lists a dotted key's parts with their positions.
func (b *tomlBuilder) keys(it unstable.Iterator) (parts []string, locs []tree.Location) {
	for it.Next() {
		k := it.Node()
		parts = append(parts, string(k.Data))
		locs = append(locs, b.loc(k.Raw))
	}
	return parts, locs
}

// child returns the member key of obj, creating an empty object there if absent. A
// member that is an array of tables gives its last table.
func (b *tomlBuilder) child(obj *tree.Node, key string, at tree.Location) (*tree.Node, error) {
	if v, ok := obj.Get(key); ok {
		switch {
		case v.Kind == tree.KindObject:
			return v, nil
		case v.Kind == tree.KindArray && len(v.Items) > 0 && v.Items[len(v.Items)-1].Kind == tree.KindObject:
			return v.Items[len(v.Items)-1], nil
		}
		return nil, &Error{Line: at.Line, Col: at.Column, Msg: fmt.Sprintf("invalid TOML: key %q is not a table", key)}
	}
	n := &tree.Node{Kind: tree.KindObject, Loc: at}
	b.add(obj, key, at, n)
	return n, nil
}

func (b *tomlBuilder) add(obj *tree.Node, key string, at tree.Location, val *tree.Node) {
	b.nodes++
	obj.Keys = append(obj.Keys, key)
	obj.KeyLocs = append(obj.KeyLocs, at)
	obj.Values = append(obj.Values, val)
}

// table handles a [table] or [[array table]] header and returns the table that the
// following key/value lines fill.
func (b *tomlBuilder) table(root *tree.Node, it unstable.Iterator, array bool) (*tree.Node, error) {
	parts, locs := b.keys(it)
	if len(parts) == 0 {
		return root, nil
	}
	obj := root
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		var err error
		if obj, err = b.child(obj, parts[i], locs[i]); err != nil {
			return nil, err
		}
	}
	if !array {
		return b.child(obj, parts[last], locs[last])
	}
	arr, ok := obj.Get(parts[last])
	if !ok {
		arr = &tree.Node{Kind: tree.KindArray, Loc: locs[last]}
		b.add(obj, parts[last], locs[last], arr)
	}
	if arr.Kind != tree.KindArray {
		return nil, &Error{Line: locs[last].Line, Col: locs[last].Column, Msg: fmt.Sprintf("invalid TOML: key %q is not an array of tables", parts[last])}
	}
	t := &tree.Node{Kind: tree.KindObject, Loc: locs[last]}
	b.nodes++
	arr.Items = append(arr.Items, t)
	return t, nil
}

// keyValue adds `a.b.c = value` to obj.
func (b *tomlBuilder) keyValue(obj *tree.Node, e *unstable.Node) error {
	parts, locs := b.keys(e.Key())
	if len(parts) == 0 {
		return nil
	}
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		var err error
		if obj, err = b.child(obj, parts[i], locs[i]); err != nil {
			return err
		}
	}
	val, err := b.value(e.Value(), locs[last])
	if err != nil {
		return err
	}
	b.add(obj, parts[last], locs[last], val)
	return nil
}

// value converts a value node; at is used where the parser keeps no position
// (arrays).
func (b *tomlBuilder) value(v *unstable.Node, at tree.Location) (*tree.Node, error) {
	b.nodes++
	n := &tree.Node{Loc: at}
	if v.Raw.Length > 0 {
		n.Loc = b.loc(v.Raw)
	}
	switch v.Kind {
	case unstable.String:
		n.Kind, n.Str = tree.KindString, string(v.Data)
	case unstable.Bool:
		n.Kind, n.Bool, n.Str = tree.KindBool, string(v.Data) == "true", string(v.Data)
	case unstable.Integer, unstable.Float:
		n.Kind, n.Str = tree.KindNumber, strings.ReplaceAll(string(v.Data), "_", "")
		n.Num, _ = strconv.ParseFloat(n.Str, 64) // hex, octal and binary stay 0; Str keeps the text
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		n.Kind, n.Str = tree.KindString, string(v.Data)
	case unstable.Array:
		n.Kind = tree.KindArray
		it := v.Children()
		first := true
		for it.Next() {
			item, err := b.value(it.Node(), at)
			if err != nil {
				return nil, err
			}
			if first && v.Raw.Length == 0 {
				n.Loc, first = item.Loc, false
			}
			n.Items = append(n.Items, item)
		}
	case unstable.InlineTable:
		n.Kind = tree.KindObject
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				if err := b.keyValue(n, kv); err != nil {
					return nil, err
				}
			}
		}
	default:
		return nil, &Error{Line: n.Loc.Line, Col: n.Loc.Column, Msg: "invalid TOML: unexpected " + v.Kind.String()}
	}
	return n, nil
}

// lineIndex converts byte offsets to 1-based lines and columns (in characters).
type lineIndex struct {
	data   []byte
	starts []int // offset of the first byte of each line
}

func newLineIndex(data []byte) lineIndex {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{data: data, starts: starts}
}

func (l lineIndex) at(off int) tree.Location {
	if off > len(l.data) {
		off = len(l.data)
	}
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return tree.Location{Line: i + 1, Column: utf8.RuneCount(l.data[l.starts[i]:off]) + 1}
}
