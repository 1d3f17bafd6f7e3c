package urlsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PartKind tells what a piece of a displayed URL is.
type PartKind int

// The pieces of a URL a screen highlights.
const (
	// PartPlain is anything but the host: scheme, port, path, query, fragment.
	PartPlain PartKind = iota
	// PartUserinfo is the text before "@" in the authority, including the "@".
	PartUserinfo
	// PartHost is the host, less its registrable part.
	PartHost
	// PartRegistrable is the registrable part of the host (eTLD+1), or the whole
	// host when it has none (IP literals, localhost).
	PartRegistrable
)

// Part is a piece of the escaped URL; the texts of Parts concatenate to Display.
type Part struct {
	Text string
	Kind PartKind
}

// splitParts cuts raw at the authority's userinfo and host and escapes each piece.
func splitParts(raw string, hostStart, hostEnd, authStart int, a *Analysis) []Part {
	var ps []Part
	add := func(s string, k PartKind) {
		if s != "" {
			ps = append(ps, Part{Text: Escape(s), Kind: k})
		}
	}
	userStart := hostStart
	if a.Userinfo != "" || hostStart > authStart {
		userStart = authStart
	}
	add(raw[:userStart], PartPlain)
	add(raw[userStart:hostStart], PartUserinfo)
	host := raw[hostStart:hostEnd]
	// The registrable part is the last labels of the host as written, when the written
	// host has as many labels as its display form.
	split := 0
	if a.Registrable != "" && !strings.Contains(host, "%") {
		written := strings.Split(strings.TrimSuffix(host, "."), ".")
		n := strings.Count(a.Registrable, ".") + 1
		if len(written) == strings.Count(a.Host, ".")+1 && len(written) >= n {
			split = len(strings.Join(written[:len(written)-n], "."))
			if split > 0 {
				split++ // the dot
			}
		}
	}
	if a.Registrable == "" || split == 0 && a.Registrable != a.Host {
		add(host, PartRegistrable)
	} else {
		add(host[:split], PartHost)
		add(host[split:], PartRegistrable)
	}
	add(raw[hostEnd:], PartPlain)
	return ps
}

// Escape returns s with characters that would be invisible, rewritten or harmful on a
// terminal shown as escapes: \t \n \r, \xHH for other control bytes and invalid UTF-8,
// \uHHHH for format characters (bidi overrides, zero-width joiners, soft hyphens) and
// non-ASCII spaces. Every other character is kept, so nothing of a URL is lost.
func Escape(s string) string {
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsEscape reports runes that a terminal would not show faithfully.
func needsEscape(r rune) bool {
	if 0x20 <= r && r < 0x7f {
		return false
	}
	switch {
	case r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0:
		return true
	case r == ' ':
		return false
	case unicode.IsSpace(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true
	case unicode.Is(unicode.Variation_Selector, r), r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}
