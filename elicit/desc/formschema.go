package desc

import (
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/protocol"
)

// This file checks the closed vocabulary of a requestedSchema (rule 9, the union of
// every protocol version: 2025-11-25 and 2026-07-28 allow the whole table, which is
// package elicit's), the per-version narrowing (rule 11) and the consistency checks
// (rule 12).

var formRootMembers = map[string]bool{"type": true, "properties": true, "required": true, "$schema": true}

// allowedIn reports whether keyword k may appear in a property of shape: the shared
// vocabulary table of package elicit, without its run-time extensions (pattern), which
// are not in the specification's schema.ts.
func allowedIn(shape elicit.Shape, k string) bool {
	return elicit.ShapeKeyword(shape, k) == elicit.InSpec
}

// anyKindMember reports whether k is allowed in some property shape.
func anyKindMember(k string) bool {
	for _, s := range elicit.Shapes {
		if allowedIn(s, k) {
			return true
		}
	}
	return false
}

type reportFunc func(loc Location, path Path, format string, args ...any)

// formSchema checks the closed form vocabulary; it reports through bad and returns
// whether the schema is well-formed.
func (l *linter) formSchema(n *Node, path Path, bad reportFunc) bool {
	errs := 0
	rep := func(loc Location, p Path, format string, args ...any) {
		errs++
		bad(loc, p, format, args...)
	}
	for i, k := range n.Keys {
		if !formRootMembers[k] {
			rep(n.KeyLocs[i], path.with(Key(k)), "is not allowed in a requestedSchema (allowed: type, properties, required, $schema)")
		}
	}
	if t, ok := n.Get("type"); !ok {
		rep(n.Loc, path.with(Key("type")), "is required and must be \"object\"")
	} else if t.Kind != KindString || t.Str != "object" {
		rep(t.Loc, path.with(Key("type")), "must be \"object\"")
	}
	if s, ok := n.Get("$schema"); ok && s.Kind != KindString {
		rep(s.Loc, path.with(Key("$schema")), "must be a string, not %s", s.Kind)
	}
	props, ok := n.Get("properties")
	if !ok {
		rep(n.Loc, path.with(Key("properties")), "is required")
	} else if props.Kind != KindObject {
		rep(props.Loc, path.with(Key("properties")), "must be an object, not %s", props.Kind)
	} else {
		for i, name := range props.Keys {
			property(props.Values[i], path.with(Key("properties"), Key(name)), rep)
		}
	}
	if req, ok := n.Get("required"); ok {
		stringArray(req, path.with(Key("required")), false, true, rep)
	}
	return errs == 0
}

// property checks one property schema against the kinds of the table.
func property(p *Node, path Path, rep reportFunc) {
	if p.Kind != KindObject {
		rep(p.Loc, path, "must be an object property schema, not %s", p.Kind)
		return
	}
	t, ok := p.Get("type")
	if !ok || t.Kind != KindString {
		for i, k := range p.Keys {
			if !anyKindMember(k) {
				rep(p.KeyLocs[i], path.with(Key(k)), "is not allowed in a requestedSchema property")
			}
		}
	}
	if !ok {
		rep(p.Loc, path.with(Key("type")), "is required: a property is a string, number, integer, boolean or array")
		return
	}
	if t.Kind != KindString {
		rep(t.Loc, path.with(Key("type")), "must be a string, not %s", t.Kind)
		return
	}
	var shape elicit.Shape
	switch t.Str {
	case "string":
		switch {
		case p.Has("enum") && p.Has("oneOf"):
			rep(p.KeyLoc("oneOf"), path.with(Key("oneOf")), "must not appear beside enum")
			return
		case p.Has("enum"):
			shape = elicit.ShapeEnum
		case p.Has("oneOf"):
			shape = elicit.ShapeOneOf
		default:
			shape = elicit.ShapeString
		}
	case "number", "integer":
		shape = elicit.ShapeNumber
	case "boolean":
		shape = elicit.ShapeBoolean
	case "array":
		shape = elicit.ShapeArray
	default:
		rep(t.Loc, path.with(Key("type")), "%q is not allowed: properties are flat strings, numbers, integers, booleans or multi-select arrays", t.Str)
		return
	}
	for i, k := range p.Keys {
		if k == "title" || k == "description" {
			if v := p.Values[i]; v.Kind != KindString {
				rep(v.Loc, path.with(Key(k)), "must be a string, not %s", v.Kind)
			}
			continue
		}
		if !allowedIn(shape, k) {
			rep(p.KeyLocs[i], path.with(Key(k)), "is not allowed in a %s property of a requestedSchema", kindName(t.Str, p))
		}
	}
	get := func(k string) (*Node, bool) {
		v, ok := p.Get(k)
		return v, ok && allowedIn(shape, k)
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems"} {
		if v, ok := get(k); ok && (!v.IsInt() || v.Num < 0) {
			rep(v.Loc, path.with(Key(k)), "must be a non-negative integer")
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v, ok := get(k); ok && v.Kind != KindNumber {
			rep(v.Loc, path.with(Key(k)), "must be a number, not %s", v.Kind)
		}
	}
	if v, ok := get("format"); ok {
		if v.Kind != KindString || !elicit.StringFormats[v.Str] {
			rep(v.Loc, path.with(Key("format")), "must be one of email, uri, date, date-time")
		}
	}
	if v, ok := get("enum"); ok {
		stringArray(v, path.with(Key("enum")), true, true, rep)
	}
	if v, ok := get("enumNames"); ok {
		stringArray(v, path.with(Key("enumNames")), false, false, rep)
	}
	if v, ok := get("oneOf"); ok {
		titledOptions(v, path.with(Key("oneOf")), rep)
	}
	if v, ok := get("items"); ok {
		items(v, path.with(Key("items")), rep)
	} else if t.Str == "array" {
		rep(p.Loc, path.with(Key("items")), "is required for a multi-select array")
	}
	if v, ok := get("default"); ok {
		var want Kind
		switch t.Str {
		case "string":
			want = KindString
		case "number", "integer":
			want = KindNumber
		case "boolean":
			want = KindBool
		case "array":
			want = KindArray
		}
		switch {
		case v.Kind != want:
			rep(v.Loc, path.with(Key("default")), "must be a %s, not %s", want, v.Kind)
		case t.Str == "integer" && !v.IsInt():
			rep(v.Loc, path.with(Key("default")), "must be an integer")
		case want == KindArray:
			stringArray(v, path.with(Key("default")), false, false, rep)
		}
	}
}

func kindName(typ string, p *Node) string {
	switch {
	case p.Has("enum"):
		return "enum"
	case p.Has("oneOf"):
		return "titled single-select"
	case typ == "array":
		return "multi-select"
	}
	return typ
}

// items checks a multi-select items schema: {type: string, enum} or {anyOf: [{const, title}]}.
func items(n *Node, path Path, rep reportFunc) {
	if n.Kind != KindObject {
		rep(n.Loc, path, "must be an object, not %s", n.Kind)
		return
	}
	if n.Has("anyOf") {
		for i, k := range n.Keys {
			if k != "anyOf" {
				rep(n.KeyLocs[i], path.with(Key(k)), "is not allowed beside anyOf in multi-select items")
			}
		}
		v, _ := n.Get("anyOf")
		titledOptions(v, path.with(Key("anyOf")), rep)
		return
	}
	for i, k := range n.Keys {
		if k != "type" && k != "enum" {
			rep(n.KeyLocs[i], path.with(Key(k)), "is not allowed in multi-select items (allowed: type string with enum, or anyOf)")
		}
	}
	if t, ok := n.Get("type"); !ok || t.Kind != KindString || t.Str != "string" {
		rep(locOf(n, "type"), path.with(Key("type")), "must be \"string\": multi-select items are string choices")
	}
	if e, ok := n.Get("enum"); ok {
		stringArray(e, path.with(Key("enum")), true, true, rep)
	} else {
		rep(n.Loc, path.with(Key("enum")), "is required for multi-select items without anyOf")
	}
}

// titledOptions checks a non-empty array of {const: string, title: string}.
func titledOptions(n *Node, path Path, rep reportFunc) {
	if n.Kind != KindArray {
		rep(n.Loc, path, "must be an array, not %s", n.Kind)
		return
	}
	if len(n.Items) == 0 {
		rep(n.Loc, path, "must contain at least one option")
	}
	for i, o := range n.Items {
		op := path.with(Index(i))
		if o.Kind != KindObject {
			rep(o.Loc, op, "must be an object with const and title, not %s", o.Kind)
			continue
		}
		for j, k := range o.Keys {
			if k != "const" && k != "title" {
				rep(o.KeyLocs[j], op.with(Key(k)), "is not allowed in a titled option (allowed: const, title)")
			}
		}
		for _, k := range []string{"const", "title"} {
			v, ok := o.Get(k)
			switch {
			case !ok:
				rep(o.Loc, op.with(Key(k)), "is required")
			case v.Kind != KindString:
				rep(v.Loc, op.with(Key(k)), "must be a string, not %s", v.Kind)
			}
		}
	}
}

// stringArray checks an array of strings, optionally non-empty and unique.
func stringArray(n *Node, path Path, nonEmpty, unique bool, rep reportFunc) {
	if n.Kind != KindArray {
		rep(n.Loc, path, "must be an array of strings, not %s", n.Kind)
		return
	}
	if nonEmpty && len(n.Items) == 0 {
		rep(n.Loc, path, "must not be empty")
	}
	seen := map[string]bool{}
	for i, it := range n.Items {
		if it.Kind != KindString {
			rep(it.Loc, path.with(Index(i)), "must be a string, not %s", it.Kind)
			continue
		}
		if unique && seen[it.Str] {
			rep(it.Loc, path.with(Index(i)), "repeats %q", it.Str)
		}
		seen[it.Str] = true
	}
}

// versionVocabulary applies one protocol version's narrowing of the table (rule 11).
// Only 2025-06-18 narrows it.
func (l *linter) versionVocabulary(n *Node, path Path, version string) {
	if version != protocol.Version20250618 {
		return
	}
	if n.Has("$schema") {
		l.add(CodeFormVersionMismatch, SevError, n.KeyLoc("$schema"), path.with(Key("$schema")), "is not defined for MCP %s", version)
	}
	props, _ := n.Get("properties")
	for i, name := range props.Keys {
		p := props.Values[i]
		pp := path.with(Key("properties"), Key(name))
		t, _ := p.Get("type")
		if t.Str == "array" || p.Has("oneOf") {
			l.add(CodeFormVersionMismatch, SevError, p.Loc, pp, "uses an enum form introduced after MCP %s", version)
		}
		if d, ok := p.Get("default"); ok && t.Str != "boolean" {
			l.add(CodeFormVersionMismatch, SevError, d.Loc, pp.with(Key("default")), "is not defined for %s properties in MCP %s (only boolean defaults are)", kindName(t.Str, p), version)
		}
	}
}

// consistency runs the version-independent checks of rule 12 on a well-formed schema.
func (l *linter) consistency(n *Node, path Path) {
	props, _ := n.Get("properties")
	if req, ok := n.Get("required"); ok {
		for i, r := range req.Items {
			if !props.Has(r.Str) {
				l.add(CodeRequiredUnknown, SevError, r.Loc, path.with(Key("required"), Index(i)), "names %q, which is not declared in properties", r.Str)
			}
		}
	}
	for i, name := range props.Keys {
		p := props.Values[i]
		pp := path.with(Key("properties"), Key(name))
		enum, hasEnum := p.Get("enum")
		if names, ok := p.Get("enumNames"); ok && hasEnum && len(names.Items) != len(enum.Items) {
			l.add(CodeEnumNamesMismatch, SevError, names.Loc, pp.with(Key("enumNames")), "has %d names for %d enum values: it needs one display name per value", len(names.Items), len(enum.Items))
		}
		if d, ok := p.Get("default"); ok {
			choices := choicesOf(p)
			if it, ok := p.Get("items"); ok {
				choices = choicesOf(it)
			}
			if choices != nil {
				vals := []*Node{d}
				if d.Kind == KindArray {
					vals = d.Items
				}
				for _, v := range vals {
					if !choices[v.Str] {
						l.add(CodeDefaultOutsideEnum, SevError, d.Loc, pp.with(Key("default")), "value %q is not one of the declared choices", v.Str)
					}
				}
			}
		}
		for _, r := range [][2]string{{"minLength", "maxLength"}, {"minimum", "maximum"}, {"minItems", "maxItems"}} {
			lo, ok1 := p.Get(r[0])
			hi, ok2 := p.Get(r[1])
			if ok1 && ok2 && lo.Num > hi.Num {
				l.add(CodeInvalidRange, SevError, lo.Loc, pp.with(Key(r[0])), "%s must not exceed %s %s", lo.Str, r[1], hi.Str)
			}
		}
	}
}

// choicesOf returns the declared string choices of an enum, oneOf or anyOf schema.
func choicesOf(n *Node) map[string]bool {
	var list []*Node
	if e, ok := n.Get("enum"); ok {
		list = e.Items
	} else if o, ok := n.Get("oneOf"); ok {
		list = o.Items
	} else if a, ok := n.Get("anyOf"); ok {
		list = a.Items
	} else {
		return nil
	}
	m := make(map[string]bool, len(list))
	for _, it := range list {
		if it.Kind == KindObject {
			c, _ := it.Get("const")
			m[c.Str] = true
		} else {
			m[it.Str] = true
		}
	}
	return m
}
