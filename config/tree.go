package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/tree"
)

// Limits on what a config file may expand to (YAML aliases can multiply values).
const (
	maxNodes = 100_000
	maxDepth = 1000
)

// parse parses one config file with package tree: imported files are JSON with comments
// and trailing commas (as VS Code and Cursor accept them), our own file is JSON or YAML.
// Errors are *Error with the line and column of the problem.
func parse(file string, data []byte, f format) (*tree.Node, error) {
	// hujson and go-toml recurse once per level: refuse a deep file before they see it.
	syntax := boundedfile.JSON
	switch {
	case f == formatCodex:
		syntax = boundedfile.TOML
	case f == formatOwn && !isJSON(file, data):
		syntax = boundedfile.YAML
	}
	if err := boundedfile.Nesting(file, data, syntax, maxDepth); err != nil {
		var be *boundedfile.Error
		if errors.As(err, &be) {
			return nil, &Error{Line: be.Line, Msg: be.Msg, Err: err}
		}
		return nil, err
	}
	opts := &tree.Options{MaxNodes: maxNodes, MaxDepth: maxDepth}
	var r *tree.Result
	var err error
	jsonish := true
	switch {
	case f == formatCodex:
		return parseTOML(data)
	case f != formatOwn:
		r, err = tree.ParseJSONC(data, opts)
	case isJSON(file, data):
		r, err = tree.ParseJSON(data, opts)
	default:
		jsonish = false
		r, err = tree.ParseYAML(data, opts)
	}
	if err != nil {
		return nil, parseError(data, jsonish, err)
	}
	return r.Root, nil
}

// parseError words a parse failure as config errors always were: JSON syntax errors in
// encoding/json's words at their line and column, duplicates with the first key's line.
func parseError(data []byte, jsonish bool, err error) *Error {
	var te *tree.Error
	if !errors.As(err, &te) {
		return &Error{Msg: err.Error(), Err: err}
	}
	at := te.Loc
	switch te.Kind {
	case tree.Duplicate:
		return &Error{Line: at.Line, Col: at.Column, Msg: fmt.Sprintf("duplicate key %q (first at line %d)", te.Key, te.First.Line)}
	case tree.Limit:
		return &Error{Line: at.Line, Col: at.Column, Msg: "file has too many or too deeply nested values"}
	}
	if !jsonish {
		return &Error{Line: at.Line, Col: at.Column, Msg: te.Msg, Err: te.Err}
	}
	switch {
	case strings.HasSuffix(te.Msg, "unexpected data after the top-level value"):
		return &Error{Line: at.Line, Col: at.Column, Msg: "unexpected data after the top-level value"}
	case strings.HasSuffix(te.Msg, "unexpected end of input") || errors.Is(te.Err, io.ErrUnexpectedEOF):
		end := tree.LocationAt(data, len(data))
		return &Error{Line: end.Line, Col: end.Column, Msg: "invalid JSON: unexpected end of file", Err: err}
	case te.Err == nil:
		// Our parser found it; encoding/json words it as users know it.
		var v any
		var se *json.SyntaxError
		if jerr := json.Unmarshal(data, &v); errors.As(jerr, &se) {
			at = tree.LocationAt(data, int(se.Offset)-1)
			return &Error{Line: at.Line, Col: at.Column, Msg: "invalid JSON: " + se.Error(), Err: jerr}
		}
	}
	return &Error{Line: at.Line, Col: at.Column, Msg: te.Msg, Err: err}
}

// kindName names a value's type in errors ("a string", "a list", ...).
func kindName(k tree.Kind) string {
	switch k {
	case tree.KindString:
		return "a string"
	case tree.KindNumber:
		return "a number"
	case tree.KindBool:
		return "a boolean"
	case tree.KindObject:
		return "an object"
	case tree.KindArray:
		return "a list"
	}
	return "null"
}

// entry is one member of an object.
type entry struct {
	key string
	at  tree.Location
	val *tree.Node
}

// members lists the members of an object node in file order.
func members(n *tree.Node) []entry {
	out := make([]entry, len(n.Keys))
	for i, k := range n.Keys {
		out[i] = entry{key: k, at: n.KeyLocs[i], val: n.Values[i]}
	}
	return out
}
