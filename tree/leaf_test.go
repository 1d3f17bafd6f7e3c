package tree

import (
	"go/build"
	"strings"
	"testing"
)

// TestLeafPackage keeps package tree a leaf: it imports nothing of elicitty's, so
// every layer can use it.
func TestLeafPackage(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/elicitty/") {
			t.Errorf("package tree imports %s", imp)
		}
	}
}
