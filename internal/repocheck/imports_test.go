package repocheck

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// importGroup is the group an import path belongs in: the standard library, then
// third-party modules, then elicitty's own packages.
func importGroup(path string) int {
	const local = "github.com/elicitty/elicitty"
	switch {
	case path == local || strings.HasPrefix(path, local+"/"):
		return 2
	case strings.Contains(strings.SplitN(path, "/", 2)[0], "."):
		return 1
	}
	return 0
}

// TestImportGroups fails when a Go file mixes the three import groups (standard library,
// third party, elicitty), puts them out of that order, or splits one group in two.
func TestImportGroups(t *testing.T) {
	names := [...]string{"the standard library", "third-party modules", "elicitty"}
	fset := token.NewFileSet()
	files := 0
	for _, dir := range packageDirs(t) {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			files++
			prevGroup, prevLine := -1, 0
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				g := importGroup(path)
				line := fset.Position(imp.Pos()).Line
				if imp.Doc != nil {
					line = fset.Position(imp.Doc.Pos()).Line
				}
				switch {
				case prevGroup < 0:
				case g < prevGroup:
					t.Errorf("%s: %s (%s) comes after an import of %s", p, path, names[g], names[prevGroup])
				case g == prevGroup && line > prevLine+1:
					t.Errorf("%s: %s splits the imports of %s in two groups", p, path, names[g])
				case g > prevGroup && line == prevLine+1:
					t.Errorf("%s: %s (%s) is in one group with %s; a blank line separates them", p, path, names[g], names[prevGroup])
				}
				prevGroup, prevLine = g, fset.Position(imp.End()).Line
			}
		}
	}
	if files < 100 {
		t.Fatalf("checked %d files; the walk is broken", files)
	}
}
