package e2e

import (
	"testing"

	"github.com/elicitty/elicitty/transport"
)

// TestTmuxTUIRootsScreen opens the roots screen of the built-in demo in a real
// terminal, adds a root, and calls the demo's list_roots, which asks elicitty for its
// roots again: the working directory and the added one.
func TestTmuxTUIRootsScreen(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, termOptions{cols: 120, rows: 24}, "demo") // wide enough for the temporary directory's URI
	tm.waitFor("demo ready", "form_all_kinds")
	wd, err := transport.RootURI(tm.dir)
	if err != nil {
		t.Fatal(err)
	}
	tm.keys("o")
	tm.waitFor("Roots of demo", wd, "a: add")
	tm.keys("a")
	tm.waitFor("directory:")
	tm.typeText("/srv/extra")
	tm.waitFor("directory: /srv/extra")
	tm.keys("Enter")
	tm.waitFor("extra        file:///srv/extra", "notifications/roots/list_changed sent")
	tm.keys("o") // o again closes it (esc too)
	tm.waitFor("form_all_kinds")
	selectTool(t, tm, "list_roots")
	tm.keys("Enter")
	tm.waitFor("tools/call list_roots · done", wd, "file:///srv/extra")
	tm.keys("q")
	if code, _ := tm.wait(); code != 0 {
		t.Errorf("elicitty demo exited %d after q, want 0", code)
	}
}
