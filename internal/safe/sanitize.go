package safe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Block returns s cleaned for display as one or more lines: ANSI CSI sequences, OSC
// (including OSC 8 links and OSC 52 clipboard writes), DCS, SOS, PM and APC strings and
// other escape sequences are removed with their payload; C0 and C1 controls except
// newline and tab, DEL, bidi overrides and isolates, and zero-width characters are
// dropped; a carriage return is dropped (CR LF becomes LF, a bare CR cannot overwrite a
// line); U+2028 and U+2029 become newlines. Invalid UTF-8 becomes U+FFFD. The result is
// stable: Block(Block(s)) == Block(s).
func Block(s string) string {
	if clean(s) {
		return s
	}
	return block(s, false)
}

// Field returns s cleaned as Block does for a one-line field (a MIME type, a name, a
// URI, a title): a line break a server put in it is shown escaped instead of breaking
// the line, so that it can neither start a line of its own nor hide that it was there.
// Newline, carriage return and tab become \n, \r and \t; U+2028 and U+2029 become
// \u2028 and \u2029. Everything else goes as in Block. The result is one line.
func Field(s string) string {
	if clean(s) && !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return block(s, true)
}

// block is Block; with field set, line breaks and tabs are written escaped (Field).
func block(s string, field bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x90 || r == 0x9d || r == 0x98 || r == 0x9e || r == 0x9f: // C1 DCS, OSC, SOS, PM, APC
			i = skipString(s, i+size)
			continue
		case field && (r == '\n' || r == '\r' || r == '\t' || r == 0x2028 || r == 0x2029):
			b.WriteString(fieldEscape(r))
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		case isControl(r) || isBidiControl(r) || isInvisible(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line returns s cleaned as Block does and folded onto one line: newlines, tabs and
// line separators become spaces, so a server cannot make its text look like several
// lines of ours where one is expected.
func Line(s string) string {
	s = Block(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}

// fieldEscape is how Field writes a line break or tab.
func fieldEscape(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// clean reports whether s needs no change (the common case, kept allocation-free).
func clean(s string) bool {
	for i := 0; i < len(s); i++ { // printable ASCII, the usual case, byte by byte
		if c := s[i]; c >= utf8.RuneSelf {
			return cleanRunes(s[i:])
		} else if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// cleanRunes is clean for s from its first non-ASCII byte.
func cleanRunes(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (isControl(r) && r != '\n' && r != '\t') || isBidiControl(r) || isInvisible(r) || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// isControl reports C0 and C1 controls and DEL.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// isBidiControl reports the explicit directional formatting characters that can make
// displayed text differ from its logical order (Trojan Source).
func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// isInvisible reports zero-width and other invisible format characters that can hide
// text or make two different strings look the same: zero-width space, non-joiner and
// joiner, word joiner and the invisible operators, the Mongolian vowel separator, the
// byte order mark and the interlinear annotation controls.
func isInvisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0x180e, r == 0xfeff, r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}

// Unsafe reports whether r is a character no output of elicitty may carry raw when it
// came from a server: a control other than newline and tab, a bidi control, an
// invisible character or a line separator. Tests scan outputs with it.
func Unsafe(r rune) bool {
	return (isControl(r) && r != '\n' && r != '\t') || isBidiControl(r) || isInvisible(r) || r == 0x2028 || r == 0x2029
}

// skipEscape skips the escape sequence whose ESC was just before i and returns the index
// after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20-0x2F then one final byte; Fp/Fe/Fs: one byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips CSI parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i // malformed: stop here, the rest is handled as text or controls
		}
	}
	return i
}

// skipString skips a control string (OSC, DCS, SOS, PM, APC) up to and including its
// terminator: BEL, ESC \ or C1 ST; an unterminated string runs to the end.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // another sequence starts: end the string here
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}
