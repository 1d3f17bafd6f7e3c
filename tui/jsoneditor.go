package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tree"
)

// Bounds of the JSON argument editor: what it holds, how deep a value nests, and how
// many problems it lists at once.
const (
	jsonEditorMaxChars = 256 << 10
	jsonEditorMaxLines = 10000
	jsonEditorMaxDepth = 64
	jsonEditorProblems = 3
)

// jsonEditor is the argument screen for schemas a form cannot render: a multi-line
// editor (bubbles' textarea) prefilled with the last arguments or a skeleton of the
// schema's required members. ctrl+s parses the text (an error names its line and
// column and moves the cursor there), checks it against the schema and calls; esc
// cancels.
type jsonEditor struct {
	req     *elicit.Request
	ta      textarea.Model
	initial string
	schema  *jsonschema.Schema // nil when the schema cannot be compiled
	note    string             // why the schema is not checked, or ""
	errs    []string           // what is wrong with the text, sanitized
	resp    elicit.Response
	done    bool
	w, h    int
	st      styles
}

func newJSONEditor(req *elicit.Request, _ *elicit.Form, o ScreenOptions) *jsonEditor {
	e := &jsonEditor{req: req, st: newStyles(o.NoColor)}
	e.ta = textarea.New()
	e.ta.CharLimit = jsonEditorMaxChars
	e.ta.MaxHeight = jsonEditorMaxLines
	e.ta.MaxWidth = 0
	e.ta.Prompt = ""
	if o.NoColor {
		e.ta.SetStyles(textarea.Styles{})
	}
	e.initial = jsonSkeleton(req.Schema)
	if len(o.Values) > 0 {
		if b, err := json.MarshalIndent(o.Values, "", "  "); err == nil {
			e.initial = string(b)
		}
	}
	e.initial = escapeUnprintable(e.initial)
	e.ta.SetValue(e.initial)
	e.ta.MoveToBegin()
	e.ta.Focus()
	e.schema, e.note = compileArgsSchema(req.Schema)
	e.SetSize(o.Width, o.Height)
	return e
}

// compileArgsSchema compiles a tool's input schema for checking arguments; it loads
// nothing: a reference out of the schema makes it unchecked, with a note saying so.
func compileArgsSchema(raw json.RawMessage) (*jsonschema.Schema, string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, ""
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, "the schema is not JSON: arguments are not checked"
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource("args.json", doc); err != nil {
		return nil, "the schema cannot be used: arguments are not checked"
	}
	s, err := c.Compile("args.json")
	if err != nil {
		return nil, "the schema cannot be used: arguments are not checked"
	}
	return s, ""
}

// noLoader refuses every schema reference out of the document: a server's schema
// must not make the client read files or fetch URLs.
type noLoader struct{}

func (noLoader) Load(string) (any, error) {
	return nil, errors.New("external references are not loaded")
}

// jsonSkeleton is the text the editor starts with: an object with the schema's required
// members, in the schema's order, each a placeholder of its type (its default, const or
// first enum value when it has one); "{}" when there are none.
func jsonSkeleton(raw json.RawMessage) string {
	res, err := tree.ParseJSON(raw, &tree.Options{MaxDepth: jsonEditorMaxDepth, KeepLastDuplicate: true})
	if err != nil || res.Root == nil {
		return "{}"
	}
	v := skeletonOf(res.Root, 0)
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// orderedObject is a JSON object that keeps its members' order.
type orderedObject struct {
	keys []string
	vals []any
}

// MarshalJSON implements json.Marshaler.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// skeletonOf is the placeholder value of a schema node.
func skeletonOf(s *tree.Node, depth int) any {
	if s == nil || s.Kind != tree.KindObject || depth > 8 {
		return nil
	}
	for _, k := range []string{"default", "const"} {
		if v := s.At(k); v != nil {
			return nodeValue(v)
		}
	}
	if e := s.At("enum"); e != nil && e.Kind == tree.KindArray && len(e.Items) > 0 {
		return nodeValue(e.Items[0])
	}
	typ := ""
	switch t := s.At("type"); {
	case t == nil:
	case t.Kind == tree.KindString:
		typ = t.Str
	case t.Kind == tree.KindArray && len(t.Items) > 0:
		typ = t.Items[0].Str
	}
	if typ == "" && s.At("properties") != nil {
		typ = "object"
	}
	switch typ {
	case "string":
		return ""
	case "integer", "number":
		return 0
	case "boolean":
		return false
	case "array":
		return []any{}
	case "null":
		return nil
	case "object":
	default:
		return nil
	}
	obj := orderedObject{}
	props := s.At("properties")
	req := map[string]bool{}
	var reqOrder []string
	if r := s.At("required"); r != nil && r.Kind == tree.KindArray {
		for _, it := range r.Items {
			if it.Kind == tree.KindString && !req[it.Str] {
				req[it.Str] = true
				reqOrder = append(reqOrder, it.Str)
			}
		}
	}
	seen := map[string]bool{}
	if props != nil && props.Kind == tree.KindObject {
		for i, k := range props.Keys {
			if req[k] && !seen[k] {
				seen[k] = true
				obj.keys = append(obj.keys, k)
				obj.vals = append(obj.vals, skeletonOf(props.Values[i], depth+1))
			}
		}
	}
	for _, k := range reqOrder {
		if !seen[k] {
			seen[k] = true
			obj.keys = append(obj.keys, k)
			obj.vals = append(obj.vals, nil)
		}
	}
	return obj
}

// nodeValue is the plain value of a parsed JSON node.
func nodeValue(n *tree.Node) any {
	switch n.Kind {
	case tree.KindBool:
		return n.Bool
	case tree.KindNumber:
		return json.Number(n.Str)
	case tree.KindString:
		return n.Str
	case tree.KindArray:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = nodeValue(it)
		}
		return out
	case tree.KindObject:
		obj := orderedObject{keys: n.Keys, vals: make([]any, len(n.Values))}
		for i, v := range n.Values {
			obj.vals[i] = nodeValue(v)
		}
		return obj
	}
	return nil
}

// escapeUnprintable writes every character of JSON text s that a terminal would not
// show as itself (controls, bidi and other format characters, unassigned code points)
// as a \uXXXX escape: the same JSON value, safe on the screen. Such characters can
// only be inside strings, so the text stays valid.
func escapeUnprintable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || (unicode.IsPrint(r) || r == ' ') && !unicode.Is(unicode.Cf, r) {
			b.WriteRune(r)
			continue
		}
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
			continue
		}
		fmt.Fprintf(&b, "\\u%04x", r)
	}
	return b.String()
}

// Dirty reports whether the user has changed the text.
func (e *jsonEditor) Dirty() bool { return !e.done && e.ta.Value() != e.initial }

// Init implements FormScreen.
func (e *jsonEditor) Init() tea.Cmd { return nil }

// SetSize implements FormScreen.
func (e *jsonEditor) SetSize(w, h int) {
	e.w, e.h = max(w, 20), max(h, 6)
	e.ta.SetWidth(e.w)
	e.ta.SetHeight(e.editorHeight())
}

// Done implements FormScreen.
func (e *jsonEditor) Done() (elicit.Response, bool) { return e.resp, e.done }

// Update implements FormScreen.
func (e *jsonEditor) Update(msg tea.Msg) tea.Cmd {
	if e.done {
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "ctrl+s":
			e.submit()
			return nil
		case "esc", "ctrl+c":
			e.resp, e.done = elicit.Response{Action: elicit.Cancel}, true
			return nil
		}
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

// submit parses and checks the text; when it is a valid object the screen is done.
func (e *jsonEditor) submit() {
	e.errs = nil
	text := e.ta.Value()
	res, err := tree.ParseJSON([]byte(text), &tree.Options{MaxDepth: jsonEditorMaxDepth})
	if err != nil {
		var te *tree.Error
		if errors.As(err, &te) && te.Loc.Line > 0 {
			e.errs = []string{oneLine(safe.Block(fmt.Sprintf("line %d, column %d: %s", te.Loc.Line, te.Loc.Column, strings.TrimPrefix(te.Msg, "invalid JSON: "))))}
			e.moveTo(te.Loc.Line, te.Loc.Column)
		} else {
			e.errs = []string{safe.Block(err.Error())}
		}
		return
	}
	if res.Root == nil || res.Root.Kind != tree.KindObject {
		e.errs = []string{"the arguments must be a JSON object { ... }"}
		return
	}
	if e.schema != nil {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err == nil {
			err = e.schema.Validate(inst)
		}
		if err != nil {
			e.errs = schemaProblems(err)
			return
		}
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var content map[string]any
	if err := d.Decode(&content); err != nil {
		e.errs = []string{safe.Block(err.Error())}
		return
	}
	e.resp, e.done = elicit.Response{Action: elicit.Accept, Content: content}, true
}

// schemaProblems lists what the schema check found, one line each, sanitized: the
// member's JSON Pointer ("/" for the whole object) and the problem.
func schemaProblems(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{safe.Block(err.Error())}
	}
	var out []string
	seen := map[string]bool{}
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		at := u.InstanceLocation
		if at == "" {
			at = "/"
		}
		p := oneLine(safe.Block(at + ": " + u.Error.String()))
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = []string{oneLine(safe.Block(ve.Error()))}
	}
	return out
}

// moveTo puts the cursor at a 1-based line and column of the text.
func (e *jsonEditor) moveTo(line, col int) {
	for e.ta.Line() > line-1 {
		e.ta.CursorUp()
	}
	for e.ta.Line() < line-1 && e.ta.Line() < e.ta.LineCount()-1 {
		e.ta.CursorDown()
	}
	e.ta.SetCursorColumn(max(col-1, 0))
}

// headerLines is the message and the label above the editor.
func (e *jsonEditor) headerLines() []string {
	lines := wrapWords(safe.Block(e.req.Message), e.w)
	if len(lines) > 2 {
		lines = append(lines[:1], trunc(lines[1], e.w-1)+"…")
	}
	return append(lines, trunc("JSON arguments (the schema is too rich for a form):", e.w))
}

// problemLines is what the last ctrl+s found, at most jsonEditorProblems lines.
func (e *jsonEditor) problemLines() []string {
	var out []string
	for i, p := range e.errs {
		if i == jsonEditorProblems {
			out = append(out, fmt.Sprintf("… and %d more", len(e.errs)-i))
			break
		}
		out = append(out, e.st.Err.Render(trunc("✗ "+p, e.w)))
	}
	if e.note != "" {
		out = append(out, e.st.Dim.Render(trunc("⚠ "+e.note, e.w)))
	}
	return out
}

// editorHeight is the height left to the text area.
func (e *jsonEditor) editorHeight() int {
	return max(2, e.h-len(e.headerLines())-len(e.problemLines())-1)
}

// footer is the key help and the cursor position.
func (e *jsonEditor) footer() string {
	return trunc(fmt.Sprintf("ctrl+s call · esc cancel · line %d col %d", e.ta.Line()+1, e.ta.Column()+1), e.w)
}

// View implements FormScreen.
func (e *jsonEditor) View() string {
	e.ta.SetHeight(e.editorHeight())
	lines := e.headerLines()
	lines = append(lines, strings.Split(e.ta.View(), "\n")...)
	lines = append(lines, e.problemLines()...)
	lines = append(lines, e.st.Dim.Render(e.footer()))
	return strings.Join(lines, "\n")
}
