package form

import (
	"fmt"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
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
	start := cpuTime()
	for b.Loop() {
		NewFormModel(req, f, FormOptions{Width: 80, Height: 24})
	}
	reportCPU(b, start)
}

// BenchmarkFirstFrame50 builds, lays out and renders the first frame of a 50-field
// schema at 80x24: what a user waits for before the form appears.
func BenchmarkFirstFrame50(b *testing.B) {
	f := fields50()
	req := request("Fifty fields")
	start := cpuTime()
	for b.Loop() {
		m := NewFormModel(req, f, FormOptions{Width: 80, Height: 24})
		m.Init()
		_ = m.View()
	}
	reportCPU(b, start)
}

// BenchmarkView50 renders the form of a 50-field schema at 80x24.
func BenchmarkView50(b *testing.B) {
	m := NewFormModel(request("Fifty fields"), fields50(), FormOptions{Width: 80, Height: 24})
	m.Init()
	start := cpuTime()
	for b.Loop() {
		_ = m.View()
	}
	reportCPU(b, start)
}

// reportCPU reports the CPU time per operation beside the wall time, which says more on
// a loaded machine.
func reportCPU(b *testing.B, start time.Duration) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
