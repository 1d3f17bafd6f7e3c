package safe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBlock(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Deploy to prod?", "Deploy to prod?"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
		{"CSI cursor movement", "a\x1b[2J\x1b[1;1Hb", "ab"},
		{"OSC 8 link with BEL", "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "click"},
		{"OSC 52 clipboard with ST", "x\x1b]52;c;ZXZpbA==\x1b\\y", "xy"},
		{"OSC title", "\x1b]0;pwned\x07ok", "ok"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC", "a\x1b_payload\x1b\\b", "ab"},
		{"two-byte escape", "a\x1bcb\x1b(Bc", "abc"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC with C1 ST", "a\u009d0;t\u009cb", "ab"},
		{"C0 controls", "a\x00b\x07c\rd\x08e\x7f", "abcde"},
		{"bidi overrides", "abc\u202eevil\u202c \u2066x\u2069", "abcevil x"},
		{"invalid utf-8", "a\xffb", "a\ufffdb"},
		{"unterminated OSC eats the rest", "a\x1b]8;;http://x", "a"},
		{"lone ESC at end", "a\x1b", "a"},
		{"emoji and CJK kept", "✅ 部署", "✅ 部署"},
		{"zero-width characters", "a\u200bb\u200cc\u200dd\u2060e\ufeff", "abcde"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"CR LF and bare CR", "a\r\nb\rc", "a\nbc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Block(tt.in); got != tt.want {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzBlock(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]8;;u\x07l\x1b]8;;\x07", "\u009b1m", "\u202e", "a\xffb", "\x1bP\x1b\\", "\x1b", "\r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Block(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Block(%q) = %q is not valid UTF-8", s, got)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Fatalf("Block(%q) = %q keeps control %U", s, got, r)
			}
		}
		if line := Line(s); strings.ContainsAny(line, "\n\t") || Line(line) != line {
			t.Fatalf("Line(%q) = %q is not one stable line", s, line)
		}
		if again := Block(got); again != got {
			t.Fatalf("Sanitize is not idempotent: %q -> %q -> %q", s, got, again)
		}
		if utf8.RuneCountInString(got) > len(s) {
			t.Fatalf("Block(%q) grew to %q", s, got)
		}
		if utf8.ValidString(s) && !strings.Contains(got, "\ufffd") && len(got) > len(s) {
			t.Fatalf("Block(%q) grew to %q", s, got)
		}
	})
}
