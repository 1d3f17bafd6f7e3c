package keymap

import (
	"reflect"
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func press(s string) tea.KeyPressMsg {
	switch s {
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

func TestEitherMatchesEveryKey(t *testing.T) {
	m := Default()
	cancel := Either(m.Cancel, m.Interrupt)
	for _, k := range []string{"esc", "ctrl+c"} {
		if !key.Matches(press(k), cancel) {
			t.Errorf("Either(Cancel, Interrupt) does not match %s", k)
		}
	}
	if key.Matches(press("q"), cancel) {
		t.Error("Either(Cancel, Interrupt) matches q")
	}
	if h := Either(m.Cancel, m.Interrupt).Help(); h.Key != "esc" {
		t.Errorf("Either's help is %q, want the first binding's (esc)", h.Key)
	}
	copyC := Plus(m.Copy, "c")
	if !key.Matches(press("c"), copyC) || !key.Matches(press("y"), copyC) {
		t.Errorf("Plus(Copy, c) keys %v, want y and c", copyC.Keys())
	}
	if got := m.Copy.Keys(); !slices.Equal(got, []string{"y"}) {
		t.Errorf("Plus changed Copy: %v", got)
	}
}

func TestDefaultBindsEveryField(t *testing.T) {
	v := reflect.ValueOf(Default())
	for i := range v.NumField() {
		if b := v.Field(i).Interface().(key.Binding); len(b.Keys()) == 0 || !b.Enabled() {
			t.Errorf("%s has no keys", v.Type().Field(i).Name)
		}
	}
}
