package form

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
)

var cmdType = reflect.TypeFor[tea.Cmd]()

// run executes cmd and everything it leads to, feeding the messages back into m, the way
// a program would. Call it inside synctest.Test: cursor blinks are timers, which fire at
// once in the bubble's fake time, and their messages are dropped so the loop ends.
func run(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if msg == nil {
			continue
		}
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			// tea.BatchMsg and tea's sequence: run the children first, in order.
			children := make([]tea.Cmd, 0, v.Len())
			for i := range v.Len() {
				children = append(children, v.Index(i).Interface().(tea.Cmd))
			}
			queue = append(children, queue...)
			continue
		}
		if ignored(msg) {
			continue
		}
		next := m.Update(msg)
		queue = append(queue, next)
	}
}

// ignored reports messages a test program drops: cursor blinks and bubbletea's own
// requests to the terminal (window size and the like).
func ignored(msg tea.Msg) bool {
	typ := reflect.TypeOf(msg)
	pkg := typ.PkgPath()
	switch {
	case strings.HasPrefix(pkg, "charm.land/bubbles/v2/cursor"):
		return true
	case pkg == "charm.land/bubbletea/v2" && typ.Name() != "" && !unicode.IsUpper(rune(typ.Name()[0])):
		return true
	}
	return false
}

// press sends one key to m and runs what follows.
func press(t *testing.T, m *Model, k tea.KeyPressMsg) {
	t.Helper()
	cmd := m.Update(k)
	run(t, m, cmd)
}

// typeText types s into m, one key per rune.
func typeText(t *testing.T, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		press(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the view as a user reads it: no colour, no trailing blanks.
func screen(m *Model) string {
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func ptr[T any](v T) *T { return &v }

// everyKind is a hand-built form with one field of every kind and widget.
func everyKind() *elicit.Form {
	return &elicit.Form{
		Fields: []elicit.Field{
			{Name: "name", Title: "Name", Description: "Your full name", Kind: elicit.KindText, Required: true, MinLength: ptr(2)},
			{Name: "email", Title: "Email", Kind: elicit.KindText, Format: "email"},
			{Name: "age", Title: "Age", Kind: elicit.KindInteger, Minimum: ptr(0.0), Maximum: ptr(150.0), Default: int64(30)},
			{Name: "ratio", Title: "Ratio", Kind: elicit.KindNumber},
			{Name: "env", Title: "Environment", Kind: elicit.KindSelect, Required: true, Default: "prod",
				Options: []elicit.Option{{Value: "dev", Label: "Development"}, {Value: "prod", Label: "Production"}}},
			{Name: "region", Title: "Region", Kind: elicit.KindSelect,
				Options: []elicit.Option{{Value: "eu", Label: "eu"}, {Value: "us", Label: "us"}}},
			{Name: "tags", Title: "Tags", Kind: elicit.KindMulti, MinItems: ptr(1), MaxItems: ptr(2),
				Options: []elicit.Option{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}, {Value: "c", Label: "Gamma"}}},
			{Name: "agree", Title: "Agree", Kind: elicit.KindBool, Required: true},
			{Name: "notify", Title: "Notify", Kind: elicit.KindBool},
			{Name: "token", Title: "API token", Kind: elicit.KindText, Secret: true},
			{Name: "extra", Title: "Extra", Kind: elicit.KindRaw},
		},
		Findings: []elicit.Finding{{Path: "/properties/extra", Code: "nested-object", Message: "nested objects are not in the vocabulary; answered as raw JSON"}},
	}
}

func request(msg string) *elicit.Request {
	return &elicit.Request{Server: "demo", Protocol: "2025-11-25", Mode: elicit.ModeForm, Message: msg}
}

// ioPipe is io.Pipe, named for the tests that need an input that never ends.
func ioPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }
