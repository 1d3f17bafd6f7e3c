package testkit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// keyNames are the keys Key accepts by name between angle brackets.
var keyNames = map[string]rune{
	"enter":     tea.KeyEnter,
	"tab":       tea.KeyTab,
	"esc":       tea.KeyEscape,
	"space":     tea.KeySpace,
	"up":        tea.KeyUp,
	"down":      tea.KeyDown,
	"left":      tea.KeyLeft,
	"right":     tea.KeyRight,
	"backspace": tea.KeyBackspace,
	"pgup":      tea.KeyPgUp,
	"pgdown":    tea.KeyPgDown,
	"home":      tea.KeyHome,
	"end":       tea.KeyEnd,
}

// Key is the key press s describes, as a user would type it: one character ("a", "é",
// " "), or a key name between angle brackets with optional modifiers, "<enter>",
// "<shift+tab>", "<ctrl+x>". It panics on anything else, a mistake in the test.
func Key(s string) tea.KeyPressMsg {
	if utf8.RuneCountInString(s) == 1 {
		r, _ := utf8.DecodeRuneInString(s)
		return tea.KeyPressMsg{Code: r, Text: s}
	}
	name, open := strings.CutPrefix(s, "<")
	name, closed := strings.CutSuffix(name, ">")
	if !open || !closed || name == "" {
		panic(fmt.Sprintf("testkit.Key: %q is neither one character nor <name>", s))
	}
	var k tea.KeyPressMsg
	for {
		mod, rest, found := strings.Cut(name, "+")
		if !found || rest == "" {
			break
		}
		switch mod {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "shift":
			k.Mod |= tea.ModShift
		case "alt":
			k.Mod |= tea.ModAlt
		default:
			panic(fmt.Sprintf("testkit.Key: unknown modifier %q in %q", mod, s))
		}
		name = rest
	}
	if code, ok := keyNames[name]; ok {
		k.Code = code
		if code == tea.KeySpace && k.Mod == 0 {
			k.Text = " "
		}
		return k
	}
	if utf8.RuneCountInString(name) == 1 && k.Mod != 0 {
		k.Code, _ = utf8.DecodeRuneInString(name)
		return k
	}
	panic(fmt.Sprintf("testkit.Key: unknown key %q", s))
}
