package repocheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit"
)

// TestMain runs the checks from the repository's root, where the paths they read
// (README.md, docs/, every package) are written relative to.
func TestMain(m *testing.M) {
	root, err := testkit.ModuleRoot()
	if err == nil {
		err = os.Chdir(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
