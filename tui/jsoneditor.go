package tui

import (
	"encoding/json"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/elicitty/elicitty/elicit"
)

// jsonEditor is the argument screen for schemas a form cannot render: the user types a
// JSON object; ctrl+s submits it once it parses as an object, esc cancels.
type jsonEditor struct {
	req  *elicit.Request
	text string
	err  string
	resp elicit.Response
	done bool
	w, h int
	st   styles
}

func newJSONEditor(req *elicit.Request, _ *elicit.Form, o ScreenOptions) *jsonEditor {
	return &jsonEditor{req: req, text: "{}", w: o.Width, h: o.Height, st: newStyles(o.NoColor)}
}

// Dirty reports whether the user has typed anything.
func (e *jsonEditor) Dirty() bool { return !e.done && e.text != "{}" }

// Init implements FormScreen.
func (e *jsonEditor) Init() tea.Cmd { return nil }

// SetSize implements FormScreen.
func (e *jsonEditor) SetSize(w, h int) { e.w, e.h = w, h }

// Done implements FormScreen.
func (e *jsonEditor) Done() (elicit.Response, bool) { return e.resp, e.done }

// Update implements FormScreen.
func (e *jsonEditor) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || e.done {
		return nil
	}
	e.err = ""
	switch k.String() {
	case "ctrl+s":
		var content map[string]any
		if err := json.Unmarshal([]byte(e.text), &content); err != nil {
			e.err = "not a JSON object: " + err.Error()
			return nil
		}
		e.resp, e.done = elicit.Response{Action: elicit.Accept, Content: content}, true
	case "esc":
		e.resp, e.done = elicit.Response{Action: elicit.Cancel}, true
	case "enter":
		e.text += "\n"
	case "space":
		e.text += " "
	case "backspace":
		if r := []rune(e.text); len(r) > 0 {
			e.text = string(r[:len(r)-1])
		}
	default:
		e.text += k.Text
	}
	return nil
}

// View implements FormScreen.
func (e *jsonEditor) View() string {
	lines := append(wrapWords(elicit.Sanitize(e.req.Message), e.w), "JSON object (the schema is not flat):")
	lines = append(lines, strings.Split(wrapText(e.text+"▏", e.w), "\n")...)
	if e.err != "" {
		lines = append(lines, e.st.Err.Render(trunc("✗ "+e.err, e.w)))
	}
	lines = append(lines, "", e.st.Dim.Render("ctrl+s call · esc cancel"))
	return strings.Join(lines, "\n")
}
