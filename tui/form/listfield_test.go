package form

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// formProgram runs a Model as a whole bubbletea program, for teatest.
type formProgram struct{ m *Model }

type screenMsg struct{ reply chan string }

func (p formProgram) Init() tea.Cmd { return p.m.Init() }

func (p formProgram) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case screenMsg:
		msg.reply <- screen(p.m)
		return p, nil
	case tea.WindowSizeMsg:
		p.m.SetSize(msg.Width, msg.Height)
		return p, nil
	}
	cmd := p.m.Update(msg)
	if _, done := p.m.Done(); done {
		return p, tea.Quit
	}
	return p, cmd
}

func (p formProgram) View() tea.View { return tea.NewView(p.m.View()) }

// waitFor waits until the program's screen contains want and returns it.
func waitFor(t *testing.T, tm *teatest.TestModel, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		reply := make(chan string, 1)
		tm.Send(screenMsg{reply})
		select {
		case last = <-reply:
			if strings.Contains(last, want) {
				return last
			}
		case <-time.After(time.Second):
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("screen never showed %q:\n%s", want, last)
	return ""
}

// TestBigEnumProgramFiltered runs a 1,000,000-option choice in a real program at
// 80x24: the form appears at once with ten rows, a typed filter narrows the list, and
// the picked option is what the review step would send.
func TestBigEnumProgramFiltered(t *testing.T) {
	m := NewModel(request("Pick a record"), bigEnum(1_000_000, false), Options{NoColor: true})
	tm := teatest.NewTestModel(t, formProgram{m}, teatest.WithInitialTermSize(80, 24))
	t.Cleanup(func() { _ = tm.Quit() })
	waitFor(t, tm, "1,000,000 options")
	for _, r := range "/HOTEL-4242" {
		tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	got := waitFor(t, tm, "of 1,000,000")
	testkit.Golden(t, "big_enum_filtered", got)
	tm.Send(testkit.Key("<down>"))
	tm.Send(testkit.Key("<enter>"))
	waitFor(t, tm, `"pick": "hotel-424207"`)
	tm.Send(testkit.Key("a"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(formProgram).m
	resp, done := fm.Done()
	want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"pick": "hotel-424207"}}
	if diff := cmp.Diff(want, resp); !done || diff != "" {
		t.Errorf("done %v, response (-want +got):\n%s", done, diff)
	}
}

func TestListFieldSelect(t *testing.T) {
	t.Run("an optional choice starts on its default and offers no answer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := bigEnum(5_000, false)
			f.Fields[0].Required = false
			f.Fields[0].Default = "golf-4996"
			m := newModel(t, request("Pick"), f, 80, 24)
			s := screen(m)
			if !strings.Contains(s, "> golf-4996") || strings.Count(s, "\n") > 23 {
				t.Fatalf("cursor not on the default, or too tall:\n%s", s)
			}
			press(t, m, testkit.Key("g")) // to the top
			if s := screen(m); !strings.Contains(s, "> (no answer)") {
				t.Fatalf("no \"(no answer)\" row at the top:\n%s", s)
			}
			press(t, m, testkit.Key("<enter>"))
			if c := m.review.content; c["pick"] != "golf-4996" {
				t.Errorf("content %v: no answer must leave the default to the merge", c)
			}
		})
	})
	t.Run("esc clears the filter before it cancels", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newModel(t, request("Pick"), bigEnum(1_000, false), 80, 24)
			typeText(t, m, "zzz")
			if s := screen(m); !strings.Contains(s, "no matches") || !strings.Contains(s, "0 of 1,000") {
				t.Fatalf("filter zzz:\n%s", s)
			}
			press(t, m, testkit.Key("<enter>")) // nothing to pick: stays
			if m.phase != phaseFill {
				t.Fatal("enter with no match left the field")
			}
			press(t, m, testkit.Key("<esc>"))
			if _, done := m.Done(); done {
				t.Fatal("esc while filtering cancelled the form")
			}
			if s := screen(m); !strings.Contains(s, "1,000 options · / to filter") {
				t.Fatalf("filter not cleared:\n%s", s)
			}
			press(t, m, testkit.Key("<esc>"))
			if resp, done := m.Done(); !done || resp.Action != elicit.Cancel {
				t.Errorf("second esc: %+v, done %v", resp, done)
			}
		})
	})
	t.Run("a longer filter narrows the matches and a shorter one widens them", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newModel(t, request("Pick"), bigEnum(1_000, false), 80, 24)
			for _, step := range []struct{ key, want string }{
				{"d", " 200 of 1,000"}, // delta and india
				{"e", " 100 of 1,000"}, // delta
				{"<backspace>", " 200 of 1,000"},
			} {
				press(t, m, testkit.Key(step.key))
				if s := screen(m); !strings.Contains(s, step.want) {
					t.Fatalf("after %s, want %q:\n%s", step.key, step.want, s)
				}
			}
		})
	})
}

func TestListFieldMulti(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := bigEnum(10_000, true)
		f.Fields[0].MaxItems = ptr(2)
		f.Fields[0].Default = []string{"bravo-1"}
		m := newModel(t, request("Pick some"), f, 80, 24)
		if s := screen(m); !strings.Contains(s, "1 picked") || !strings.Contains(s, "[•] bravo-1") {
			t.Fatalf("default not picked:\n%s", s)
		}
		typeText(t, m, "/echo-99")
		press(t, m, testkit.Key("<enter>")) // leaves the filter, keeps it
		press(t, m, testkit.Key("x"))       // echo-994
		press(t, m, testkit.Key("<down>"))
		press(t, m, testkit.Key("x")) // echo-9904: over the limit
		if s := screen(m); !strings.Contains(s, "11 of 10,000") || !strings.Contains(s, "2 picked") || !strings.Contains(s, "> [ ] echo-9904") {
			t.Fatalf("limit not kept:\n%s", s)
		}
		press(t, m, testkit.Key("<enter>"))
		want := map[string]any{"pick": []string{"bravo-1", "echo-994"}}
		if diff := cmp.Diff(want, m.review.content); diff != "" {
			t.Errorf("content (-want +got):\n%s", diff)
		}
	})
}

// bigEnumSchema is the JSON schema of bigEnum(n, multi) with enumNames labels.
func bigEnumSchema(n int, multi bool) string {
	var vals, names []string
	for i := range n {
		vals = append(vals, fmt.Sprintf("%q", fmt.Sprintf("v%d", i)))
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("Record %d", i)))
	}
	enum := `"enum":[` + strings.Join(vals, ",") + `],"enumNames":[` + strings.Join(names, ",") + `]`
	if multi {
		return `{"type":"object","properties":{"pick":{"type":"array","items":{"type":"string",` + enum + `},"minItems":1}},"required":["pick"]}`
	}
	return `{"type":"object","properties":{"pick":{"type":"string",` + enum + `}},"required":["pick"]}`
}

func TestListFieldAccessible(t *testing.T) {
	t.Run("search, then pick by number", func(t *testing.T) {
		// answer; search "record 4242" (case differs); a number out of range; 42421; accept
		resp, out, err := accessibleAnswer(t, bigEnumSchema(50_000, false), "\nrecord 4242\n99999\n42421\na\n")
		if err != nil {
			t.Fatal(err)
		}
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"pick": "v42420"}}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		for _, s := range []string{"type to search", "4243. Record 4242\n", "42421. Record 42420\n", "no option 99999"} {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q", s)
			}
		}
		if n := strings.Count(out, "\n"); n > 60 {
			t.Errorf("%d lines printed for a 50,000-option choice:\n%s", n, out)
		}
	})
	t.Run("multi: pick and unpick by number, enter ends", func(t *testing.T) {
		// answer; enter with nothing picked (minItems 1); 3, 5, 3 again (unpicked); done; accept
		resp, out, err := accessibleAnswer(t, bigEnumSchema(1_000, true), "\n\n3\n5\n3\n\na\n")
		if err != nil {
			t.Fatal(err)
		}
		want := elicit.Response{Action: elicit.Accept, Content: map[string]any{"pick": []string{"v4"}}}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("response (-want +got):\n%s\n%s", diff, out)
		}
		if !strings.Contains(out, "picked: v2, v4") {
			t.Errorf("picks not shown:\n%s", out)
		}
	})
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, needle string
		want      bool
	}{
		{"Hotel-42", "hotel", true},
		{"Hotel-42", "l-4", true},
		{"Hotel-42", "l-5", false},
		{"ab", "abc", false},
		{"", "", true},
		{"ÉCOLE Publique", "école", true},
		{"Straße", "STRASSE", false}, // simple folding only
		{"Ωmega", "ωm", true},
		{"Ωmega", "ωx", false},
	}
	for _, tt := range tests {
		if got := containsFold(tt.s, strings.ToLower(tt.needle)); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.needle, got, tt.want)
		}
	}
}

// TestListFieldSanitizes shows server labels and a typed filter without the control and
// bidi characters they carry, in the list and in the accessible prompt.
func TestListFieldSanitizes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := bigEnum(1_000, false)
		f.Fields[0].Options[0].Label = "evil\x1b[2J\x1b]52;c;aGk=\x07\u202eoption"
		m := newModel(t, request("Pick"), f, 80, 24)
		typeText(t, m, "/evil")
		v := m.View()
		if strings.Contains(v, "[2J") || strings.Contains(v, "]52;") || strings.Contains(v, "\u202e") {
			t.Errorf("raw control sequence on screen: %q", v)
		}
		if !strings.Contains(screen(m), "> evil") {
			t.Errorf("label not shown:\n%s", screen(m))
		}
	})
}

// TestListFieldBackgroundSearch: a filter over many options is searched in the
// background; the key is answered at once and a stale result never replaces a newer one.
func TestListFieldBackgroundSearch(t *testing.T) {
	f := bigEnum(asyncSearchMin*2, false)
	a := newAnswer(f.Fields[0])
	l := newListField(a, "Pick", "", buildOptions{width: 80})
	l.Focus()
	l.Update(testkit.Key("/"))
	_, first := l.Update(testkit.Key("k"))
	if !strings.Contains(l.View(), "searching…") {
		t.Fatalf("no search under way:\n%s", l.View())
	}
	_, second := l.Update(testkit.Key("<backspace>"))
	if second != nil {
		for _, msg := range flatten(second) {
			l.Update(msg)
		}
	}
	for _, msg := range flatten(first) { // the stale result of "k" arrives last
		l.Update(msg)
	}
	if v := l.View(); !strings.Contains(v, "200,000 options") || strings.Contains(v, "searching") {
		t.Errorf("a stale search replaced the cleared filter:\n%s", v)
	}
	_, cmd := l.Update(testkit.Key("4"))
	for _, msg := range flatten(cmd) {
		l.Update(msg)
	}
	if v := l.View(); !strings.Contains(v, "of 200,000") || a.choice != 4 {
		t.Errorf("choice %d after the search:\n%s", a.choice, v)
	}
}

// flatten runs cmd and returns the messages of the list field's searches it leads to
// (other messages, such as cursor blinks, are dropped).
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		if b, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, flatten(c)...)
			}
			return out
		}
		if _, ok := msg.(listFilteredMsg); ok {
			return []tea.Msg{msg}
		}
	case <-time.After(5 * time.Second): // a cursor blink ends well before
	}
	return nil
}
