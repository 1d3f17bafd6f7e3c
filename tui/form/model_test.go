package form

import (
	"strings"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

func newModel(t *testing.T, req *elicit.Request, f *elicit.Form, w, h int) *Model {
	t.Helper()
	m := NewModel(req, f, Options{Width: w, Height: h, NoColor: true})
	run(t, m, m.Init())
	return m
}

func TestFormModelEveryKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(t, request("Tell us about you"), everyKind(), 80, 24)
		testkit.Golden(t, "every_kind_start", screen(m))

		typeText(t, m, "Ada")
		press(t, m, testkit.Key("<enter>")) // name
		press(t, m, testkit.Key("<enter>")) // email: optional, left empty
		typeText(t, m, "4x")
		press(t, m, testkit.Key("<enter>")) // age: not a whole number, stays
		testkit.Golden(t, "every_kind_invalid_age", screen(m))
		press(t, m, testkit.Key("<backspace>"))
		press(t, m, testkit.Key("<backspace>"))
		typeText(t, m, "42")
		press(t, m, testkit.Key("<enter>")) // age
		typeText(t, m, "0.5")
		press(t, m, testkit.Key("<enter>")) // ratio
		press(t, m, testkit.Key("<enter>")) // env: default prod
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<enter>")) // region: (no answer) -> eu -> us
		press(t, m, testkit.Key("x"))
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("x"))
		press(t, m, testkit.Key("<enter>")) // tags: a, c
		press(t, m, testkit.Key("<enter>")) // agree: required, no default: must be chosen
		if !strings.Contains(screen(m), "choose yes or no") {
			t.Errorf("a required boolean passed without a choice:\n%s", screen(m))
		}
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<enter>")) // agree: yes
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<enter>")) // notify: yes
		typeText(t, m, "hunter2")
		if strings.Contains(screen(m), "hunter2") {
			t.Errorf("secret shown in clear:\n%s", screen(m))
		}
		press(t, m, testkit.Key("<enter>")) // token
		typeText(t, m, `{"k":[1,2]}`)
		press(t, m, testkit.Key("<enter>")) // extra -> review

		if _, done := m.Done(); done {
			t.Fatal("done before the review step")
		}
		testkit.Golden(t, "every_kind_review", screen(m))
		for range 12 {
			press(t, m, testkit.Key("<down>"))
		}
		testkit.Golden(t, "every_kind_review_scrolled", screen(m))
		if s := screen(m); strings.Contains(s, "hunter2") || !strings.Contains(s, `"token": "*******"`) {
			t.Errorf("review does not mask the secret:\n%s", s)
		}

		press(t, m, testkit.Key("a"))
		got, done := m.Done()
		if !done {
			t.Fatal("not done after accept")
		}
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{
			"name":   "Ada",
			"age":    int64(42),
			"ratio":  0.5,
			"env":    "prod",
			"region": "us",
			"tags":   []string{"a", "c"},
			"agree":  true,
			"notify": true,
			"token":  "hunter2",
			"extra":  map[string]any{"k": []any{1.0, 2.0}},
		}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

func TestFormModelDefaultsMerged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: "replicas", Title: "Replicas", Kind: elicit.KindInteger, Default: int64(3)},
			{Name: "note", Title: "Note", Kind: elicit.KindText},
		}}
		m := newModel(t, request("Scale"), f, 80, 24)
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("<enter>")) // review: Accept focused
		got, _ := m.Done()
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"replicas": int64(3)}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

func TestFormModelDeclineCancel(t *testing.T) {
	tests := []struct {
		name   string
		review bool // go to the review step first
		key    string
		want   elicit.Action
	}{
		{"ctrl+x while filling declines", false, "ctrl+x", elicit.Decline},
		{"esc while filling cancels", false, "esc", elicit.Cancel},
		{"ctrl+c while filling cancels", false, "ctrl+c", elicit.Cancel},
		{"d at review declines", true, "d", elicit.Decline},
		{"c at review cancels", true, "c", elicit.Cancel},
		{"esc at review cancels", true, "esc", elicit.Cancel},
		{"ctrl+x at review declines", true, "ctrl+x", elicit.Decline},
	}
	keys := map[string]func(t *testing.T, m *Model){
		"ctrl+x": func(t *testing.T, m *Model) { press(t, m, testkit.Key("<ctrl+x>")) },
		"esc":    func(t *testing.T, m *Model) { press(t, m, testkit.Key("<esc>")) },
		"ctrl+c": func(t *testing.T, m *Model) { press(t, m, testkit.Key("<ctrl+c>")) },
		"d":      func(t *testing.T, m *Model) { press(t, m, testkit.Key("d")) },
		"c":      func(t *testing.T, m *Model) { press(t, m, testkit.Key("c")) },
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &elicit.Form{Fields: []elicit.Field{{Name: "name", Title: "Name", Kind: elicit.KindText}}}
				m := newModel(t, request("Name?"), f, 80, 24)
				typeText(t, m, "dc") // letters typed into a field are text, not actions
				if _, done := m.Done(); done {
					t.Fatal("typing d or c into a field ended the form")
				}
				if tt.review {
					press(t, m, testkit.Key("<enter>"))
				}
				keys[tt.key](t, m)
				got, done := m.Done()
				if !done {
					t.Fatalf("not done after %s", tt.key)
				}
				if diff := cmp.Diff(elicit.Response{Action: tt.want}, got); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestFormModelEditKeepsValues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: "name", Title: "Name", Kind: elicit.KindText, Required: true},
			{Name: "count", Title: "Count", Kind: elicit.KindInteger},
		}}
		m := newModel(t, request("Edit me"), f, 80, 24)
		typeText(t, m, "Ada")
		press(t, m, testkit.Key("<enter>"))
		typeText(t, m, "7")
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("e")) // back to the fields
		if !strings.Contains(screen(m), "Ada") {
			t.Fatalf("edit lost the typed value:\n%s", screen(m))
		}
		typeText(t, m, "!")
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("a"))
		got, _ := m.Done()
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada!", "count": int64(7)}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

func TestFormModelConfirmOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(t, request("Proceed with the deployment?"), &elicit.Form{}, 80, 24)
		testkit.Golden(t, "confirm_only", screen(m))
		press(t, m, testkit.Key("<enter>"))
		got, done := m.Done()
		if !done {
			t.Fatal("enter on Accept did not answer")
		}
		if got.Action != elicit.Accept || len(got.Content) != 0 {
			t.Errorf("got %+v, want accept without content", got)
		}
	})
}

func TestFormModelSecretWarning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: "password", Title: "Password", Kind: elicit.KindText, Required: true, Secret: true},
		}}
		m := newModel(t, request("Log in"), f, 80, 24)
		typeText(t, m, "s3cret")
		got := screen(m)
		testkit.Golden(t, "secret_warning", got)
		if strings.Contains(got, "s3cret") {
			t.Error("secret shown in clear")
		}
		if !strings.Contains(got, `field "password" looks like a secret`) {
			t.Error("no secret warning in the header")
		}
	})
}

func TestFormModelLongMessageScrolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var msg strings.Builder
		for i := 1; i <= 40; i++ {
			msg.WriteString("line " + strings.Repeat("x", i%7) + " of a long message\n")
		}
		msg.WriteString("THE END")
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: "a", Title: "First", Kind: elicit.KindText},
			{Name: "b", Title: "Second", Kind: elicit.KindText},
		}}
		m := newModel(t, request(msg.String()), f, 80, 24)
		check := func(name string) {
			t.Helper()
			s := screen(m)
			lines := strings.Split(s, "\n")
			if len(lines) > 24 {
				t.Errorf("%s: view is %d lines, taller than 24", name, len(lines))
			}
			if !strings.Contains(lines[len(lines)-1], "esc cancel") {
				t.Errorf("%s: actions pushed off screen; last line %q", name, lines[len(lines)-1])
			}
			testkit.Golden(t, name, s)
		}
		check("long_message_top")
		if strings.Contains(screen(m), "THE END") {
			t.Fatal("whole message shown at once; nothing to scroll")
		}
		for range 10 {
			press(t, m, testkit.Key("<pgdown>"))
		}
		check("long_message_bottom")
		if !strings.Contains(screen(m), "THE END") {
			t.Error("pgdown did not reach the end of the message")
		}
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("<enter>"))
		check("long_message_review")
	})
}

func TestFormModelSanitizes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: "x", Title: "Evil\x1b[2J title", Description: "desc\x1b]0;pwned\x07", Kind: elicit.KindSelect,
				Options: []elicit.Option{{Value: "a", Label: "A\x1b[31mred"}}},
		}}
		m := newModel(t, &elicit.Request{Server: "s\x1b[1m", Message: "hi\x1b[H\x1b[2Jthere"}, f, 80, 24)
		if v := m.View(); strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\x1b[H") {
			t.Errorf("control sequences reached the view: %q", v)
		}
	})
}

// TestFormModelFromParse goes through the engine's Parse, so it checks that the schema
// shapes the engine produces are rendered and answered with typed values.
func TestFormModelFromParse(t *testing.T) {
	schema := `{"type":"object","properties":{
		"name":{"type":"string","title":"Name","minLength":1},
		"replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":9,"default":2},
		"env":{"type":"string","title":"Env","oneOf":[{"const":"dev","title":"Development"},{"const":"prod","title":"Production"}]},
		"legacy":{"type":"string","enum":["x","y"],"enumNames":["Ex","Why"],"default":"y"},
		"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b","c"]},"minItems":1},
		"ok":{"type":"boolean","title":"OK","default":false}
	},"required":["name","env"]}`
	synctest.Test(t, func(t *testing.T) {
		f := elicit.Parse([]byte(schema), "2025-11-25")
		if len(f.Fields) != 6 {
			t.Fatalf("Parse gave %d fields, want 6 (findings %v)", len(f.Fields), f.Findings)
		}
		m := newModel(t, request("Deploy"), f, 80, 24)
		typeText(t, m, "web")
		press(t, m, testkit.Key("<enter>")) // name
		typeText(t, m, "5")
		press(t, m, testkit.Key("<enter>")) // replicas
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("<enter>")) // env: required, first option preselected -> prod
		press(t, m, testkit.Key("<enter>")) // legacy: default y
		press(t, m, testkit.Key("x"))
		press(t, m, testkit.Key("<enter>")) // tags: a
		press(t, m, testkit.Key("<enter>")) // ok: default false
		press(t, m, testkit.Key("a"))
		got, done := m.Done()
		if !done {
			t.Fatalf("not done; screen:\n%s", screen(m))
		}
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{
			"name": "web", "replicas": int64(5), "env": "prod", "legacy": "y", "tags": []string{"a"}, "ok": false,
		}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

func TestFormModelPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{}
		for i := range 7 {
			f.Fields = append(f.Fields, elicit.Field{Name: string(rune('a' + i)), Title: "Field " + string(rune('A'+i)), Kind: elicit.KindText})
		}
		m := newModel(t, request("Seven fields"), f, 80, 24)
		typeText(t, m, "one")
		for range pageSize {
			press(t, m, testkit.Key("<enter>"))
		}
		s := screen(m)
		if !strings.Contains(s, "page 2/2") || !strings.Contains(s, "Field F") {
			t.Fatalf("not on page 2 after %d fields:\n%s", pageSize, s)
		}
		press(t, m, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
		s = screen(m)
		if !strings.Contains(s, "page 1/2") || !strings.Contains(s, "one") {
			t.Fatalf("shift+tab on the first field of page 2 did not go back with values kept:\n%s", s)
		}
		for range pageSize + 2 {
			press(t, m, testkit.Key("<enter>"))
		}
		press(t, m, testkit.Key("a"))
		got, _ := m.Done()
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"a": "one"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

func TestFormModelEscWhileFiltering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{{Name: "env", Title: "Env", Kind: elicit.KindSelect, Required: true,
			Options: []elicit.Option{{Value: "dev", Label: "dev"}, {Value: "prod", Label: "prod"}}}}}
		m := newModel(t, request("Env?"), f, 80, 24)
		press(t, m, testkit.Key("/"))
		typeText(t, m, "pr")
		press(t, m, testkit.Key("<esc>")) // leaves the filter, not the form
		if _, done := m.Done(); done {
			t.Fatal("esc while filtering cancelled the form")
		}
		press(t, m, testkit.Key("<esc>"))
		if got, done := m.Done(); !done || got.Action != elicit.Cancel {
			t.Fatalf("second esc: got %+v, done %v; want cancel", got, done)
		}
	})
}

// TestFormModelReviewShowsWhatIsSent: the review shows & as & (not \u0026), and a
// server's field name and default cannot carry C1 controls, bidi overrides or
// isolates, zero-width characters, CR or BS onto it: they show as \u escapes, the
// JSON still meaning what is sent.
func TestFormModelReviewShowsWhatIsSent(t *testing.T) {
	const name = "a\u202eb\u0085c\u200bd\ufeffe\rf\bg\u2066h"
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{
			{Name: name, Title: "Who", Kind: elicit.KindText, Default: "Tom & Jerry <3\u009b31m\u200f\u2069"},
		}}
		m := newModel(t, request("Names"), f, 100, 24)
		press(t, m, testkit.Key("<enter>")) // review
		v := m.View()
		if !strings.Contains(v, "Review: Accept sends this response") {
			t.Fatalf("not at the review:\n%s", screen(m))
		}
		for _, want := range []string{`"Tom & Jerry <3\u009b31m\u200f\u2069"`, `"a\u202eb\u0085c\u200bd\ufeffe\rf\bg\u2066h"`} {
			if !strings.Contains(v, want) {
				t.Errorf("review lacks %s:\n%s", want, screen(m))
			}
		}
		for _, r := range []rune{0x202e, 0x0085, 0x200b, 0xfeff, '\r', '\b', 0x2066, 0x009b, 0x200f, 0x2069} {
			if strings.ContainsRune(v, r) {
				t.Errorf("the review carries raw %U", r)
			}
		}
		if strings.Contains(v, `\u0026`) || strings.Contains(v, `\u003c`) {
			t.Errorf("the review shows HTML escapes:\n%s", screen(m))
		}
	})
}

// TestAccessibleReviewShowsWhatIsSent: the line-mode review (--accessible, the inline
// prompt) encodes the same way.
func TestAccessibleReviewShowsWhatIsSent(t *testing.T) {
	f := &elicit.Form{Fields: []elicit.Field{{Name: "a\u202eb", Title: "Who", Kind: elicit.KindText, Default: "Tom & Jerry\u200b"}}}
	b, err := reviewJSON(f, map[string]any{"a\u202eb": "Tom & Jerry\u200b"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"action\": \"accept\",\n  \"content\": {\n    \"a\\u202eb\": \"Tom & Jerry\\u200b\"\n  }\n}"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("review JSON (-want +got):\n%s", diff)
	}
}

// TestFormModelConfirmSaysYNMovesOn: a yes/no field with a default answers with y or n
// and moves on at once; the field says so, so that a second n is not typed into the
// next field unawares.
func TestFormModelConfirmSaysYNMovesOn(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 15}} {
		synctest.Test(t, func(t *testing.T) {
			f := &elicit.Form{Fields: []elicit.Field{
				{Name: "notify", Title: "Notify", Kind: elicit.KindBool, Default: true},
				{Name: "env", Title: "Environment", Kind: elicit.KindSelect,
					Options: []elicit.Option{{Value: "dev", Label: "dev"}, {Value: "prod", Label: "prod"}}},
			}}
			m := newModel(t, request("Settings"), f, size[0], size[1])
			if got := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(got, "y or n answers and moves on") {
				t.Fatalf("%dx%d: the yes/no field does not say that y/n moves on:\n%s", size[0], size[1], screen(m))
			}
			press(t, m, testkit.Key("n"))
			if got := screen(m); !strings.Contains(got, "┃ Environment") {
				t.Errorf("%dx%d: n did not move on:\n%s", size[0], size[1], got)
			}
		})
	}
}

// TestFormModelLastConfirmSaysReview: a form whose only field is a yes/no with a default
// has no next field: the field says that y or n answers and the review follows, and it
// does.
func TestFormModelLastConfirmSaysReview(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 15}} {
		synctest.Test(t, func(t *testing.T) {
			f := &elicit.Form{Fields: []elicit.Field{{Name: "notify", Title: "Notify", Kind: elicit.KindBool, Default: true}}}
			m := newModel(t, request("Settings"), f, size[0], size[1])
			got := strings.Join(strings.Fields(screen(m)), " ")
			if strings.Contains(got, "next field") || !strings.Contains(got, "y or n answers, then the review") {
				t.Fatalf("%dx%d: the only yes/no field does not say what y/n does:\n%s", size[0], size[1], screen(m))
			}
			press(t, m, testkit.Key("n"))
			if got := screen(m); !strings.Contains(got, `"notify": false`) {
				t.Errorf("%dx%d: n did not answer and show the review:\n%s", size[0], size[1], got)
			}
		})
	}
}
