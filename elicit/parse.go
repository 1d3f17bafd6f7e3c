package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Parse reads a raw requestedSchema, keeping the server's property order, into a Form
// for the given negotiated protocol version. It never fails: problems become Findings,
// unrenderable properties (nested objects, arrays of objects, missing or unknown types)
// become KindRaw fields, defaults that contradict their own field are dropped, and a
// schema it cannot understand (missing, not JSON, not an object schema, a keyword of the
// wrong JSON type) sets Unvalidatable.
//
// Titles, descriptions and option labels are sanitized (Sanitize); names and option
// values are kept as sent, since they go back on the wire.
//
// The empty schema {} and an object schema without properties are confirm forms: no
// fields, answered with accept, decline or cancel.
func Parse(schema json.RawMessage, protocol string) *Form {
	b := &builder{form: &Form{}, vocab: vocabularyOf(protocol), protocol: protocol}
	data := bytes.TrimSpace(schema)
	if len(data) == 0 || string(data) == "null" {
		b.malformed("", "requestedSchema is missing")
		return b.form
	}
	root, dups, err := decodeTree(data)
	if err != nil {
		b.malformed("", "requestedSchema is not valid JSON: %v", err)
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

func (b *builder) root(root *jnode) {
	if root.kind != jObject {
		b.malformed("", "requestedSchema is a JSON %s, not an object schema", root.kind)
		return
	}
	for _, k := range root.keys {
		if !topKeywords[k] {
			b.warn("/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q is not part of the elicitation vocabulary and is ignored", k)
		}
	}
	if s := root.get("$schema"); s != nil {
		if s.kind != jString {
			b.malformed("/$schema", "$schema is a JSON %s, not a string", s.kind)
		} else if b.vocab.legacy {
			b.warn("/$schema", CodeNotInVersion, "$schema is not part of the %s vocabulary", b.protocol)
		}
	}
	switch t := root.get("type"); {
	case t == nil:
		b.warn("/type", CodeMissingType, `requestedSchema has no "type":"object"`)
	case t.kind != jString:
		b.malformed("/type", "type is a JSON %s, not a string", t.kind)
		return
	case t.str != "object":
		b.malformed("/type", "requestedSchema has type %q, not an object schema", t.str)
		return
	}
	for _, k := range []string{"title", "description"} {
		if v := root.get(k); v != nil && v.kind != jString {
			b.malformed("/"+k, "%s is a JSON %s, not a string", k, v.kind)
		}
	}
	props := root.get("properties")
	if props != nil && props.kind != jObject {
		b.malformed("/properties", "properties is a JSON %s, not an object", props.kind)
		props = nil
	}
	if props != nil {
		b.form.Fields = make([]Field, 0, len(props.keys))
		for i, name := range props.keys {
			b.form.Fields = append(b.form.Fields, b.field(name, props.vals[i], "/properties/"+escapePointer(name)))
		}
	}
	if req := root.get("required"); req != nil {
		if req.kind != jArray {
			b.malformed("/required", "required is a JSON %s, not an array", req.kind)
		} else {
			for i, it := range req.items {
				path := "/required/" + strconv.Itoa(i)
				if it.kind != jString {
					b.malformed(path, "required entry is a JSON %s, not a string", it.kind)
					continue
				}
				found := false
				for j := range b.form.Fields {
					if b.form.Fields[j].Name == it.str {
						b.form.Fields[j].Required = true
						found = true
					}
				}
				if !found {
					b.warn(path, CodeUnknownRequired, "required names %q, which is not a property; ignored", it.str)
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
func (b *builder) field(name string, n *jnode, path string) Field {
	fld := Field{Name: name, Raw: n.raw, Kind: KindRaw}
	if n.kind != jObject {
		b.malformed(path, "property schema is a JSON %s, not an object", n.kind)
		return fld
	}
	fld.Title = Sanitize(b.str(n, "title", path))
	fld.Description = Sanitize(b.str(n, "description", path))
	t := n.get("type")
	typ := ""
	switch {
	case t == nil:
		b.warn(path, CodeMissingType, "property %q has no type; it is answered as raw JSON", name)
	case t.kind == jArray:
		b.warn(path+"/type", CodeUnknownType, "property %q has a union type; it is answered as raw JSON", name)
		typ = "union"
	case t.kind != jString:
		b.malformed(path+"/type", "type is a JSON %s, not a string", t.kind)
		return fld
	default:
		typ = t.str
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
	if d := n.get("default"); d != nil {
		b.defaultOf(&fld, d, path+"/default")
	}
	return fld
}

func (b *builder) stringField(fld *Field, n *jnode, path string) {
	enum, oneOf := n.get("enum"), n.get("oneOf")
	switch {
	case enum != nil:
		fld.Kind = KindSelect
		if enum.kind != jArray {
			b.malformed(path+"/enum", "enum is a JSON %s, not an array", enum.kind)
			return
		}
		fld.Options = b.enumOptions(enum, path+"/enum")
		if names := n.get("enumNames"); names != nil {
			if names.kind != jArray {
				b.malformed(path+"/enumNames", "enumNames is a JSON %s, not an array", names.kind)
			} else {
				if len(names.items) != len(enum.items) {
					b.warn(path+"/enumNames", CodeEnumNamesLength, "enumNames has %d labels for %d choices", len(names.items), len(enum.items))
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

func (b *builder) labelFromNames(fld *Field, enum, names *jnode, path string) {
	// Options were built from enum members that are strings; map labels by position.
	byValue := map[string]string{}
	for i, it := range enum.items {
		if i < len(names.items) && it.kind == jString {
			nm := names.items[i]
			if nm.kind != jString {
				b.malformed(path+"/enumNames/"+strconv.Itoa(i), "enumNames entry is a JSON %s, not a string", nm.kind)
				continue
			}
			if _, seen := byValue[it.str]; !seen {
				byValue[it.str] = nm.str
			}
		}
	}
	for i := range fld.Options {
		if l, ok := byValue[fld.Options[i].Value]; ok && l != "" {
			fld.Options[i].Label = Sanitize(l)
		}
	}
}

// enumOptions turns enum members into options, skipping non-strings and duplicates.
func (b *builder) enumOptions(enum *jnode, path string) []Option {
	opts := make([]Option, 0, len(enum.items))
	seen := map[string]bool{}
	for i, it := range enum.items {
		p := path + "/" + strconv.Itoa(i)
		if it.kind != jString {
			b.warn(p, CodeBadChoice, "choice is a JSON %s, not a string; it is skipped", it.kind)
			continue
		}
		if seen[it.str] {
			b.warn(p, CodeDuplicateChoice, "choice %q is listed twice", it.str)
			continue
		}
		seen[it.str] = true
		opts = append(opts, Option{Value: it.str, Label: Sanitize(it.str)})
	}
	return opts
}

// constOptions reads a oneOf/anyOf list of {const, title}; ok is false when the list has
// another shape (then the field cannot be a plain choice).
func (b *builder) constOptions(list *jnode, path string) ([]Option, bool) {
	if list.kind != jArray {
		b.malformed(path, "%s is a JSON %s, not an array", path[strings.LastIndexByte(path, '/')+1:], list.kind)
		return nil, false
	}
	opts := make([]Option, 0, len(list.items))
	seen := map[string]bool{}
	for i, it := range list.items {
		p := path + "/" + strconv.Itoa(i)
		c := it.get("const")
		if it.kind != jObject || c == nil {
			return nil, false
		}
		if c.kind != jString {
			b.warn(p+"/const", CodeBadChoice, "const is a JSON %s, not a string; the choice is skipped", c.kind)
			continue
		}
		label := c.str
		if t := it.get("title"); t != nil {
			if t.kind != jString {
				b.malformed(p+"/title", "title is a JSON %s, not a string", t.kind)
			} else if t.str != "" {
				label = t.str
			}
		}
		for _, k := range it.keys {
			if k != "const" && k != "title" && k != "description" && k != "type" {
				b.warn(p+"/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q in a choice is ignored", k)
			}
		}
		if seen[c.str] {
			b.warn(p, CodeDuplicateChoice, "choice %q is listed twice", c.str)
			continue
		}
		seen[c.str] = true
		opts = append(opts, Option{Value: c.str, Label: Sanitize(label)})
	}
	return opts, true
}

func (b *builder) arrayField(fld *Field, n *jnode, path string) {
	items := n.get("items")
	if items == nil {
		b.warn(path, CodeUnsupportedShape, "array property %q has no items choices; it is answered as raw JSON", fld.Name)
		return
	}
	ip := path + "/items"
	if items.kind != jObject {
		b.malformed(ip, "items is a JSON %s, not an object", items.kind)
		return
	}
	it := items.get("type")
	if it != nil && it.kind != jString && it.kind != jArray {
		b.malformed(ip+"/type", "type is a JSON %s, not a string", it.kind)
		return
	}
	if (it != nil && it.kind == jString && it.str == "object") || items.get("properties") != nil {
		b.warn(path, CodeArrayOfObjects, "property %q is an array of objects, which elicitation forms do not allow; it is answered as raw JSON", fld.Name)
		return
	}
	stringItems := it == nil || (it.kind == jString && it.str == "string")
	switch enum, anyOf := items.get("enum"), items.get("anyOf"); {
	case stringItems && enum != nil:
		if enum.kind != jArray {
			b.malformed(ip+"/enum", "enum is a JSON %s, not an array", enum.kind)
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
	for _, k := range items.keys {
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
func (b *builder) keywords(fld *Field, n *jnode, path string) {
	if fld.Kind == KindRaw {
		return
	}
	shape := shapeOf(fld.Kind, n.get("oneOf") != nil)
	for _, k := range n.keys {
		if ShapeKeyword(shape, k) == 0 {
			b.warn(path+"/"+escapePointer(k), CodeUnsupportedKeyword, "keyword %q is not part of the elicitation vocabulary for this field and is ignored", k)
		}
	}
}

func (b *builder) str(n *jnode, key, path string) string {
	v := n.get(key)
	if v == nil {
		return ""
	}
	if v.kind != jString {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a string", key, v.kind)
		return ""
	}
	return v.str
}

func (b *builder) num(n *jnode, key, path string) *float64 {
	v := n.get(key)
	if v == nil {
		return nil
	}
	if v.kind != jNumber {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a number", key, v.kind)
		return nil
	}
	f, err := strconv.ParseFloat(string(v.num), 64)
	if err != nil || math.IsInf(f, 0) {
		b.malformed(path+"/"+key, "%s %s is out of range", key, v.num)
		return nil
	}
	return &f
}

// count reads a non-negative integer keyword (minLength, maxItems, ...).
func (b *builder) count(n *jnode, key, path string) *int {
	v := n.get(key)
	if v == nil {
		return nil
	}
	if v.kind != jNumber {
		b.malformed(path+"/"+key, "%s is a JSON %s, not a number", key, v.kind)
		return nil
	}
	f, err := strconv.ParseFloat(string(v.num), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		b.malformed(path+"/"+key, "%s %s is not a non-negative integer", key, v.num)
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
