package testkit

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestKey(t *testing.T) {
	for s, want := range map[string]tea.KeyPressMsg{
		"a":            {Code: 'a', Text: "a"},
		"é":            {Code: 'é', Text: "é"},
		" ":            {Code: ' ', Text: " "},
		"<space>":      {Code: tea.KeySpace, Text: " "},
		"<enter>":      {Code: tea.KeyEnter},
		"<esc>":        {Code: tea.KeyEscape},
		"<shift+tab>":  {Code: tea.KeyTab, Mod: tea.ModShift},
		"<ctrl+x>":     {Code: 'x', Mod: tea.ModCtrl},
		"<ctrl+alt+b>": {Code: 'b', Mod: tea.ModCtrl | tea.ModAlt},
		"<pgdown>":     {Code: tea.KeyPgDown},
	} {
		if got := Key(s); got != want {
			t.Errorf("Key(%q) = %+v, want %+v", s, got, want)
		}
	}
	if got := Key("<ctrl+x>").String(); got != "ctrl+x" {
		t.Errorf("Key(<ctrl+x>) reads as %q, want ctrl+x", got)
	}
	for _, bad := range []string{"", "ab", "ab>", "<ab", "<>", "<nope>", "<hyper+x>", "<ctrl+nope>"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Key(%q) did not panic", bad)
				}
			}()
			Key(bad)
		}()
	}
}

func TestGolden(t *testing.T) {
	Golden(t, "example", "line one\n\tline two\n")
}
