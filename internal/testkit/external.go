package testkit

import (
	"os/exec"
	"testing"
)

// External marks a test that runs the external program name (a shell, a script's
// interpreter, sleep): it skips under -short, whose tier runs no external program, and
// when name is not on PATH. It returns name's path.
func External(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("runs %s: full tier", name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not on PATH", name)
	}
	return p
}
