package urlsafe

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// scriptNames is unicode.Scripts' keys, sorted, without Common and Inherited; built
// on first use (a URL with a letter beyond ASCII), not while every command starts.
var scriptNames = sync.OnceValue(func() []string {
	var names []string
	for n := range unicode.Scripts {
		if n != "Common" && n != "Inherited" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
})

// labelScripts returns the scripts of the letters in a host label, sorted.
func labelScripts(label string) []string {
	var out []string
	for _, r := range label {
		if r < 0x80 {
			if 'a' <= r && r <= 'z' && !slices.Contains(out, "Latin") {
				out = append(out, "Latin")
			}
			continue
		}
		for _, n := range scriptNames() {
			if unicode.Is(unicode.Scripts[n], r) {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// allowedMixes are script sets that legitimately share a label (as in Chrome's
// "highly restrictive" IDN policy): Japanese, Chinese with Bopomofo, Korean, each with
// Latin.
var allowedMixes = [][]string{
	{"Han", "Hiragana", "Katakana", "Latin"},
	{"Bopomofo", "Han", "Latin"},
	{"Han", "Hangul", "Latin"},
}

// mixedScripts reports whether a label's scripts are a suspicious mix.
func mixedScripts(scripts []string) bool {
	if len(scripts) < 2 {
		return false
	}
	for _, mix := range allowedMixes {
		ok := true
		for _, s := range scripts {
			if !slices.Contains(mix, s) {
				ok = false
				break
			}
		}
		if ok {
			return false
		}
	}
	return true
}

// confusables maps letters of other scripts to the Latin letter they look like
// (a small subset of Unicode's confusables.txt: Cyrillic, Greek, Armenian).
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k',
	'ӏ': 'l', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'ԝ': 'w', 'х': 'x', 'у': 'y',
	'ү': 'y', 'ɡ': 'g', 'ԍ': 'g', 'ь': 'b', 'п': 'n', 'г': 'r', 'ѵ': 'v',
	// Greek
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'γ': 'y', 'ε': 'e', 'η': 'n', 'ω': 'w',
	// Armenian
	'օ': 'o', 'հ': 'h', 'ո': 'n', 'ս': 'u', 'ց': 'g', 'զ': 'q', 'ա': 'w',
}

// skeleton maps a label's letters to the Latin letters they look like; ok reports that
// at least one letter was mapped.
func skeleton(label string) (string, bool) {
	var b strings.Builder
	mapped := false
	for _, r := range label {
		if l, ok := confusables[r]; ok {
			b.WriteRune(l)
			mapped = true
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), mapped
}
