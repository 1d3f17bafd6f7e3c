package elicit

import (
	"encoding/json"

	"github.com/elicitty/elicitty/tree"
)

// maxDepth bounds nesting so hostile schemas cannot exhaust the stack.
const maxDepth = 64

// decodeTree decodes one JSON document into an order-preserving tree (package tree,
// linear in the input). Duplicate object keys keep their first position and their last
// value, as encoding/json does; their names are returned. Each node keeps its bytes as
// sent (Node.Raw), but arrays of strings and of flat objects of strings are packed
// (tree.Options.PackStrings and PackRecords: read their items with itemString and
// Node.Record): a million-option enum is one list of strings, and a million-choice
// oneOf one list of records.
func decodeTree(data []byte) (*tree.Node, []string, error) {
	r, err := tree.ParseJSON(data, &tree.Options{MaxDepth: maxDepth, KeepLastDuplicate: true, Raw: true, PackStrings: 1, PackRecords: 1})
	if err != nil {
		return nil, nil, err
	}
	return r.Root, r.Duplicates, nil
}

// jsonValue converts a node to the plain Go value encoding/json would produce (float64
// numbers, []any, map[string]any).
func jsonValue(n *tree.Node) any {
	switch n.Kind {
	case tree.KindBool:
		return n.Bool
	case tree.KindNumber:
		f, err := json.Number(n.Str).Float64()
		if err != nil {
			return nil
		}
		return f
	case tree.KindString:
		return n.Str
	case tree.KindArray:
		out := make([]any, n.Len())
		for i := range out {
			out[i] = jsonValue(n.Item(i))
		}
		return out
	case tree.KindObject:
		out := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			out[k] = jsonValue(n.Values[i])
		}
		return out
	}
	return nil
}

// itemString returns item i of the array n: its string and tree.KindString, or "" and
// the item's kind when it is not a string. It reads packed strings without making
// nodes.
func itemString(n *tree.Node, i int) (string, tree.Kind) {
	if strs, ok := n.Strings(); ok {
		return strs[i], tree.KindString
	}
	if _, _, ok := n.Record(i); ok {
		return "", tree.KindObject
	}
	it := n.Items[i]
	if it.Kind != tree.KindString {
		return "", it.Kind
	}
	return it.Str, tree.KindString
}
