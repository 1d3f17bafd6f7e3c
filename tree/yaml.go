package tree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// ParseYAML parses the first YAML document (JSON is YAML too). An empty document gives
// a Result with a nil Root, except with StrictYAML, where it is an error. Errors are
// *Error; syntax errors carry the line (yaml.v3 gives no column).
func ParseYAML(data []byte, opts *Options) (res *Result, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	defer func() {
		// yaml.v3 reports its own failures as errors; anything else is a bug in it that
		// must not take the program down on a bad file.
		if r := recover(); r != nil {
			res, err = nil, &Error{Kind: Syntax, Offset: -1, Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			if o.StrictYAML {
				return nil, &Error{Kind: Syntax, Offset: -1, Msg: "the document is empty"}
			}
			return &Result{}, nil
		}
		return nil, yamlSyntax(err)
	}
	if o.StrictYAML {
		var extra yaml.Node
		if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
			if err != nil {
				return nil, yamlSyntax(err)
			}
			return nil, &Error{Kind: Unsupported, Offset: -1, Loc: Location{Line: extra.Line, Column: extra.Column}, Msg: "the file holds more than one YAML document"}
		}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		if o.StrictYAML {
			return nil, &Error{Kind: Syntax, Offset: -1, Msg: "the document is empty"}
		}
		return &Result{}, nil
	}
	c := &yamlConv{opts: o, maxDepth: o.depth()}
	n, err := c.convert(doc.Content[0], 0)
	if err != nil {
		return nil, err
	}
	return &Result{Root: n}, nil
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlSyntax turns a yaml.v3 error into an *Error with the line it names.
func yamlSyntax(err error) *Error {
	m := yamlLine().FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Kind: Syntax, Offset: -1, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "), Err: err}
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	if yamlParserError(msg) {
		// yaml.v3 reports parser errors (not scanner errors) at the 0-based line of
		// the construct being parsed; make it 1-based and say what it is.
		line++
		msg += " (in the block or list that starts on this line)"
	}
	return &Error{Kind: Syntax, Offset: -1, Loc: Location{Line: line}, Msg: "invalid YAML: " + msg, Err: err}
}

// yamlParserError reports whether a yaml.v3 message comes from its parser (parserc.go)
// rather than its scanner; the two count lines differently.
func yamlParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		msg == "found incompatible YAML document" ||
		msg == "found undefined tag handle"
}

type yamlConv struct {
	opts     Options
	maxDepth int
	nodes    int
}

func (c *yamlConv) fail(kind ErrorKind, loc Location, format string, args ...any) *Error {
	return &Error{Kind: kind, Loc: loc, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

func (c *yamlConv) convert(y *yaml.Node, depth int) (*Node, error) {
	loc := Location{Line: y.Line, Column: y.Column}
	c.nodes++
	if c.opts.MaxNodes > 0 && c.nodes > c.opts.MaxNodes {
		return nil, c.fail(Limit, loc, "the document has more than %d values", c.opts.MaxNodes)
	}
	if depth > c.maxDepth {
		return nil, c.fail(Limit, loc, "the document nests deeper than %d levels", c.maxDepth)
	}
	if c.opts.StrictYAML {
		switch {
		case y.Kind == yaml.AliasNode:
			return nil, c.fail(Unsupported, loc, "YAML aliases are not allowed")
		case y.Anchor != "":
			return nil, c.fail(Unsupported, loc, "YAML anchor %q is not allowed", y.Anchor)
		case y.Style&yaml.TaggedStyle != 0:
			return nil, c.fail(Unsupported, loc, "YAML tag %q is not allowed", y.Tag)
		}
	}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, c.fail(Syntax, loc, "unknown alias")
		}
		n, err := c.convert(y.Alias, depth+1)
		if err != nil {
			var te *Error
			if errors.As(err, &te) && te.Kind == Limit {
				te.Loc = loc // at the alias that expands too far, not inside its anchor
			}
			return nil, err
		}
		cp := *n
		cp.Loc = loc
		return &cp, nil
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &Node{Kind: KindNull, Loc: loc}, nil
		}
		return c.convert(y.Content[0], depth)
	case yaml.SequenceNode:
		n := &Node{Kind: KindArray, Loc: loc, Items: make([]*Node, 0, len(y.Content))}
		for _, item := range y.Content {
			v, err := c.convert(item, depth+1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
		return n, nil
	case yaml.MappingNode:
		return c.mapping(y, loc, depth)
	case yaml.ScalarNode:
		return c.scalar(y, loc)
	}
	return nil, c.fail(Unsupported, loc, "unsupported YAML value")
}

func (c *yamlConv) mapping(y *yaml.Node, loc Location, depth int) (*Node, error) {
	n := &Node{Kind: KindObject, Loc: loc}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		kloc := Location{Line: k.Line, Column: k.Column}
		if c.opts.StrictYAML {
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 {
				return nil, c.fail(Unsupported, kloc, "YAML mapping keys must be plain strings")
			}
			if t := k.ShortTag(); t != "!!str" && t != "!!timestamp" {
				return nil, c.fail(Unsupported, kloc, "YAML mapping key %q is not a string", k.Value)
			}
		} else {
			if k.Kind != yaml.ScalarNode {
				return nil, c.fail(Unsupported, kloc, "keys must be plain strings")
			}
			if k.Tag == "!!merge" {
				return nil, c.fail(Unsupported, kloc, "merge keys (<<) are not supported")
			}
		}
		val, err := c.convert(v, depth+1)
		if err != nil {
			return nil, err
		}
		if first := n.addMember(k.Value, kloc, val); first >= 0 {
			return nil, &Error{Kind: Duplicate, Loc: kloc, Offset: -1, Key: k.Value, First: n.KeyLocs[first],
				Msg: fmt.Sprintf("duplicate key %q", k.Value)}
		}
	}
	return n, nil
}

func (c *yamlConv) scalar(y *yaml.Node, loc Location) (*Node, error) {
	tag := y.ShortTag()
	n := &Node{Loc: loc, Tag: tag, Str: y.Value}
	switch tag {
	case "!!null":
		n.Kind, n.Str = KindNull, ""
		return n, nil
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			if c.opts.StrictYAML {
				return nil, c.fail(Syntax, loc, "invalid boolean %q", y.Value)
			}
			n.Kind = KindString
			return n, nil
		}
		n.Kind, n.Bool = KindBool, b
		return n, nil
	case "!!int", "!!float":
		n.Kind = KindNumber
		if tag == "!!int" {
			if i, err := strconv.ParseInt(y.Value, 0, 64); err == nil {
				n.Num = float64(i)
				if c.opts.StrictYAML {
					n.Str = strconv.FormatInt(i, 10)
				}
				return n, nil
			}
		}
		f, err := strconv.ParseFloat(y.Value, 64)
		if err != nil {
			if derr := y.Decode(&f); derr != nil {
				if c.opts.StrictYAML {
					return nil, c.fail(Syntax, loc, "invalid number %q", y.Value)
				}
				n.Kind = KindString
				return n, nil
			}
		}
		n.Num = f
		if c.opts.StrictYAML {
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, c.fail(Unsupported, loc, "number %q has no JSON representation", y.Value)
			}
			n.Str = strconv.FormatFloat(f, 'g', -1, 64)
		}
		return n, nil
	case "!!str", "!!timestamp": // YAML 1.2 has no timestamps: a date is a string
		n.Kind = KindString
		return n, nil
	}
	if c.opts.StrictYAML {
		return nil, c.fail(Unsupported, loc, "YAML value %q of type %s is not allowed", y.Value, tag)
	}
	n.Kind = KindString
	return n, nil
}
