package form

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// sgr matches the only escape sequences a view may carry: colours and text attributes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// FuzzFormModelView feeds server-controlled text (message, titles, descriptions, option
// labels) into a form and checks what a user would see: no control sequence but colours,
// never taller or wider than the given size, and the actions always on the last line.
func FuzzFormModelView(f *testing.F) {
	f.Add("Pick one", "Title", "A description", "Label", uint8(80), uint8(24))
	f.Add("line\nline\nline\nline\nline\nline\nline\nline\nline\nline", "T", "", "", uint8(40), uint8(10))
	f.Add("\x1b[2J\x1b]0;pwned\x07hi", "\x1b[31mred", "\r\x08", "\x9b31m", uint8(20), uint8(5))
	f.Add(strings.Repeat("wide 世界 ", 40), strings.Repeat("x", 200), "d", "l", uint8(30), uint8(12))
	f.Fuzz(func(t *testing.T, msg, title, desc, label string, w, h uint8) {
		synctest.Test(t, func(t *testing.T) {
			form := &elicit.Form{
				Fields: []elicit.Field{
					{Name: "text", Title: title, Description: desc, Kind: elicit.KindText, Required: true},
					{Name: "pick", Title: title, Description: desc, Kind: elicit.KindSelect,
						Options: []elicit.Option{{Value: "a", Label: label}, {Value: "b", Label: label + "2"}}},
					{Name: "many", Title: title, Kind: elicit.KindMulti,
						Options: []elicit.Option{{Value: "a", Label: label}}},
				},
				Findings: []elicit.Finding{{Path: "/properties/x", Message: desc}},
			}
			width, height := max(int(w), 20), max(int(h), 10)
			m := NewModel(&elicit.Request{Server: title, Message: msg}, form, Options{Width: width, Height: height})
			run(t, m, m.Init())
			check := func(step string) {
				v := m.View()
				rest := sgr.ReplaceAllString(v, "")
				if !utf8.ValidString(rest) {
					t.Fatalf("%s: invalid UTF-8 in the view: %q", step, rest)
				}
				for _, r := range rest {
					if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
						t.Fatalf("%s: control character %U in the view: %q", step, r, rest)
					}
				}
				lines := strings.Split(ansi.Strip(v), "\n")
				if len(lines) > height {
					t.Fatalf("%s: view is %d lines, taller than %d:\n%s", step, len(lines), height, ansi.Strip(v))
				}
				for _, l := range lines {
					if ansi.StringWidth(l) > width {
						t.Fatalf("%s: line wider than %d: %q", step, width, l)
					}
				}
				if !strings.Contains(lines[len(lines)-1], "esc cancel") {
					t.Fatalf("%s: actions not on the last line %q", step, lines[len(lines)-1])
				}
			}
			check("start")
			typeText(t, m, "ok")
			press(t, m, testkit.Key("<enter>"))
			press(t, m, testkit.Key("<enter>"))
			press(t, m, testkit.Key("<enter>"))
			check("review")
		})
	})
}
