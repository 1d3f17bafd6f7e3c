package desc

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/elicitty/elicitty/tree"
)

// Format is the serialization of a description file.
type Format string

// The two serializations of an MCP Description.
const (
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// Document is a loaded MCP Description: its root node and where it came from.
// It is not modified after loading and may be shared between goroutines.
type Document struct {
	// Source names the input, e.g. the file name or "<stdin>".
	Source string
	// Format is the serialization it was read from.
	Format Format
	// Root is the root value.
	Root *Node
}

// loadError is a parse failure, reported as a parse-error diagnostic.
type loadError struct {
	msg string
	loc Location
}

func (e *loadError) Error() string { return e.msg }

// detectFormat picks the format: the explicit one, else the extension, else the first
// non-blank byte ('{' means JSON).
func detectFormat(explicit Format, name string, data []byte) Format {
	if explicit != "" {
		return explicit
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".yaml", ".yml":
		return FormatYAML
	}
	if b := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(b) > 0 && b[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

// load parses data in the given format into a node tree.
func load(data []byte, format Format, maxDepth int) (*Node, *loadError) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		return nil, &loadError{msg: "the document is not valid UTF-8"}
	}
	if format == FormatJSON {
		return loadJSON(data, maxDepth)
	}
	return loadYAML(data, maxDepth)
}

// loadJSON parses strict JSON: no duplicate keys, nesting bounded by maxDepth.
func loadJSON(data []byte, maxDepth int) (*Node, *loadError) {
	r, err := tree.ParseJSON(data, &tree.Options{MaxDepth: maxDepth})
	if err != nil {
		return nil, treeError(err)
	}
	return r.Root, nil
}

// loadYAML decodes restricted YAML: one document, string keys, no duplicate keys, no
// tags, anchors or aliases, and only values JSON can represent.
func loadYAML(data []byte, maxDepth int) (*Node, *loadError) {
	r, err := tree.ParseYAML(data, &tree.Options{MaxDepth: maxDepth, StrictYAML: true})
	if err != nil {
		return nil, treeError(err)
	}
	return r.Root, nil
}

// treeError turns a parse failure into a parse-error diagnostic. A YAML syntax error
// keeps its line in the message but not as a location: yaml.v3 reports some errors at
// the line of the enclosing context, so the number can be off.
func treeError(err error) *loadError {
	var te *tree.Error
	if !errors.As(err, &te) {
		return &loadError{msg: err.Error()}
	}
	if te.Kind == tree.Syntax && te.Offset < 0 && te.Loc.Line > 0 {
		return &loadError{msg: strings.Replace(te.Msg, "invalid YAML: ", fmt.Sprintf("invalid YAML: line %d: ", te.Loc.Line), 1)}
	}
	return &loadError{msg: te.Msg, loc: te.Loc}
}
