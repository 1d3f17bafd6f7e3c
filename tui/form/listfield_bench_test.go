package form

import "testing"

// BenchmarkListFilter is one search of every option of a 1,000,000-option list for a
// one-letter and a five-letter query.
func BenchmarkListFilter(b *testing.B) {
	f := bigEnum(1_000_000, false)
	a := newAnswer(f.Fields[0])
	l := newListField(a, "Pick", "", buildOptions{width: 80})
	for _, q := range []string{"e", "ho-99"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				l.setQuery(q)
				l.setQuery("")
			}
		})
	}
}
