package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// filterBox is a list's filter: a text input the user types into after "/". While it
// is being edited every key goes to it, so that no letter runs as a shortcut; enter
// keeps the filter and leaves, esc clears it and leaves.
type filterBox struct {
	value   string
	input   textinput.Model
	editing bool
}

func newFilterBox() filterBox {
	in := textinput.New()
	in.Prompt = ""
	in.SetVirtualCursor(false) // the pane draws the cursor; nothing blinks
	in.KeyMap.Paste.SetEnabled(false)
	return filterBox{input: in}
}

// edit starts typing the filter, with the cursor after the current one.
func (f *filterBox) edit() {
	f.editing = true
	f.input.SetValue(f.value)
	f.input.CursorEnd()
	f.input.Focus()
}

// key applies a key typed while editing; it reports whether the filter changed.
func (f *filterBox) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "enter":
		f.editing = false
		f.input.Blur()
		return nil, false
	case "esc":
		f.editing = false
		f.input.Blur()
		changed := f.value != ""
		f.value = ""
		f.input.SetValue("")
		return nil, changed
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	if v := f.input.Value(); v != f.value {
		f.value = v
		return cmd, true
	}
	return cmd, false
}

// label is the filter for a pane's head line: "", the filter, or the filter being
// edited with its cursor and hint.
func (f *filterBox) label(hint string) string {
	switch {
	case f.editing:
		r := []rune(f.value)
		pos := min(f.input.Position(), len(r))
		s := " · filter: " + oneLine(string(r[:pos])) + "▏" + oneLine(string(r[pos:]))
		if hint != "" {
			s += " (" + hint + ")"
		}
		return s // the keys are in the help bar (filterHelp)
	case f.value != "":
		return " · filter: " + oneLine(f.value)
	}
	return ""
}

// filterHelp is the help bar while a filter is typed.
const filterHelp = "type to filter · enter keep · esc clear"

// matchAll reports whether hay contains every word of filter, ignoring case.
func matchAll(filter, hay string) bool {
	hay = strings.ToLower(hay)
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}
