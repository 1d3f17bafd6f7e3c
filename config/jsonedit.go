package config

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tailscale/hujson"
)

// editor changes a parsed JSON (or JSONC) file in place, keeping every comment and
// the file's own layout: new members are indented like their neighbours, a trailing
// comma stays or stays away.
type editor struct {
	unit string // one level of indentation in the file
	nl   string // the file's line ending: "\n" or "\r\n"
}

// newEditor returns an editor for the parsed file v.
func newEditor(v *hujson.Value) *editor {
	e := &editor{unit: indentUnit(v), nl: "\n"}
	if bytes.Contains(v.Pack(), []byte("\r\n")) {
		e.nl = "\r\n"
	}
	return e
}

// indentUnit is one level of indentation of the file v: that of its first top-level
// member, else two spaces.
func indentUnit(v *hujson.Value) string {
	if obj, ok := v.Value.(*hujson.Object); ok && len(obj.Members) > 0 {
		if ind, ok := lineIndent(obj.Members[0].Name.BeforeExtra); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent returns the spaces and tabs after the last newline of extra, and whether
// extra has a newline at all.
func lineIndent(extra []byte) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	rest := extra[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	return string(rest[:n]), true
}

// member returns obj's member key, nil when absent.
func member(obj *hujson.Object, key string) *hujson.ObjectMember {
	if i := memberIndex(obj, key); i >= 0 {
		return &obj.Members[i]
	}
	return nil
}

func memberIndex(obj *hujson.Object, key string) int {
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// layoutOf returns what goes before each member name of obj, whose closing brace is
// indented by closing: a newline and the members' indent, or for an object written
// on one line, the space between its members.
func (e *editor) layoutOf(obj *hujson.Object, closing string) (sep string, multiline bool) {
	if n := len(obj.Members); n > 0 {
		before := obj.Members[n-1].Name.BeforeExtra
		if ind, ok := lineIndent(before); ok {
			return e.nl + ind, true
		}
		if len(bytes.TrimSpace(before)) == 0 && n > 1 {
			return string(before), false
		}
		return " ", false
	}
	return e.nl + closing + e.unit, true
}

// object walks path from the top of v, making objects where members are missing or
// null, and returns the last one with the indent of its closing brace.
func (e *editor) object(v *hujson.Value, closing string, path []string) (*hujson.Object, string) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok { // checked by the caller: the top level is an object
		obj = &hujson.Object{}
		v.Value = obj
	}
	for _, key := range path {
		sep, multiline := e.layoutOf(obj, closing)
		m := member(obj, key)
		if m == nil || m.Value.Value.Kind() != '{' {
			e.set(obj, closing, key, map[string]any{}, -1)
			m = member(obj, key)
		}
		inner := m.Value.Value.(*hujson.Object)
		if multiline {
			closing = strings.TrimPrefix(sep, e.nl)
		}
		obj = inner
	}
	return obj, closing
}

// set gives obj's member key the value val: in place when it exists, else as a new
// member at index at (-1: last). obj's closing brace is indented by closing.
func (e *editor) set(obj *hujson.Object, closing, key string, val any, at int) {
	sep, multiline := e.layoutOf(obj, closing)
	indent := strings.TrimPrefix(sep, e.nl)
	if m := member(obj, key); m != nil {
		pretty := multiline && bytes.ContainsRune(m.Value.Pack(), '\n')
		m.Value.Value = e.encode(val, indent, pretty).Value
		return
	}
	nv := e.encode(val, indent, multiline)
	nv.BeforeExtra = []byte(" ")
	nm := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte(sep), Value: hujson.String(key)},
		Value: nv,
	}
	n := len(obj.Members)
	if at < 0 || at > n {
		at = n
	}
	// What follows the new member: the next member's name, or the closing brace.
	following := &obj.AfterExtra
	if at < n {
		following = &obj.Members[at].Name.BeforeExtra
	}
	switch {
	case n == 0:
		if multiline && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
			obj.AfterExtra = []byte(e.nl + closing)
		}
	case at == n && obj.Members[n-1].Value.AfterExtra != nil:
		nm.Value.AfterExtra = []byte{} // the last member keeps its trailing comma
	}
	// A comment at the end of the previous member's line stays on that line.
	if i := lineEnd(*following); at > 0 && i > 0 && hasComment((*following)[:i]) {
		nm.Name.BeforeExtra = append(append([]byte{}, (*following)[:i]...), nm.Name.BeforeExtra...)
		*following = (*following)[i:]
	}
	obj.Members = append(obj.Members[:at], append([]hujson.ObjectMember{nm}, obj.Members[at:]...)...)
}

// rename gives obj's member at index i the name key and the value val, keeping its
// place and the comments around it.
func (e *editor) rename(obj *hujson.Object, closing string, i int, key string, val any) {
	sep, multiline := e.layoutOf(obj, closing)
	m := &obj.Members[i]
	m.Name.Value = hujson.String(key)
	m.Value.Value = e.encode(val, strings.TrimPrefix(sep, e.nl), multiline).Value
}

// remove deletes obj's member key, if any; a comment at the end of the line before it
// stays where it was.
func (e *editor) remove(obj *hujson.Object, key string) {
	i := memberIndex(obj, key)
	if i < 0 {
		return
	}
	gone := obj.Members[i]
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	var trailing []byte
	if j := lineEnd(gone.Name.BeforeExtra); j > 0 && hasComment(gone.Name.BeforeExtra[:j]) {
		trailing = gone.Name.BeforeExtra[:j]
	}
	switch {
	case i < len(obj.Members):
		next := &obj.Members[i].Name
		next.BeforeExtra = append(append([]byte{}, trailing...), next.BeforeExtra...)
	case i > 0:
		obj.Members[i-1].Value.AfterExtra = gone.Value.AfterExtra // the trailing comma
		obj.AfterExtra = append(append([]byte{}, trailing...), obj.AfterExtra...)
	default:
		obj.AfterExtra = append(append([]byte{}, trailing...), obj.AfterExtra...)
	}
}

// lineEnd is the index of the first line break (\n or \r\n) in extra, -1 when none.
func lineEnd(extra []byte) int {
	i := bytes.IndexByte(extra, '\n')
	if i > 0 && extra[i-1] == '\r' {
		i--
	}
	return i
}

// hasComment reports whether extra (whitespace and comments) has a comment.
func hasComment(extra []byte) bool {
	return bytes.Contains(extra, []byte("//")) || bytes.Contains(extra, []byte("/*"))
}

// encode turns val into a JSON value: indented under indent by the file's unit, on lines
// ending as the file's do, when pretty, else on one line with a space after each comma.
func (e *editor) encode(val any, indent string, pretty bool) hujson.Value {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent(indent, e.unit)
	}
	if err := enc.Encode(val); err != nil {
		panic("config: encode " + err.Error()) // only strings, lists and objects of them
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if !pretty {
		b = spaced(b)
	} else if e.nl != "\n" {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte(e.nl))
	}
	v, err := hujson.Parse(b)
	if err != nil {
		panic("config: parse encoded JSON: " + err.Error())
	}
	return v
}

// spaced puts a space after each comma and colon between the values of compact JSON.
func spaced(b []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// apply makes the change edit to the entry opts.Name of the object of servers, whose
// closing brace is indented by closing.
func (e *editor) apply(servers *hujson.Object, closing string, opts InstallOptions, edit *entryEdit) {
	if edit.add {
		e.set(servers, closing, opts.Name, newEntry{Type: edit.kind, Command: opts.Command, Args: edit.args}, -1)
		return
	}
	sep, multiline := e.layoutOf(servers, closing)
	entryClosing := closing
	if multiline {
		entryClosing = strings.TrimPrefix(sep, e.nl)
	}
	entry := member(servers, opts.Name).Value.Value.(*hujson.Object)
	if edit.repoint {
		e.set(entry, entryClosing, "command", opts.Command, -1)
		return
	}
	if i := memberIndex(entry, edit.at); edit.at != "" && i >= 0 {
		e.rename(entry, entryClosing, i, "command", opts.Command)
		e.set(entry, entryClosing, "args", edit.args, i+1)
	} else {
		e.set(entry, entryClosing, "command", opts.Command, -1)
		e.set(entry, entryClosing, "args", edit.args, memberIndex(entry, "command")+1)
	}
	for _, k := range edit.drop {
		e.remove(entry, k)
	}
	if edit.kind != "" {
		e.set(entry, entryClosing, "type", edit.kind, 0)
	}
}

// newEntry is an added entry, in the order hosts write their keys.
type newEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}
