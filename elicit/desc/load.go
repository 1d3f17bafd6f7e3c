package desc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
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

// loadYAML decodes restricted YAML: one document, string keys, no duplicate keys, no
// tags, anchors or aliases, and only values JSON can represent.
func loadYAML(data []byte, maxDepth int) (*Node, *loadError) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &loadError{msg: "the document is empty"}
		}
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(err)
		}
		return nil, &loadError{msg: "the file holds more than one YAML document", loc: Location{Line: extra.Line, Column: extra.Column}}
	}
	return yamlNode(&doc, 0, maxDepth)
}

// yamlError turns a yaml.v3 error into a parse error. Its "line N" is kept in the
// message but not used as a location: yaml.v3 reports some errors at the 0-based line
// of the enclosing context, so the number can be one off.
func yamlError(err error) *loadError {
	return &loadError{msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

func yamlNode(y *yaml.Node, depth, maxDepth int) (*Node, *loadError) {
	loc := Location{Line: y.Line, Column: y.Column}
	if depth > maxDepth {
		return nil, &loadError{msg: fmt.Sprintf("the document nests deeper than %d levels", maxDepth), loc: loc}
	}
	if y.Kind == yaml.AliasNode {
		return nil, &loadError{msg: "YAML aliases are not allowed", loc: loc}
	}
	if y.Anchor != "" {
		return nil, &loadError{msg: fmt.Sprintf("YAML anchor %q is not allowed", y.Anchor), loc: loc}
	}
	if y.Style&yaml.TaggedStyle != 0 {
		return nil, &loadError{msg: fmt.Sprintf("YAML tag %q is not allowed", y.Tag), loc: loc}
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) != 1 {
			return nil, &loadError{msg: "the document is empty", loc: loc}
		}
		return yamlNode(y.Content[0], depth, maxDepth)
	case yaml.MappingNode:
		n := &Node{Kind: KindObject, Loc: loc}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			kloc := Location{Line: k.Line, Column: k.Column}
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 {
				return nil, &loadError{msg: "YAML mapping keys must be plain strings", loc: kloc}
			}
			if t := k.ShortTag(); t != "!!str" && t != "!!timestamp" {
				return nil, &loadError{msg: fmt.Sprintf("YAML mapping key %q is not a string", k.Value), loc: kloc}
			}
			v, err := yamlNode(y.Content[i+1], depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			if !n.addMember(k.Value, kloc, v) {
				return nil, &loadError{msg: fmt.Sprintf("duplicate key %q", k.Value), loc: kloc}
			}
		}
		return n, nil
	case yaml.SequenceNode:
		n := &Node{Kind: KindArray, Loc: loc, Items: make([]*Node, 0, len(y.Content))}
		for _, c := range y.Content {
			v, err := yamlNode(c, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
		return n, nil
	case yaml.ScalarNode:
		return yamlScalar(y, loc)
	}
	return nil, &loadError{msg: "unsupported YAML node", loc: loc}
}

func yamlScalar(y *yaml.Node, loc Location) (*Node, *loadError) {
	switch y.ShortTag() {
	case "!!str", "!!timestamp": // YAML 1.2 has no timestamps: a date is a string
		return &Node{Kind: KindString, Str: y.Value, Loc: loc}, nil
	case "!!null":
		return &Node{Kind: KindNull, Loc: loc}, nil
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return nil, &loadError{msg: fmt.Sprintf("invalid boolean %q", y.Value), loc: loc}
		}
		return &Node{Kind: KindBool, Bool: b, Loc: loc}, nil
	case "!!int":
		if i, err := strconv.ParseInt(y.Value, 0, 64); err == nil {
			return &Node{Kind: KindNumber, Str: strconv.FormatInt(i, 10), Num: float64(i), Loc: loc}, nil
		}
		var f float64
		if err := y.Decode(&f); err != nil {
			return nil, &loadError{msg: fmt.Sprintf("invalid integer %q", y.Value), loc: loc}
		}
		return numberNode(f, y.Value, loc)
	case "!!float":
		f, err := strconv.ParseFloat(y.Value, 64)
		if err != nil {
			if derr := y.Decode(&f); derr != nil {
				return nil, &loadError{msg: fmt.Sprintf("invalid number %q", y.Value), loc: loc}
			}
		}
		return numberNode(f, y.Value, loc)
	}
	return nil, &loadError{msg: fmt.Sprintf("YAML value %q of type %s is not allowed", y.Value, y.ShortTag()), loc: loc}
}

func numberNode(f float64, raw string, loc Location) (*Node, *loadError) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &loadError{msg: fmt.Sprintf("number %q has no JSON representation", raw), loc: loc}
	}
	return &Node{Kind: KindNumber, Str: strconv.FormatFloat(f, 'g', -1, 64), Num: f, Loc: loc}, nil
}
