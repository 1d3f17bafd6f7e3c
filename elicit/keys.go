package elicit

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/elicitty/elicitty/internal/safe"
)

// unknownKeys returns a violation for each key of an answers-file entry's content
// (named by entry) that form has no field for, naming the nearest field name; none
// when the form allows extra keys or cannot be validated. A misspelt key would
// otherwise be sent next to the default of the field it meant.
func unknownKeys(content map[string]any, form *Form, entry string) []Violation {
	if form == nil || form.Unvalidatable || form.ExtraKeys {
		return nil
	}
	names := make([]string, len(form.Fields))
	known := make(map[string]bool, len(form.Fields))
	for i, f := range form.Fields {
		names[i] = f.Name
		known[f.Name] = true
	}
	var keys []string
	for k := range content {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Violation
	for _, k := range keys {
		msg := fmt.Sprintf("%s: the schema has no field %q", entry, safe.Block(k))
		if near := nearestName(k, names); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", safe.Block(near))
		} else if len(names) > 0 {
			msg += fmt.Sprintf(" (fields: %s)", safe.Block(strings.Join(names, ", ")))
		} else {
			msg += " (it asks for no fields)"
		}
		out = append(out, Violation{Path: "/" + escapePointer(k), Keyword: "additionalProperties", Message: msg})
	}
	return out
}

// nearestName returns the name in names closest to key: one equal but for case first,
// else the one fewest edits away if that is at most a third of key's length (at least
// one edit); "" when none is near.
func nearestName(key string, names []string) string {
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return n
		}
	}
	best, bestD := "", max(1, utf8.RuneCountInString(key)/3)+1
	klen := utf8.RuneCountInString(key)
	for _, n := range names {
		if diff := utf8.RuneCountInString(n) - klen; diff >= bestD || -diff >= bestD {
			continue // at least that many edits apart
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in code points.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// NearestName returns the name in names closest to key, as answers files suggest a
// field for an unknown key: one equal but for case first, else the one fewest edits
// away if near enough; "" when none is near.
func NearestName(key string, names []string) string { return nearestName(key, names) }
