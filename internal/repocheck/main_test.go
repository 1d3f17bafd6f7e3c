package repocheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain runs the checks from the repository's root, where the paths they read
// (README.md, docs/, every package) are written relative to.
func TestMain(m *testing.M) {
	root, err := repoRoot()
	if err == nil {
		err = os.Chdir(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// repoRoot is the nearest folder at or above the working directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
