package safe

import "unicode/utf8"

// Cut returns s when it is at most n bytes long, and otherwise its first bytes up to n,
// ended at a rune boundary, followed by "…": a bound on server text of any length in a
// log line or an error. It cleans nothing; the caller's Line or Block does.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
