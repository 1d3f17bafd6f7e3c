package boundedfile

import (
	"errors"
	"strings"
	"testing"
)

func TestNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		name string
		data string
		s    Syntax
		ok   bool
	}{
		{"json at the cap", deep("[", "]", 10), JSON, true},
		{"json over the cap", deep("[", "]", 11), JSON, false},
		{"json objects", strings.Repeat(`{"a":`, 11) + "1" + strings.Repeat("}", 11), JSON, false},
		{"json siblings", strings.Repeat("[[]]", 1000), JSON, true},
		{"json brackets in strings", `{"a": "` + strings.Repeat("[", 50) + `\"` + `"}`, JSON, true},
		{"json brackets in comments", "// " + strings.Repeat("[", 50) + "\n/* " + strings.Repeat("{", 50) + " */ {}", JSON, true},
		{"json closers in a string do not hide depth", `[[[[[ "]]]]]]" [[[[[[`, JSON, false},
		{"json closers in a comment do not hide depth", "[[[[[ // ]]]]]]\n [[[[[[", JSON, false},
		{"unclosed", strings.Repeat("[", 11), JSON, false},
		{"stray closers do not give credit", strings.Repeat("]", 50) + strings.Repeat("[", 11), JSON, false},
		{"yaml flow", "a: " + deep("[", "]", 11), YAML, false},
		{"yaml quoted", "a: '" + strings.Repeat("[", 50) + "''s'\nb: \"" + strings.Repeat("{", 50) + "\"", YAML, true},
		{"yaml comment", "a: 1 # " + strings.Repeat("[", 50), YAML, true},
		{"yaml apostrophe in a plain scalar", "a: don't\nb: " + deep("[", "]", 11), YAML, false},
		{"toml strings", "a = \"[[[[[[[[[[[[\"\nb = '{{{{{{{{{{{{'\nc = \"\"\"\n[[[[[[[[[[[[\"\"\"\nd = '''[[[[[[[[[[[['''", TOML, true},
		{"toml comment", "# [[[[[[[[[[[[\n[a]\nb = [1]", TOML, true},
		{"toml arrays", "a = " + deep("[", "]", 11), TOML, false},
		{"toml unterminated string ends at the line", "a = \"x\nb = " + deep("[", "]", 11), TOML, false},
	} {
		err := Nesting("f", []byte(tc.data), tc.s, 10)
		if tc.ok && err != nil {
			t.Errorf("%s: %v, want no error", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrTooDeep) {
			t.Errorf("%s: %v, want ErrTooDeep", tc.name, err)
		}
	}
}

func TestNestingTenMegabytes(t *testing.T) {
	data := []byte(strings.Repeat("[", 10<<20))
	err := Nesting("deep.json", data, JSON, 0)
	if !errors.Is(err, ErrTooDeep) || err.Error() != "deep.json:1: arrays or objects nest more than 1000 levels deep" {
		t.Errorf("Nesting = %v", err)
	}
}
