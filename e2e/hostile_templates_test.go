package e2e

import (
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestHostileCompletionsHeadless: a hostile server's completions and a read of its
// template print nothing raw, with and without --json.
func TestHostileCompletionsHeadless(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	for _, r := range []struct {
		args []string
		code int
	}{
		{[]string{"complete", "--resource", "hostile://items/{id}", "--arg", "id=1"}, 0},
		{[]string{"complete", "--resource", "hostile://items/{id}", "--arg", "id=1", "--json"}, 0},
		{[]string{"read", "hostile://items/{id}", "id=1"}, cli.ExitConn}, // its error quotes the payload
	} {
		m := runMeasured(t, dir, 60*time.Second, append(r.args, "--", srv, "payload")...)
		if m.code != r.code {
			t.Errorf("%v: exit %d, want %d\nstderr: %s", r.args, m.code, r.code, m.stderr)
		}
		scanRaw(t, "stdout", m.stdout)
		scanRaw(t, "stderr", m.stderr)
		if r.code == 0 && !hasLine(m.stdout, "ok") {
			t.Errorf("%v: the clean suggestion is missing:\n%s", r.args, m.stdout)
		}
	}
	noHostileLeft(t)
}

// TestTmuxHostileTemplate opens a hostile server's resource template in the TUI: its
// form, suggestions and detail view show nothing raw.
func TestTmuxHostileTemplate(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{}, "payload")
	tm.WaitFor("ready")
	tm.Keys("Tab", "Tab")
	tm.WaitFor("hostile://items/{id}")
	tm.Keys("/")
	tm.TypeText("hostile://")
	tm.Keys("Enter")
	tm.WaitFor("Resources: 1/")
	tm.Keys("Enter")
	tm.WaitFor("URI: hostile://items/", "    ok", "[ Read ]")
	scanTerm(t, tm, "template form with suggestions")
	tm.Keys("Escape")
	tm.WaitFor("enter read · ↑/↓ fields")
	tm.Keys("Escape")
	tm.WaitFor("Resources: 1/")
	tm.Keys("d")
	tm.WaitFor("Resource template hostile://items/{id}", "URI template")
	scanTerm(t, tm, "template detail")
	tm.Keys("Escape")
	tm.WaitFor("Resources: 1/")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}
