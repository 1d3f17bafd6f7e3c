package testkit

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// Golden compares got with testdata/name.golden, the way golden.RequireEqual does
// (control characters escaped, a unified diff on mismatch, the test stopped), and
// rewrites the file when the test runs with -update. The name, not the test's, names
// the file, so a test may check several screens.
func Golden(tb testing.TB, name, got string) {
	tb.Helper()
	golden.RequireEqual(named{tb, name}, got)
}

// named is tb under another name: golden.RequireEqual names the file after Name.
type named struct {
	testing.TB
	name string
}

func (n named) Name() string { return n.name }
