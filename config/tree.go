package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// pos is a 1-based line and column (in characters) inside a file; the zero value means unknown.
type pos struct{ line, col int }

// nodeKind is the JSON-like type of a parsed value.
type nodeKind int

const (
	kindNull nodeKind = iota
	kindString
	kindNumber
	kindBool
	kindObject
	kindArray
)

func (k nodeKind) String() string {
	switch k {
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	case kindObject:
		return "an object"
	case kindArray:
		return "a list"
	default:
		return "null"
	}
}

// node is a parsed YAML or JSON value that remembers where it was written, so that errors
// found after parsing can still point at a line and column. Object keys keep file order.
type node struct {
	kind  nodeKind
	at    pos
	text  string  // scalar text: the string, the number literal, "true" or "false"
	keys  []entry // kindObject
	items []*node // kindArray
}

// entry is one key of an object.
type entry struct {
	key string
	at  pos
	val *node
}

// maxNodes bounds the values a file may expand to (YAML aliases can multiply them).
const maxNodes = 100_000

// parseJSON parses strict JSON (one value, no trailing data) into a node tree.
func parseJSON(data []byte) (*node, error) {
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	start := p.next()
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		at := lineCol(data, start)
		return nil, &Error{Line: at.line, Col: at.col, Msg: "unexpected data after the top-level value"}
	}
	return n, nil
}

// jsonParser builds a node tree from encoding/json tokens, noting where each one starts.
type jsonParser struct {
	data  []byte
	dec   *json.Decoder
	count int
	depth int
	loc   locator
}

// locator converts increasing byte offsets to positions in time linear in the file size.
type locator struct {
	off, line, col int
}

func (l *locator) at(data []byte, off int) pos {
	if off > len(data) {
		off = len(data)
	}
	if off < l.off || l.line == 0 {
		l.off, l.line, l.col = 0, 1, 1
	}
	for ; l.off < off; l.off++ {
		switch c := data[l.off]; {
		case c == '\n':
			l.line, l.col = l.line+1, 1
		case c&0xC0 != 0x80: // the first byte of a character
			l.col++
		}
	}
	return pos{line: l.line, col: l.col}
}

// next returns the offset of the next token: the decoder's offset past whitespace and separators.
func (p *jsonParser) next() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
			continue
		}
		break
	}
	return i
}

func (p *jsonParser) token() (json.Token, pos, error) {
	off := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, pos{}, p.syntax(err)
	}
	return tok, p.loc.at(p.data, off), nil
}

func (p *jsonParser) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		at := lineCol(p.data, int(se.Offset))
		return &Error{Line: at.line, Col: at.col, Msg: "invalid JSON: " + se.Error(), Err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		at := lineCol(p.data, len(p.data))
		return &Error{Line: at.line, Col: at.col, Msg: "invalid JSON: unexpected end of file", Err: err}
	default:
		return &Error{Msg: "invalid JSON: " + err.Error(), Err: err}
	}
}

func (p *jsonParser) value() (*node, error) {
	tok, at, err := p.token()
	if err != nil {
		return nil, err
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 1000 {
		return nil, &Error{Line: at.line, Col: at.col, Msg: "file has too many or too deeply nested values"}
	}
	return p.fromToken(tok, at)
}

func (p *jsonParser) fromToken(tok json.Token, at pos) (*node, error) {
	p.count++
	if p.count > maxNodes {
		return nil, &Error{Line: at.line, Col: at.col, Msg: "file has too many or too deeply nested values"}
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull, at: at}, nil
	case string:
		return &node{kind: kindString, at: at, text: t}, nil
	case json.Number:
		return &node{kind: kindNumber, at: at, text: t.String()}, nil
	case bool:
		return &node{kind: kindBool, at: at, text: strconv.FormatBool(t)}, nil
	case json.Delim:
		if t == '[' {
			n := &node{kind: kindArray, at: at}
			for p.dec.More() {
				item, err := p.value()
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, item)
			}
			if _, _, err := p.token(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		}
		n := &node{kind: kindObject, at: at}
		seen := map[string]pos{}
		for p.dec.More() {
			kt, kat, err := p.token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			if first, dup := seen[key]; dup {
				return nil, &Error{Line: kat.line, Col: kat.col, Msg: fmt.Sprintf("duplicate key %q (first at line %d)", key, first.line)}
			}
			seen[key] = kat
			val, err := p.value()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, entry{key: key, at: kat, val: val})
		}
		if _, _, err := p.token(); err != nil { // '}'
			return nil, err
		}
		return n, nil
	}
	return nil, &Error{Line: at.line, Col: at.col, Msg: fmt.Sprintf("unexpected JSON token %v", tok)}
}

// lineCol converts a byte offset into a 1-based line and character column.
func lineCol(data []byte, off int) pos {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return pos{line: line, col: 1 + utf8.RuneCount(data[start:off])}
}

// stripJSONC blanks out // and /* */ comments and trailing commas, as VS Code and Cursor
// accept them, keeping every other byte (and so every offset, line and column) in place.
func stripJSONC(data []byte) []byte {
	out := bytes.Clone(data)
	inStr, esc := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
	}
	// Trailing commas: a comma whose next non-space byte closes an object or list.
	inStr, esc = false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c != ',' {
			continue
		}
		j := i + 1
		for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\r' || out[j] == '\n') {
			j++
		}
		if j < len(out) && (out[j] == '}' || out[j] == ']') {
			out[i] = ' '
		}
	}
	return out
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses the first YAML document into a node tree; an empty document gives nil.
func parseYAML(data []byte) (n *node, err error) {
	defer func() {
		// yaml.v3 reports its own failures as errors; anything else is a bug in it that must
		// not take the program down on a bad file.
		if r := recover(); r != nil {
			n, err = nil, &Error{Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			msg := m[2]
			if yamlParserError(msg) {
				// yaml.v3 reports parser errors (not scanner errors) at the 0-based line
				// of the construct being parsed; make it 1-based and say what it is.
				line++
				msg += " (in the block or list that starts on this line)"
			}
			return nil, &Error{Line: line, Msg: "invalid YAML: " + msg, Err: err}
		}
		return nil, &Error{Msg: "invalid YAML: " + trimYAML(err.Error()), Err: err}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	c := &yamlConv{}
	return c.convert(doc.Content[0], 0)
}

// yamlParserError reports whether a yaml.v3 message comes from its parser (parserc.go)
// rather than its scanner; the two count lines differently.
func yamlParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		msg == "found incompatible YAML document" ||
		msg == "found undefined tag handle"
}

func trimYAML(s string) string {
	const p = "yaml: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

type yamlConv struct{ count int }

func (c *yamlConv) convert(y *yaml.Node, depth int) (*node, error) {
	at := pos{line: y.Line, col: y.Column}
	c.count++
	if c.count > maxNodes || depth > 1000 {
		return nil, &Error{Line: at.line, Col: at.col, Msg: "file has too many or too deeply nested values"}
	}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{Line: at.line, Col: at.col, Msg: "unknown alias"}
		}
		n, err := c.convert(y.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		cp := *n
		cp.at = at
		return &cp, nil
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: kindNull, at: at}, nil
		}
		return c.convert(y.Content[0], depth+1)
	case yaml.SequenceNode:
		n := &node{kind: kindArray, at: at}
		for _, item := range y.Content {
			v, err := c.convert(item, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		return n, nil
	case yaml.MappingNode:
		n := &node{kind: kindObject, at: at}
		seen := map[string]pos{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			kat := pos{line: k.Line, col: k.Column}
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{Line: kat.line, Col: kat.col, Msg: "keys must be plain strings"}
			}
			if k.Tag == "!!merge" {
				return nil, &Error{Line: kat.line, Col: kat.col, Msg: "merge keys (<<) are not supported"}
			}
			if first, dup := seen[k.Value]; dup {
				return nil, &Error{Line: kat.line, Col: kat.col, Msg: fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, first.line)}
			}
			seen[k.Value] = kat
			val, err := c.convert(v, depth+1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, entry{key: k.Value, at: kat, val: val})
		}
		return n, nil
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case "!!null":
			return &node{kind: kindNull, at: at}, nil
		case "!!bool":
			b, err := strconv.ParseBool(y.Value)
			if err != nil {
				return &node{kind: kindString, at: at, text: y.Value}, nil
			}
			return &node{kind: kindBool, at: at, text: strconv.FormatBool(b)}, nil
		case "!!int", "!!float":
			return &node{kind: kindNumber, at: at, text: y.Value}, nil
		default:
			return &node{kind: kindString, at: at, text: y.Value}, nil
		}
	}
	return nil, &Error{Line: at.line, Col: at.col, Msg: "unsupported YAML value"}
}
