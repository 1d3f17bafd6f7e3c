package form

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestReviewShowsLongStringsInFull: the review promises the exact JSON, so a string
// longer than the screen is wrapped, not cut.
func TestReviewShowsLongStringsInFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`), "2025-11-25")
		long := strings.Repeat("abcdefghij", 12) + "THE-END"
		m := newModel(t, request("Say it"), f, 60, 15)
		typeText(t, m, long)
		press(t, m, testkit.Key("<enter>"))
		got := screen(m)
		testkit.Golden(t, "review_long_string", got)
		if strings.Contains(got, "…") {
			t.Errorf("review cuts a string:\n%s", got)
		}
		var joined strings.Builder
		for _, l := range strings.Split(got, "\n") {
			joined.WriteString(strings.TrimSpace(l))
		}
		if !strings.Contains(joined.String(), long) {
			t.Errorf("review does not show the whole string:\n%s", got)
		}
	})
}
