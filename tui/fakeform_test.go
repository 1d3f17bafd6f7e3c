package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// localForm is a small stand-in form screen for model tests, with keys independent of
// huh (tui/form's Model is tested in its package and in TestRealScreens). One line per field in server order; tab/shift+tab or ↑/↓
// move, space toggles a boolean or a multi-select option under ←/→, ←/→ pick a single
// choice, ctrl+s accepts, ctrl+d declines, esc cancels.
type localForm struct {
	req   *elicit.Request
	form  *elicit.Form
	vals  []fieldVal
	focus int
	errs  map[int]string
	resp  elicit.Response
	done  bool
	w, h  int
	st    styles
}

// fieldVal is the draft value of one field.
type fieldVal struct {
	text  string
	on    bool
	pick  int // select: chosen option; multi: option under the cursor
	picks []bool
}

func newLocalForm(req *elicit.Request, f *elicit.Form, o ScreenOptions) *localForm {
	if f == nil {
		f = &elicit.Form{}
	}
	lf := &localForm{req: req, form: f, errs: map[int]string{}, w: o.Width, h: o.Height, st: newStyles(o.NoColor)}
	for _, fld := range f.Fields {
		v := fieldVal{pick: -1, picks: make([]bool, len(fld.Options))}
		switch d := fld.Default.(type) {
		case string:
			v.text = d
			for i, op := range fld.Options {
				if op.Value == d {
					v.pick = i
				}
			}
		case bool:
			v.on = d
		case float64, int64:
			v.text = fmt.Sprint(d)
		case []string:
			for i, op := range fld.Options {
				v.picks[i] = slices.Contains(d, op.Value)
			}
		}
		if fld.Kind == elicit.KindMulti {
			v.pick = 0
		}
		lf.vals = append(lf.vals, v)
	}
	return lf
}

// Init implements FormScreen.
func (f *localForm) Init() tea.Cmd { return nil }

// SetSize implements FormScreen.
func (f *localForm) SetSize(w, h int) { f.w, f.h = w, h }

// Done implements FormScreen.
func (f *localForm) Done() (elicit.Response, bool) { return f.resp, f.done }

// Update implements FormScreen.
func (f *localForm) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || f.done {
		return nil
	}
	n := len(f.vals)
	switch k.String() {
	case "ctrl+s":
		f.submit()
	case "ctrl+d":
		f.resp, f.done = elicit.Response{Action: elicit.Decline}, true
	case "esc":
		f.resp, f.done = elicit.Response{Action: elicit.Cancel}, true
	case "tab", "down", "enter":
		if k.String() == "enter" && (n == 0 || f.focus == n-1) {
			f.submit()
			return nil
		}
		if n > 0 {
			f.focus = (f.focus + 1) % n
		}
	case "shift+tab", "up":
		if n > 0 {
			f.focus = (f.focus - 1 + n) % n
		}
	default:
		if n > 0 {
			f.edit(k)
		}
	}
	return nil
}

func (f *localForm) edit(k tea.KeyPressMsg) {
	fld, v := f.form.Fields[f.focus], &f.vals[f.focus]
	delete(f.errs, f.focus)
	switch fld.Kind {
	case elicit.KindBool:
		if k.String() == "space" || k.Text == "y" || k.Text == "n" {
			v.on = k.Text == "y" || (k.String() == "space" && !v.on)
		}
	case elicit.KindSelect:
		switch k.String() {
		case "left":
			v.pick = max(0, v.pick-1)
		case "right", "space":
			v.pick = min(len(fld.Options)-1, v.pick+1)
		}
	case elicit.KindMulti:
		switch k.String() {
		case "left":
			v.pick = max(0, v.pick-1)
		case "right":
			v.pick = min(len(fld.Options)-1, v.pick+1)
		case "space":
			if v.pick >= 0 && v.pick < len(v.picks) {
				v.picks[v.pick] = !v.picks[v.pick]
			}
		}
	default:
		switch {
		case k.String() == "backspace":
			if r := []rune(v.text); len(r) > 0 {
				v.text = string(r[:len(r)-1])
			}
		case k.String() == "space":
			v.text += " "
		case k.Text != "":
			v.text += k.Text
		}
	}
}

// submit builds the content; it stays open with inline errors when a value is bad.
func (f *localForm) submit() {
	content := map[string]any{}
	clear(f.errs)
	for i, fld := range f.form.Fields {
		v := f.vals[i]
		var val any
		set := true
		switch fld.Kind {
		case elicit.KindBool:
			val = v.on
		case elicit.KindSelect:
			if v.pick < 0 {
				set = false
				break
			}
			val = fld.Options[v.pick].Value
		case elicit.KindMulti:
			var out []string
			for j, on := range v.picks {
				if on {
					out = append(out, fld.Options[j].Value)
				}
			}
			val, set = out, len(out) > 0
		default:
			if v.text == "" {
				set = false
				break
			}
			x, err := fld.ParseText(v.text)
			if err != nil {
				f.errs[i] = err.Error()
				continue
			}
			val = x
		}
		if !set {
			if fld.Required {
				f.errs[i] = "required"
			}
			continue
		}
		if vs := fld.CheckValue(val); len(vs) > 0 {
			f.errs[i] = vs[0].Message
			continue
		}
		content[fld.Name] = val
	}
	if len(f.errs) > 0 {
		return
	}
	f.resp, f.done = elicit.Response{Action: elicit.Accept, Content: content}, true
}

// View implements FormScreen.
func (f *localForm) View() string {
	var lines []string
	lines = append(lines, f.st.Title.Render(trunc(safe.Block(f.req.Server)+" asks", f.w)))
	lines = append(lines, wrapWords(safe.Block(f.req.Message), f.w)...)
	for _, fd := range f.form.Findings {
		lines = append(lines, f.st.Warn.Render(trunc("⚠ "+fd.Message, f.w)))
	}
	lines = append(lines, "")
	if len(f.form.Fields) == 0 {
		lines = append(lines, "(no fields: confirm with enter)")
	}
	for i, fld := range f.form.Fields {
		label := fld.Title
		if label == "" {
			label = fld.Name
		}
		if fld.Required {
			label += "*"
		}
		cur := "  "
		if i == f.focus {
			cur = "> "
		}
		line := cur + safe.Block(label) + ": " + f.valueText(i)
		if i == f.focus {
			line = f.st.Selected.Render(trunc(line, f.w))
		} else {
			line = trunc(line, f.w)
		}
		lines = append(lines, line)
		if fld.Secret {
			lines = append(lines, f.st.Warn.Render(trunc("    ⚠ looks like a secret: the server will see it", f.w)))
		}
		if e, ok := f.errs[i]; ok {
			lines = append(lines, f.st.Err.Render(trunc("    ✗ "+e, f.w)))
		}
	}
	lines = append(lines, "", f.st.Dim.Render(trunc("ctrl+s accept · ctrl+d decline · esc cancel · ctrl+b set aside", f.w)))
	if f.h > 0 && len(lines) > f.h {
		// Keep the focused field in view: drop lines from the top of the field list.
		lines = append(lines[:1], lines[len(lines)-f.h+1:]...)
	}
	return strings.Join(lines, "\n")
}

func (f *localForm) valueText(i int) string {
	fld, v := f.form.Fields[i], f.vals[i]
	switch fld.Kind {
	case elicit.KindBool:
		if v.on {
			return "[x] yes"
		}
		return "[ ] no"
	case elicit.KindSelect:
		if v.pick < 0 {
			return "(none) ←/→"
		}
		return "‹ " + safe.Block(fld.Options[v.pick].Label) + " ›"
	case elicit.KindMulti:
		var parts []string
		for j, op := range fld.Options {
			box := "[ ]"
			if v.picks[j] {
				box = "[x]"
			}
			s := box + safe.Block(op.Label)
			if j == v.pick && i == f.focus {
				s = "›" + s
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	if fld.Secret {
		return strings.Repeat("•", len([]rune(v.text)))
	}
	return v.text
}
