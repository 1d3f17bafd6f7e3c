package form

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
)

// editorDoneMsg reports the end of an $EDITOR session on one field.
type editorDoneMsg struct {
	a     *answer
	input *huh.Input
	path  string
	err   error
}

// editorCommand is the command line of the user's editor: Options.Editor, else
// $VISUAL, else $EDITOR, else vi. It may carry arguments ("code --wait").
func (m *Model) editorCommand() []string {
	for _, e := range []string{m.opts.Editor, os.Getenv("VISUAL"), os.Getenv("EDITOR")} {
		if f := strings.Fields(e); len(f) > 0 {
			return f
		}
	}
	return []string{"vi"}
}

// focusedInput returns the text input that has focus and the answer it is bound to.
func (m *Model) focusedInput() (*answer, *huh.Input, bool) {
	if m.phase != phaseFill || m.hf == nil {
		return nil, nil, false
	}
	focused := m.hf.GetFocusedField()
	for i, f := range m.fields {
		in, ok := f.(*huh.Input)
		if !ok || f != focused {
			continue
		}
		a := m.ans.list[m.page*pageSize+i]
		return a, in, a.widget == widgetInput
	}
	return nil, nil, false
}

// openEditor opens the focused text field's current value in the user's editor on a
// private temporary file; the program gives the editor the terminal until it exits.
func (m *Model) openEditor() tea.Cmd {
	a, in, ok := m.focusedInput()
	if !ok {
		return nil
	}
	f, err := os.CreateTemp("", "elicitty-*.txt")
	if err != nil {
		m.editorErr = fmt.Sprintf("editor: %v", err)
		return nil
	}
	path := f.Name()
	// The text input holds what was typed; the answer only gets it on blur.
	_, werr := f.WriteString(in.GetValue().(string))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		m.editorErr = fmt.Sprintf("editor: %v", werr)
		return nil
	}
	argv := append(m.editorCommand(), path)
	c := exec.Command(argv[0], argv[1:]...)
	m.editorErr = ""
	return m.exec(c, func(err error) tea.Msg { return editorDoneMsg{a: a, input: in, path: path, err: err} })
}

// editorDone brings the edited text back into its field: one trailing newline is
// dropped (editors add one); the field is one line, so inner line breaks become spaces.
func (m *Model) editorDone(msg editorDoneMsg) {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.editorErr = fmt.Sprintf("editor: %v (field unchanged)", msg.err)
		return
	}
	b, err := os.ReadFile(msg.path)
	if err != nil {
		m.editorErr = fmt.Sprintf("editor: %v (field unchanged)", err)
		return
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	msg.a.text = s
	msg.input.Value(&msg.a.text)
	m.editorErr = ""
}
