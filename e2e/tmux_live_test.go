package e2e

import (
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
	"github.com/elicitty/elicitty/transport"
)

// TestTmuxTUIRootsScreen opens the roots screen of the built-in demo in a real
// terminal, adds a root, and calls the demo's list_roots, which asks elicitty for its
// roots again: the working directory and the added one.
func TestTmuxTUIRootsScreen(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{Cols: 120, Rows: 24}, "demo") // wide enough for the temporary directory's URI
	tm.WaitFor("demo ready", "form_all_kinds")
	wd, err := transport.RootURI(tm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	tm.Keys("o")
	tm.WaitFor("Roots of demo", wd, "a add")
	tm.Keys("a")
	tm.WaitFor("directory:")
	tm.TypeText("/srv/extra")
	tm.WaitFor("directory: /srv/extra")
	tm.Keys("Enter")
	tm.WaitFor("extra        file:///srv/extra", "notifications/roots/list_changed sent")
	tm.Keys("o") // o again closes it (esc too)
	tm.WaitFor("form_all_kinds")
	selectTool(t, tm, "list_roots")
	tm.Keys("Enter") // read-only: it runs at once
	tm.WaitFor("tools/call list_roots · done", wd, "file:///srv/extra")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty demo exited %d after q, want 0", code)
	}
}
