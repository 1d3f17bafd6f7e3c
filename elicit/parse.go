package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tree"
)

// Parse reads a raw requestedSchema, keeping the server's property order, into a Form
// for the given negotiated protocol version. It never fails: problems become Findings,
// unrenderable properties (nested objects, arrays of objects, missing or unknown types)
// become KindRaw fields, defaults that contradict their own field are dropped, and a
// schema it cannot understand (missing, not JSON, not an object schema, a keyword of the
// wrong JSON type) sets Unvalidatable.
//
// Titles, descriptions and option labels are sanitized (safe.Block); names and option
// values are kept as sent, since they go back on the wire.
//
// The empty schema {} and an object schema without properties are confirm forms: no
// fields, answered with accept, decline or cancel.
func Parse(schema json.RawMessage, protocol string) *Form {
	return ParseWith(schema, protocol, nil)
}

// ParseWith is Parse with options; nil means Parse's defaults.
func ParseWith(schema json.RawMessage, protocol string, opts *ParseOptions) *Form {
	b := &builder{form: &Form{}, vocab: vocabularyOf(protocol), protocol: protocol}
	if opts != nil {
		b.opts = *opts
	}
	data := bytes.TrimSpace(schema)
	if len(data) == 0 || string(data) == "null" {
		b.malformed("", "requestedSchema is missing")
		return b.form
	}
	root, dups, err := decodeTree(data)
	if err != nil {
		var te *tree.Error
		if errors.As(err, &te) && te.Loc.Line > 0 {
			b.malformed("", "requestedSchema is not valid JSON at line %d, column %d: %s", te.Loc.Line, te.Loc.Column, strings.TrimPrefix(te.Msg, "invalid JSON: "))
		} else {
			b.malformed("", "requestedSchema is not valid JSON: %v", err)
		}
		return b.form
	}
	for _, k := range dups {
		b.warn("", CodeDuplicateKey, "key %q appears more than once; the last value is used", k)
	}
	b.root(root)
	return b.form
}

// Finding codes reported by Parse.
const (
	CodeMalformed          = "malformed"
	CodeDuplicateKey       = "duplicate-key"
	CodeMissingType        = "missing-type"
	CodeUnknownType        = "unknown-type"
	CodeNestedObject       = "nested-object"
	CodeArrayOfObjects     = "array-of-objects"
	CodeUnsupportedShape   = "unsupported-shape"
	CodeUnsupportedKeyword = "unsupported-keyword"
	CodeUnsupportedFormat  = "unsupported-format"
	CodeNotInVersion       = "not-in-version"
	CodeEnumNamesLength    = "enumnames-length"
	CodeDuplicateChoice    = "duplicate-choice"
	CodeBadChoice          = "bad-choice"
	CodeMinAboveMax        = "min-above-max"
	CodeUnknownRequired    = "unknown-required"
	CodeBadPattern         = "bad-pattern"
	CodeDefaultDropped     = "default-dropped"
	CodeDefaultOutsideEnum = "default-outside-enum"
	CodeDefaultTrimmed     = "default-trimmed"
	CodeSecretField        = "secret-field"
)

type builder struct {
	form     *Form
	vocab    vocabulary
	protocol string
	opts     ParseOptions
}

func (b *builder) add(path, code string, sev Severity, format string, args ...any) {
	b.form.Findings = append(b.form.Findings, Finding{Path: path, Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) warn(path, code, format string, args ...any) {
	b.add(path, code, SevWarning, format, args...)
}

// malformed records a schema defect that makes validation impossible.
func (b *builder) malformed(path, format string, args ...any) {
	b.form.Unvalidatable = true
	b.add(path, CodeMalformed, SevError, format+"; validation is skipped", args...)
}

var topKeywords = map[string]bool{"$schema": true, "type": true, "properties": true, "required": true, "title": true, "description": true}

func (b *builder) root(root *tree.Node) {
	if root.Kind != tree.KindObject {
		b.malformed("", "requestedSchema is a JSON %s, not an object schema", root.Kind)
		return
	}
	for _, k := range root.Keys {
		if !topKeywords[k] {
			b.warn("/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q is not part of the elicitation vocabulary and is ignored", k)
		}
	}
	if ap := root.At("additionalProperties"); ap != nil {
		b.form.ExtraKeys = ap.Kind == tree.KindObject || (ap.Kind == tree.KindBool && ap.Bool)
	}
	if s := root.At("$schema"); s != nil {
		if s.Kind != tree.KindString {
			b.malformed("/$schema", "$schema is a JSON %s, not a string", s.Kind)
		} else if b.vocab.legacy {
			b.warn("/$schema", CodeNotInVersion, "$schema is not part of the %s vocabulary", b.protocol)
		}
	}
	switch t := root.At("type"); {
	case t == nil:
		b.warn("/type", CodeMissingType, `requestedSchema has no "type":"object"`)
	case t.Kind != tree.KindString:
		b.malformed("/type", "type is a JSON %s, not a string", t.Kind)
		return
	case t.Str != "object":
		b.malformed("/type", "requestedSchema has type %q, not an object schema", t.Str)
		return
	}
	for _, k := range []string{"title", "description"} {
		if v := root.At(k); v != nil && v.Kind != tree.KindString {
			b.malformed("/"+k, "%s is a JSON %s, not a string", k, v.Kind)
		}
	}
	props := root.At("properties")
	if props != nil && props.Kind != tree.KindObject {
		b.malformed("/properties", "properties is a JSON %s, not an object", props.Kind)
		props = nil
	}
	if props != nil {
		b.form.Fields = make([]Field, 0, len(props.Keys))
		for i, name := range props.Keys {
			path := "/properties/" + escapePointer(name)
			seen := len(b.form.Findings)
			fld := b.field(name, props.Values[i], path)
			if b.opts.FileInputs && b.fileField(&fld, path) {
				// x-mcp-file is the field's vocabulary now: what was said of the
				// plain field (unknown keyword, array of strings) no longer holds.
				b.form.Findings = b.form.Findings[:seen]
			} else {
				b.fileKeywordOff(seen, path)
			}
			b.form.Fields = append(b.form.Fields, fld)
		}
	}
	if req := root.At("required"); req != nil {
		if req.Kind != tree.KindArray {
			b.malformed("/required", "required is a JSON %s, not an array", req.Kind)
		} else {
			for i := range req.Len() {
				path := "/required/" + strconv.Itoa(i)
				name, kind := itemString(req, i)
				if kind != tree.KindString {
					b.malformed(path, "required entry is a JSON %s, not a string", kind)
					continue
				}
				found := false
				for j := range b.form.Fields {
					if b.form.Fields[j].Name == name {
						b.form.Fields[j].Required = true
						found = true
					}
				}
				if !found {
					b.warn(path, CodeUnknownRequired, "required names %q, which is not a property; ignored", name)
				}
			}
		}
	}
	for i := range b.form.Fields {
		fld := &b.form.Fields[i]
		if fld.Secret || looksSecret(fld) {
			fld.Secret = true
			b.warn("/properties/"+escapePointer(fld.Name), CodeSecretField,
				"field %q looks like a secret; form mode must not collect passwords, tokens, keys or card numbers (servers should use URL mode)", fld.Name)
		}
	}
}

// field builds one property.
func (b *builder) field(name string, n *tree.Node, path string) Field {
	fld := Field{Name: name, Raw: n.Raw, Kind: KindRaw}
	if n.Kind != tree.KindObject {
		b.malformed(path, "property schema is a JSON %s, not an object", n.Kind)
		return fld
	}
	fld.Title = safe.Block(b.str(n, "title", path))
	fld.Description = safe.Block(b.str(n, "description", path))
	t := n.At("type")
	typ := ""
	switch {
	case t == nil:
		b.warn(path, CodeMissingType, "property %q has no type; it is answered as raw JSON", name)
	case t.Kind == tree.KindArray:
		b.warn(path+"/type", CodeUnknownType, "property %q has a union type; it is answered as raw JSON", name)
		typ = "union"
	case t.Kind != tree.KindString:
		b.malformed(path+"/type", "type is a JSON %s, not a string", t.Kind)
		return fld
	default:
		typ = t.Str
	}
	switch typ {
	case "string":
		b.stringField(&fld, n, path)
	case "number", "integer":
		fld.Kind = KindNumber
		if typ == "integer" {
			fld.Kind = KindInteger
		}
		fld.Minimum = b.num(n, "minimum", path)
		fld.Maximum = b.num(n, "maximum", path)
		if fld.Minimum != nil && fld.Maximum != nil && *fld.Minimum > *fld.Maximum {
			b.warn(path, CodeMinAboveMax, "minimum %v is above maximum %v; no value can be valid", *fld.Minimum, *fld.Maximum)
		}
	case "boolean":
		fld.Kind = KindBool
	case "array":
		b.arrayField(&fld, n, path)
	case "object":
		b.warn(path, CodeNestedObject, "property %q is a nested object, which elicitation forms do not allow; it is answered as raw JSON", name)
	case "", "union":
	default:
		b.warn(path+"/type", CodeUnknownType, "property %q has type %q, which elicitation forms do not allow; it is answered as raw JSON", name, typ)
	}
	b.keywords(&fld, n, path)
	if d := n.At("default"); d != nil {
		b.defaultOf(&fld, d, path+"/default")
	}
	return fld
}

func (b *builder) stringField(fld *Field, n *tree.Node, path string) {
	enum, oneOf := n.At("enum"), n.At("oneOf")
	switch {
	case enum != nil:
		fld.Kind = KindSelect
		if enum.Kind != tree.KindArray {
			b.malformed(path+"/enum", "enum is a JSON %s, not an array", enum.Kind)
			return
		}
		fld.Options = b.enumOptions(enum, path+"/enum")
		if names := n.At("enumNames"); names != nil {
			if names.Kind != tree.KindArray {
				b.malformed(path+"/enumNames", "enumNames is a JSON %s, not an array", names.Kind)
			} else {
				if nn, ne := names.Len(), enum.Len(); nn != ne {
					b.warn(path+"/enumNames", CodeEnumNamesLength, "enumNames has %d %s for %d %s", nn, Plural(nn, "label"), ne, Plural(ne, "choice"))
				}
				b.labelFromNames(fld, enum, names, path)
			}
		}
		if oneOf != nil {
			b.warn(path+"/oneOf", CodeUnsupportedKeyword, "oneOf beside enum is ignored")
		}
	case oneOf != nil:
		if b.vocab.legacy {
			b.warn(path+"/oneOf", CodeNotInVersion, "titled single-select (oneOf) is not part of the %s vocabulary", b.protocol)
		}
		opts, ok := b.constOptions(oneOf, path+"/oneOf")
		if !ok {
			fld.Kind = KindRaw
			b.warn(path+"/oneOf", CodeUnsupportedShape, "oneOf is not a list of {const, title} choices; it is answered as raw JSON")
			return
		}
		fld.Kind = KindSelect
		fld.Options = opts
	default:
		fld.Kind = KindText
		fld.MinLength = b.count(n, "minLength", path)
		fld.MaxLength = b.count(n, "maxLength", path)
		if fld.MinLength != nil && fld.MaxLength != nil && *fld.MinLength > *fld.MaxLength {
			b.warn(path, CodeMinAboveMax, "minLength %d is above maxLength %d; no value can be valid", *fld.MinLength, *fld.MaxLength)
		}
		if f := b.str(n, "format", path); f != "" {
			if StringFormats[f] {
				fld.Format = f
			} else if secretFormats[f] {
				fld.Secret = true
			} else {
				b.warn(path+"/format", CodeUnsupportedFormat, "format %q is not one of email, uri, date, date-time; it is not checked", f)
			}
		}
		if p := b.str(n, "pattern", path); p != "" {
			if _, err := regexp.Compile(p); err != nil {
				b.warn(path+"/pattern", CodeBadPattern, "pattern does not compile and is not checked: %v", err)
			} else {
				fld.Pattern = p
			}
		}
	}
}

func (b *builder) labelFromNames(fld *Field, enum, names *tree.Node, path string) {
	// Options were built from the enum members that are strings, in order, each value
	// once: walking the members beside the options gives each option the label at the
	// position of its first member, without a lookup.
	k := 0
	for i := range min(enum.Len(), names.Len()) {
		if k == len(fld.Options) {
			break
		}
		if s, kind := itemString(enum, i); kind != tree.KindString || s != fld.Options[k].Value {
			continue // skipped by enumOptions: not a string, or a duplicate
		}
		k++
		nm, kind := itemString(names, i)
		if kind != tree.KindString {
			b.malformed(path+"/enumNames/"+strconv.Itoa(i), "enumNames entry is a JSON %s, not a string", kind)
			continue
		}
		if nm != "" {
			fld.Options[k-1].Label = safe.Block(nm)
		}
	}
}

// enumOptions turns enum members into options, skipping non-strings and duplicates.
func (b *builder) enumOptions(enum *tree.Node, path string) []Option {
	if strs, ok := enum.Strings(); ok {
		// Packed: the list is checked at once, and each value is the list's string.
		opts := make([]Option, 0, len(strs))
		dup := repeats(strs)
		for i, s := range strs {
			if dup[i/64]&(1<<(i%64)) != 0 {
				b.warn(itemPath(path, i), CodeDuplicateChoice, "choice %q is listed twice", s)
				continue
			}
			opts = append(opts, Option{Value: s, Label: safe.Block(s)})
		}
		return opts
	}
	opts := make([]Option, 0, enum.Len())
	seen := newStrSet(enum.Len())
	for i := range enum.Len() {
		s, kind := itemString(enum, i)
		if kind != tree.KindString {
			b.warn(itemPath(path, i), CodeBadChoice, "choice is a JSON %s, not a string; it is skipped", kind)
			continue
		}
		if !seen.add(s) {
			b.warn(itemPath(path, i), CodeDuplicateChoice, "choice %q is listed twice", s)
			continue
		}
		opts = append(opts, Option{Value: s, Label: safe.Block(s)})
	}
	return opts
}

// itemPath is the JSON Pointer of item i of the array at path, made only when a finding
// needs it: lists may have a million items.
func itemPath(path string, i int) string { return path + "/" + strconv.Itoa(i) }

// constOptions reads a oneOf/anyOf list of {const, title}; ok is false when the list has
// another shape (then the field cannot be a plain choice).
func (b *builder) constOptions(list *tree.Node, path string) ([]Option, bool) {
	if list.Kind != tree.KindArray {
		b.malformed(path, "%s is a JSON %s, not an array", path[strings.LastIndexByte(path, '/')+1:], list.Kind)
		return nil, false
	}
	// The values are checked for repeats at once (a list may have a million), then
	// each choice is read again, in order, to report what it holds.
	n := list.Len()
	values := make([]string, 0, n)
	for i := range n {
		c, ok := choiceAt(list, i)
		if !ok {
			return nil, false
		}
		if c.constKind == tree.KindString {
			values = append(values, c.value)
		}
	}
	dup := repeats(values)
	opts := make([]Option, 0, len(values))
	v := 0 // index in values
	for i := range n {
		c, _ := choiceAt(list, i)
		if c.constKind != tree.KindString {
			b.warn(itemPath(path, i)+"/const", CodeBadChoice, "const is a JSON %s, not a string; the choice is skipped", c.constKind)
			continue
		}
		k := v
		v++
		label := c.value
		if c.hasTitle {
			if c.titleKind != tree.KindString {
				b.malformed(itemPath(path, i)+"/title", "title is a JSON %s, not a string", c.titleKind)
			} else if c.title != "" {
				label = c.title
			}
		}
		for _, key := range c.keys {
			if key != "const" && key != "title" && key != "description" && key != "type" {
				b.warn(itemPath(path, i)+"/"+escapePointer(key), CodeUnsupportedKeyword, "keyword %q in a choice is ignored", key)
			}
		}
		if dup[k/64]&(1<<(k%64)) != 0 {
			b.warn(itemPath(path, i), CodeDuplicateChoice, "choice %q is listed twice", c.value)
			continue
		}
		opts = append(opts, Option{Value: c.value, Label: safe.Block(label)})
	}
	return opts, true
}

// choice is one item of a oneOf/anyOf list as constOptions reads it: its keys, and
// its const and title with their JSON kinds (strings in value and title).
type choice struct {
	keys                 []string
	constKind, titleKind tree.Kind
	hasTitle             bool
	value, title         string
}

// choiceAt reads item i of list, packed as a record or not; ok is false when the item
// is not an object with a const.
func choiceAt(list *tree.Node, i int) (c choice, ok bool) {
	if keys, vals, packed := list.Record(i); packed {
		c.keys = keys
		for j, k := range keys {
			switch k {
			case "const":
				c.constKind, c.value, ok = tree.KindString, vals[j], true
			case "title":
				c.titleKind, c.title, c.hasTitle = tree.KindString, vals[j], true
			}
		}
		return c, ok
	}
	if _, packed := list.Strings(); packed {
		return c, false // strings, not {const, title} objects
	}
	it := list.Items[i]
	cn := it.At("const")
	if it.Kind != tree.KindObject || cn == nil {
		return c, false
	}
	c.keys, c.constKind, c.value = it.Keys, cn.Kind, cn.Str
	if t := it.At("title"); t != nil {
		c.titleKind, c.title, c.hasTitle = t.Kind, t.Str, true
	}
	return c, true
}

func (b *builder) arrayField(fld *Field, n *tree.Node, path string) {
	items := n.At("items")
	if items == nil {
		b.warn(path, CodeUnsupportedShape, "array property %q has no items choices; it is answered as raw JSON", fld.Name)
		return
	}
	ip := path + "/items"
	if items.Kind != tree.KindObject {
		b.malformed(ip, "items is a JSON %s, not an object", items.Kind)
		return
	}
	it := items.At("type")
	if it != nil && it.Kind != tree.KindString && it.Kind != tree.KindArray {
		b.malformed(ip+"/type", "type is a JSON %s, not a string", it.Kind)
		return
	}
	if (it != nil && it.Kind == tree.KindString && it.Str == "object") || items.At("properties") != nil {
		b.warn(path, CodeArrayOfObjects, "property %q is an array of objects, which elicitation forms do not allow; it is answered as raw JSON", fld.Name)
		return
	}
	stringItems := it == nil || (it.Kind == tree.KindString && it.Str == "string")
	switch enum, anyOf := items.At("enum"), items.At("anyOf"); {
	case stringItems && enum != nil:
		if enum.Kind != tree.KindArray {
			b.malformed(ip+"/enum", "enum is a JSON %s, not an array", enum.Kind)
			return
		}
		fld.Kind = KindMulti
		fld.Options = b.enumOptions(enum, ip+"/enum")
	case anyOf != nil && (it == nil || stringItems):
		opts, ok := b.constOptions(anyOf, ip+"/anyOf")
		if !ok {
			b.warn(ip+"/anyOf", CodeUnsupportedShape, "items.anyOf is not a list of {const, title} choices; it is answered as raw JSON")
			return
		}
		fld.Kind = KindMulti
		fld.Options = opts
	default:
		b.warn(path, CodeUnsupportedShape, "array property %q has no items.enum or items.anyOf choices; it is answered as raw JSON", fld.Name)
		return
	}
	for _, k := range items.Keys {
		if k != "type" && k != "enum" && k != "anyOf" && k != "title" && k != "description" {
			b.warn(ip+"/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q in items is ignored", k)
		}
	}
	if b.vocab.legacy {
		b.warn(path, CodeNotInVersion, "multi-select is not part of the %s vocabulary", b.protocol)
	}
	fld.MinItems = b.count(n, "minItems", path)
	fld.MaxItems = b.count(n, "maxItems", path)
	if fld.MinItems != nil && fld.MaxItems != nil && *fld.MinItems > *fld.MaxItems {
		b.warn(path, CodeMinAboveMax, "minItems %d is above maxItems %d; no value can be valid", *fld.MinItems, *fld.MaxItems)
	}
}

// keywords reports keywords the field's kind does not use.
func (b *builder) keywords(fld *Field, n *tree.Node, path string) {
	if fld.Kind == KindRaw {
		return
	}
	shape := shapeOf(fld.Kind, n.At("oneOf") != nil)
	for _, k := range n.Keys {
		if ShapeKeyword(shape, k) == 0 {
			b.warn(path+"/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q is not part of the elicitation vocabulary for this field and is ignored", k)
		}
	}
}

func (b *builder) str(n *tree.Node, key, path string) string {
	v := n.At(key)
	if v == nil {
		return ""
	}
	if v.Kind != tree.KindString {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a string", key, v.Kind)
		return ""
	}
	return v.Str
}

func (b *builder) num(n *tree.Node, key, path string) *float64 {
	v := n.At(key)
	if v == nil {
		return nil
	}
	if v.Kind != tree.KindNumber {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a number", key, v.Kind)
		return nil
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil || math.IsInf(f, 0) {
		b.malformed(path+"/"+key, "%s %s is out of range", key, v.Str)
		return nil
	}
	return &f
}

// count reads a non-negative integer keyword (minLength, maxItems, ...).
func (b *builder) count(n *tree.Node, key, path string) *int {
	v := n.At(key)
	if v == nil {
		return nil
	}
	if v.Kind != tree.KindNumber {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a number", key, v.Kind)
		return nil
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		b.malformed(path+"/"+key, "%s %s is not a non-negative integer", key, v.Str)
		return nil
	}
	c := int(f)
	return &c
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
