package safe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer line", 8, "a longer…"},
		{"héé", 2, "h…"}, // é is 2 bytes: never cut inside it
		{"héé", 3, "hé…"},
		{"日本語", 4, "日…"}, // 3-byte runes
		{"anything", 0, "…"},
		{"anything", -1, "…"},
	} {
		got := Cut(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q is not valid UTF-8", tc.s, tc.n, got)
		}
		if body := strings.TrimSuffix(got, "…"); len(body) > max(tc.n, 0) {
			t.Errorf("Cut(%q, %d) kept %d bytes", tc.s, tc.n, len(body))
		}
	}
}
