package consent

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit/urlsafe"
)

func TestLongURLKeptInFull(t *testing.T) {
	raw := "https://auth.example.com/authorize?" + strings.Repeat("state=abcdef0123456789&", 60) + "end=1"
	a := urlsafe.Analyze(raw, urlsafe.Policy{})
	if a.Refused || !a.Has(urlsafe.WarnLong) {
		t.Fatalf("long URL: refused=%v warnings=%v, want accepted with WarnLong", a.Refused, a.Warnings)
	}
	lines := renderURL(a, 37, urlStyles{})
	if got := strings.Join(lines, ""); got != raw {
		t.Errorf("rendered lines lose characters:\n got %q\nwant %q", got, raw)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 37 {
			t.Errorf("line %d is %d cells wide, want <= 37", i, w)
		}
	}
}

func TestRenderStylesHost(t *testing.T) {
	a := urlsafe.Analyze("https://auth.example.com/x", urlsafe.Policy{})
	mark := urlStyles{Host: lipgloss.NewStyle().Underline(true), Registrable: lipgloss.NewStyle().Bold(true)}
	lines := renderURL(a, 80, mark)
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want 1", len(lines))
	}
	if lines[0] == ansi.Strip(lines[0]) {
		t.Errorf("host not styled: %q", lines[0])
	}
	if got := ansi.Strip(lines[0]); got != a.Display {
		t.Errorf("stripped = %q, want %q", got, a.Display)
	}
	if got := ansi.Strip(hostLine(a, mark.Host, mark.Registrable)); got != "auth.example.com" {
		t.Errorf("hostLine = %q", got)
	}
}

// FuzzRenderURL: whatever the URL, the wrapped lines lose no character and fit the width.
func FuzzRenderURL(f *testing.F) {
	for _, s := range []string{"https://auth.example.com/link?s=abc", "https://good@evil/", "https://例え.テスト.jp/" + strings.Repeat("é", 20), "a\u202Eb\t\x1b"} {
		f.Add(s, 13)
	}
	f.Fuzz(func(t *testing.T, raw string, width int) {
		width = width%100 + 2
		if width < 2 {
			width += 100
		}
		a := urlsafe.Analyze(raw, urlsafe.Policy{})
		lines := renderURL(a, width, urlStyles{Host: lipgloss.NewStyle().Underline(true)})
		var b strings.Builder
		for _, l := range lines {
			s := ansi.Strip(l)
			if ansi.StringWidth(s) > width {
				t.Fatalf("line %q wider than %d", s, width)
			}
			b.WriteString(s)
		}
		if b.String() != a.Display {
			t.Fatalf("lines %q, want %q", b.String(), a.Display)
		}
	})
}
