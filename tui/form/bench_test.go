package form

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit/cputime"
)

// fields50 is a 50-field form cycling through every kind.
func fields50() *elicit.Form {
	kinds := everyKind().Fields
	f := &elicit.Form{}
	for i := range 50 {
		fld := kinds[i%len(kinds)]
		fld.Name = fmt.Sprintf("%s%d", fld.Name, i)
		f.Fields = append(f.Fields, fld)
	}
	return f
}

// BenchmarkBuild50 builds the huh form of a 50-field schema (the fields and the first
// page's huh form; layout waits for the first Init, Update or View).
func BenchmarkBuild50(b *testing.B) {
	f := fields50()
	req := request("Fifty fields")
	start := cputime.Now()
	for b.Loop() {
		NewModel(req, f, Options{Width: 80, Height: 24})
	}
	reportCPU(b, start)
}

// BenchmarkFirstFrame50 builds, lays out and renders the first frame of a 50-field
// schema at 80x24: what a user waits for before the form appears.
func BenchmarkFirstFrame50(b *testing.B) {
	f := fields50()
	req := request("Fifty fields")
	start := cputime.Now()
	for b.Loop() {
		m := NewModel(req, f, Options{Width: 80, Height: 24})
		m.Init()
		_ = m.View()
	}
	reportCPU(b, start)
}

// BenchmarkView50 renders the form of a 50-field schema at 80x24.
func BenchmarkView50(b *testing.B) {
	m := NewModel(request("Fifty fields"), fields50(), Options{Width: 80, Height: 24})
	m.Init()
	start := cputime.Now()
	for b.Loop() {
		_ = m.View()
	}
	reportCPU(b, start)
}

// reportCPU reports the CPU time per operation beside the wall time, which says more on
// a loaded machine.
func reportCPU(b *testing.B, start time.Duration) {
	if d := cputime.Now() - start; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// bigEnum is a form with one required single choice among n options (multi: a
// multi-select), labelled with words and numbers as a server listing records might.
func bigEnum(n int, multi bool) *elicit.Form {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"}
	opts := make([]elicit.Option, n)
	for i := range opts {
		v := fmt.Sprintf("%s-%d", words[i%len(words)], i)
		opts[i] = elicit.Option{Value: v, Label: v}
	}
	kind := elicit.KindSelect
	if multi {
		kind = elicit.KindMulti
	}
	return &elicit.Form{Fields: []elicit.Field{{Name: "pick", Title: "Pick one", Kind: kind, Required: true, Options: opts}}}
}

// BenchmarkBigEnumFirstFrame builds, lays out and renders the first frame of a form
// with one single choice among 1,000, 50,000 and 1,000,000 options at 80x24.
func BenchmarkBigEnumFirstFrame(b *testing.B) {
	for _, n := range []int{1_000, 50_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := bigEnum(n, false)
			req := request("Big enum")
			start := cputime.Now()
			for b.Loop() {
				m := NewModel(req, f, Options{Width: 80, Height: 24})
				m.Init()
				_ = m.View()
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkBigEnumKey is one key press and the frame after it on a form with one
// choice among 50,000 and 1,000,000 options: Down moves the cursor; "filter" types a
// letter into an empty filter and then deletes it (two keys, two frames). Below
// asyncSearchMin options the search is part of the key; above, the key is answered at
// once and the search runs in the background (BenchmarkListFilter).
func BenchmarkBigEnumKey(b *testing.B) {
	for _, multi := range []bool{false, true} {
		kind := "select"
		if multi {
			kind = "multi"
		}
		for _, n := range []int{50_000, 1_000_000} {
			f := bigEnum(n, multi)
			b.Run(fmt.Sprintf("%s/%d/down", kind, n), func(b *testing.B) {
				m := NewModel(request("Big enum"), f, Options{Width: 80, Height: 24})
				m.Init()
				_ = m.View()
				down := tea.KeyPressMsg{Code: tea.KeyDown}
				start := cputime.Now()
				for b.Loop() {
					m.Update(down)
					_ = m.View()
				}
				reportCPU(b, start)
			})
			b.Run(fmt.Sprintf("%s/%d/filter", kind, n), func(b *testing.B) {
				m := NewModel(request("Big enum"), f, Options{Width: 80, Height: 24})
				m.Init()
				m.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
				_ = m.View()
				letter := tea.KeyPressMsg{Code: 'e', Text: "e"}
				bs := tea.KeyPressMsg{Code: tea.KeyBackspace}
				start := cputime.Now()
				for b.Loop() {
					m.Update(letter)
					_ = m.View()
					m.Update(bs)
					_ = m.View()
				}
				reportCPU(b, start)
			})
		}
	}
}

// BenchmarkListFilter is one search of every option of a 1,000,000-option list for a
// one-letter and a five-letter query: the time from a first filter key to its matches
// on screen.
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
