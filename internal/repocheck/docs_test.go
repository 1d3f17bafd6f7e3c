package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocSectionsExist: every code comment that cites a section of docs/protocol.md or
// docs/architecture.md ("docs/protocol.md, "MRTR"") names a heading of that document.
func TestDocSectionsExist(t *testing.T) {
	headings := map[string]map[string]bool{}
	for _, doc := range []string{"docs/protocol.md", "docs/architecture.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		headings[doc] = map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if h, ok := strings.CutPrefix(l, "## "); ok {
				headings[doc][h] = true
			}
		}
	}
	cite := regexp.MustCompile(`(docs/(?:protocol|architecture)\.md), "([^"]+)"`)
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || path == "docs_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
			n++
			if !headings[m[1]][m[2]] {
				t.Errorf("%s cites %s, %q, which has no such section", path, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no code comment cites docs/; the pattern is out of date")
	}
}
