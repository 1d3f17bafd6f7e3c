package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
)

// argSpec is one string argument of a prompt or variable of a resource template.
type argSpec struct {
	name, desc string
	required   bool
}

// completeFunc asks the server for suggestions for arg, typed so far as value, with
// the other arguments already filled in.
type completeFunc func(ctx context.Context, arg, value string, others map[string]string) (transport.Completion, error)

// completionSession is a session that can ask completion/complete (*transport.Session).
type completionSession interface {
	SupportsCompletions() bool
	Complete(ctx context.Context, ref transport.CompletionRef, arg, value string, others map[string]string) (transport.Completion, error)
}

// completeDebounce is how long the form waits after a key before it asks for
// suggestions, and completeTimeout bounds one completion/complete request.
const (
	completeDebounce = 150 * time.Millisecond
	completeTimeout  = 5 * time.Second
	// maxSuggestionRows bounds the suggestion list's height.
	maxSuggestionRows = 8
)

// completeTickMsg fires completeDebounce after a key; only the newest (seq) asks.
type completeTickMsg struct {
	form *completeForm
	seq  int
}

// completionMsg brings the server's suggestions for the field at index field.
type completionMsg struct {
	form  *completeForm
	seq   int
	field int
	c     transport.Completion
	err   error
}

// completeForm is the form of a resource template's variables or a prompt's string
// arguments: one text input per argument and a button, with the server's
// completion/complete suggestions listed under the field being typed (up/down choose,
// tab or enter take one, esc closes the list). For a template it shows the URI the
// values make. It implements FormScreen.
type completeForm struct {
	ctx      context.Context
	template string // the URI template, "" for a prompt
	desc     string
	button   string // "Read" or "Get"
	fields   []argSpec
	inputs   []textinput.Model
	initial  []string
	focus    int // index into fields; len(fields) is the button
	complete completeFunc

	seq  int // bumped by every change; a completion for an older seq is dropped
	sugg []string
	more int // suggestions the server has beyond sugg (or -1: some)
	sel  int // the highlighted suggestion, -1 for none
	// pending is true from a change until its suggestions arrive; tabbed is a tab
	// pressed meanwhile: the first suggestion is taken when they come (the next field
	// when there is none).
	pending, tabbed bool
	open            bool
	note            string // why there are no suggestions, or what is missing
	st              *styles
	w, h            int
	done            bool
	result          elicit.Response
}

// newCompleteForm builds the form; values pre-fill it (the last arguments), complete
// may be nil (the server offers no completions).
func newCompleteForm(ctx context.Context, template, desc, button string, fields []argSpec, values map[string]any, complete completeFunc, st *styles, so ScreenOptions) *completeForm {
	f := &completeForm{ctx: ctx, template: template, desc: desc, button: button, fields: fields, complete: complete,
		st: st, sel: -1}
	for _, a := range fields {
		in := textinput.New()
		in.Prompt = ""
		in.SetVirtualCursor(false) // the form draws the cursor; nothing blinks
		in.KeyMap.Paste.SetEnabled(false)
		if v, ok := values[a.name]; ok {
			in.SetValue(fmt.Sprint(v))
		}
		f.inputs = append(f.inputs, in)
		f.initial = append(f.initial, in.Value())
	}
	if len(fields) > 0 {
		f.inputs[0].Focus()
		f.inputs[0].CursorEnd()
	}
	f.SetSize(so.Width, so.Height)
	return f
}

// Init asks for the first field's suggestions.
func (f *completeForm) Init() tea.Cmd { return f.ask() }

// SetSize sets the form's size.
func (f *completeForm) SetSize(w, h int) {
	f.w, f.h = w, h
	for i := range f.inputs {
		f.inputs[i].SetWidth(max(w-4, 1))
	}
}

// Done reports the answer once the user sent or cancelled the form.
func (f *completeForm) Done() (elicit.Response, bool) { return f.result, f.done }

// Dirty reports whether a value differs from what the form opened with.
func (f *completeForm) Dirty() bool {
	for i, in := range f.inputs {
		if in.Value() != f.initial[i] {
			return true
		}
	}
	return false
}

// Filtering reports whether the suggestion list is open: esc closes it, not the form.
func (f *completeForm) Filtering() bool { return f.open }

// Update handles keys and the form's own completion messages.
func (f *completeForm) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case completeTickMsg:
		if msg.form != f || msg.seq != f.seq {
			return nil
		}
		return f.request()
	case completionMsg:
		if msg.form != f || msg.seq != f.seq || msg.field != f.focus {
			return nil
		}
		f.sugg, f.sel, f.note = nil, -1, ""
		for _, v := range msg.c.Values[:min(len(msg.c.Values), 100)] {
			if v = oneLine(v); v != "" {
				f.sugg = append(f.sugg, v)
			}
		}
		f.more = max(msg.c.Total-len(msg.c.Values), 0)
		if msg.c.HasMore && f.more == 0 {
			f.more = -1
		}
		if msg.err != nil {
			f.note = "no suggestions: " + oneLine(msg.err.Error())
		}
		f.open, f.pending = len(f.sugg) > 0, false
		if f.tabbed {
			f.tabbed = false
			if !f.open {
				return f.moveFocus(1)
			}
			f.take(0)
		}
		return nil
	case tea.KeyPressMsg:
		return f.key(msg)
	case tea.PasteMsg:
		if f.focus < len(f.inputs) {
			return f.edit(msg)
		}
	}
	return nil
}

func (f *completeForm) key(msg tea.KeyPressMsg) tea.Cmd {
	f.tabbed = false
	switch msg.String() {
	case "ctrl+c":
		f.finish(elicit.Response{Action: elicit.Cancel})
		return nil
	case "esc":
		if f.open {
			f.open, f.sel = false, -1
			return nil
		}
		f.finish(elicit.Response{Action: elicit.Cancel})
		return nil
	case "up":
		if f.open {
			f.sel = max(f.sel-1, -1)
			return nil
		}
		return f.moveFocus(-1)
	case "down":
		if f.open {
			f.sel = min(f.sel+1, len(f.sugg)-1)
			return nil
		}
		return f.moveFocus(1)
	case "tab":
		switch {
		case f.open:
			f.take(max(f.sel, 0))
			return nil
		case f.pending && f.focus < len(f.inputs):
			// Typed faster than the debounce: ask now and take the first that comes.
			f.tabbed = true
			f.seq++
			return f.request()
		}
		return f.moveFocus(1)
	case "shift+tab":
		return f.moveFocus(-1)
	case "enter":
		switch {
		case f.open && f.sel >= 0:
			f.take(f.sel)
			return nil
		case f.focus >= len(f.fields)-1:
			f.submit()
			return nil
		}
		return f.moveFocus(1)
	}
	if f.focus >= len(f.inputs) {
		return nil
	}
	return f.edit(msg)
}

// edit gives msg to the focused input and, when its value changed, asks for new
// suggestions after the debounce.
func (f *completeForm) edit(msg tea.Msg) tea.Cmd {
	in := &f.inputs[f.focus]
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	if in.Value() == before {
		return cmd
	}
	f.note = ""
	return tea.Batch(cmd, f.ask())
}

// take puts suggestion i into the focused field and closes the list.
func (f *completeForm) take(i int) {
	if i < 0 || i >= len(f.sugg) || f.focus >= len(f.inputs) {
		return
	}
	f.inputs[f.focus].SetValue(f.sugg[i])
	f.inputs[f.focus].CursorEnd()
	f.open, f.sel, f.pending = false, -1, false
	f.seq++ // a completion still on its way is for the old value
}

// moveFocus moves to the previous or next field, or to the button after the last.
func (f *completeForm) moveFocus(d int) tea.Cmd {
	next := max(0, min(len(f.fields), f.focus+d))
	if next == f.focus {
		return nil
	}
	if f.focus < len(f.inputs) {
		f.inputs[f.focus].Blur()
	}
	f.focus = next
	f.sugg, f.open, f.sel, f.more, f.note = nil, false, -1, 0, ""
	if f.focus < len(f.inputs) {
		f.inputs[f.focus].Focus()
		f.inputs[f.focus].CursorEnd()
		return f.ask()
	}
	f.seq++
	f.pending = false
	return nil
}

// ask schedules a completion request for the focused field after the debounce.
func (f *completeForm) ask() tea.Cmd {
	f.seq++
	f.pending = false
	if f.complete == nil || f.focus >= len(f.inputs) {
		return nil
	}
	f.pending = true
	form, seq := f, f.seq
	return tea.Tick(completeDebounce, func(time.Time) tea.Msg { return completeTickMsg{form: form, seq: seq} })
}

// request asks the server for the focused field's suggestions, off the UI goroutine.
func (f *completeForm) request() tea.Cmd {
	if f.complete == nil || f.focus >= len(f.inputs) {
		return nil
	}
	form, seq, field, arg := f, f.seq, f.focus, f.fields[f.focus].name
	value, others := f.inputs[f.focus].Value(), f.values(f.focus)
	ctx, complete := f.ctx, f.complete
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, completeTimeout)
		defer cancel()
		c, err := complete(ctx, arg, value, others)
		return completionMsg{form: form, seq: seq, field: field, c: c, err: err}
	}
}

// values returns the non-empty values, leaving out the field at index skip.
func (f *completeForm) values(skip int) map[string]string {
	out := map[string]string{}
	for i, in := range f.inputs {
		if v := in.Value(); i != skip && v != "" {
			out[f.fields[i].name] = v
		}
	}
	return out
}

// submit sends the form when every required value is there.
func (f *completeForm) submit() {
	for i, a := range f.fields {
		if a.required && strings.TrimSpace(f.inputs[i].Value()) == "" {
			f.note = a.name + " is required"
			if f.focus < len(f.inputs) {
				f.inputs[f.focus].Blur()
			}
			f.focus = i
			f.inputs[i].Focus()
			f.open = false
			return
		}
	}
	content := map[string]any{}
	for k, v := range f.values(-1) {
		content[k] = v
	}
	f.finish(elicit.Response{Action: elicit.Accept, Content: content})
}

func (f *completeForm) finish(r elicit.Response) {
	f.done, f.result = true, r
	f.open = false
}

// preview is the URI the values make, or the template while a required one is missing.
func (f *completeForm) preview() string {
	vals := f.values(-1)
	if uri, err := transport.ExpandTemplate(f.template, vals); err == nil {
		return uri
	}
	return transport.FillTemplate(f.template, vals)
}

// View renders the form in f.h lines: the description, the URI (templates), the
// fields with the suggestion list under the focused one, the button and a hint. When
// lines are short the description goes first, then suggestion rows, then fields far
// from the focus; the focused input and the button always stay.
func (f *completeForm) View() string {
	var head []string
	if f.desc != "" {
		head = append(head, f.st.Dim.Render(trunc(oneLine(firstLine(f.desc)), f.w)))
	}
	if f.template != "" {
		head = append(head, trunc("URI: "+oneLine(f.preview()), f.w))
	}
	tail := []string{f.buttonLine(), f.st.Dim.Render(trunc(f.hint(), f.w))}
	labelW := 0
	for _, a := range f.fields {
		labelW = max(labelW, len([]rune(oneLine(a.name)))+1)
	}
	labelW = min(labelW, max(f.w/3, 4))
	fieldLines := make([]string, len(f.fields))
	for i, a := range f.fields {
		mark := " "
		if a.required {
			mark = "*"
		}
		label := fmt.Sprintf("%-*s", labelW, trunc(oneLine(a.name), labelW-1)+mark)
		prefix := "  "
		if i == f.focus {
			prefix = "> "
		}
		fieldLines[i] = trunc(prefix+label+" "+f.inputView(i, max(f.w-len(prefix)-labelW-1, 1)), f.w)
	}
	// Room for suggestions: what the head, fields and tail leave, but at least a few
	// rows (fields far from the focus scroll away for them).
	room := f.h - len(tail) - len(f.fields)
	if room-len(head) < 2 && len(head) > 0 && f.desc != "" {
		head = head[1:] // the description goes first
	}
	room -= len(head)
	var sugg []string
	if f.open && f.focus < len(f.fields) {
		least := min(4, f.h-len(head)-len(tail)-1)
		sugg = f.suggestionLines(max(min(max(room, least), maxSuggestionRows), 1))
	}
	body := make([]string, 0, len(fieldLines)+len(sugg))
	focusAt := len(body)
	for i, l := range fieldLines {
		if i == f.focus {
			focusAt = len(body)
		}
		body = append(body, l)
		if i == f.focus {
			body = append(body, sugg...)
		}
	}
	if f.focus >= len(f.fields) {
		focusAt = len(body) - 1
	}
	// Keep the focused field and its suggestions in view.
	bodyRoom := max(f.h-len(head)-len(tail), 1)
	start := 0
	if len(body) > bodyRoom {
		start = max(0, min(focusAt, len(body)-bodyRoom))
		if focusAt+len(sugg) < start+bodyRoom {
			start = max(0, min(start, focusAt+1+len(sugg)-bodyRoom))
		}
		body = body[start:min(len(body), start+bodyRoom)]
	}
	lines := append(append(head, body...), tail...)
	if len(lines) > f.h {
		lines = lines[len(lines)-f.h:]
	}
	return fitLines(lines, f.h)
}

// inputView is field i's value with a cursor when focused, cut to w cells around it.
func (f *completeForm) inputView(i, w int) string {
	in := f.inputs[i]
	r := []rune(oneLine(in.Value()))
	if i != f.focus {
		return trunc(string(r), w)
	}
	pos := min(in.Position(), len(r))
	before, after := string(r[:pos]), string(r[pos:])
	if over := len([]rune(before)) + 1 - w; over > 0 {
		before = "…" + string([]rune(before)[over+1:])
	}
	return trunc(before+"▏"+after, w)
}

// suggestionLines lists the suggestions in at most n rows, the highlighted one in view.
func (f *completeForm) suggestionLines(n int) []string {
	total := len(f.sugg)
	shown := min(total, n)
	extra := f.more != 0 || total > shown
	if extra && shown == n && n > 1 {
		shown-- // a row for "… more"
	}
	start := 0
	if f.sel >= shown {
		start = f.sel - shown + 1
	}
	var out []string
	for i := start; i < start+shown && i < total; i++ {
		line := trunc("    "+f.sugg[i], f.w)
		if i == f.sel {
			line = f.st.Selected.Render(trunc("  › "+f.sugg[i], f.w))
		}
		out = append(out, line)
	}
	if extra && len(out) < n {
		var word string
		switch below := total - (start + shown); {
		case below > 0:
			word = fmt.Sprintf("… %d more", below+max(f.more, 0))
		case f.more > 0:
			word = fmt.Sprintf("… %d more on the server (type to narrow)", f.more)
		case f.more < 0:
			word = "… more on the server (type to narrow)"
		default:
			word = fmt.Sprintf("↑ %d above", start)
		}
		out = append(out, f.st.Dim.Render(trunc("    "+word, f.w)))
	}
	return out
}

func (f *completeForm) buttonLine() string {
	line := "  [ " + f.button + " ]"
	if f.focus >= len(f.fields) {
		line = f.st.Selected.Render("> [ " + f.button + " ]")
	}
	if f.note != "" {
		line += "  " + f.st.Warn.Render(trunc(f.note, max(f.w-len(f.button)-8, 1)))
	}
	return line
}

func (f *completeForm) hint() string {
	verb := strings.ToLower(f.button)
	switch {
	case f.open && f.sel >= 0:
		return "↑/↓ choose · tab/enter take · esc close"
	case f.open && f.focus == len(f.fields)-1:
		return "↓ choose · tab first · enter " + verb + " · esc close"
	case f.open:
		return "↓ choose · tab first · enter next · esc close"
	case f.focus >= len(f.fields):
		return "enter " + verb + " · shift+tab back · esc cancel"
	case f.focus == len(f.fields)-1:
		return "enter " + verb + " · ↑/↓ fields · esc cancel"
	}
	return "enter next · ↑/↓ fields · esc cancel"
}
