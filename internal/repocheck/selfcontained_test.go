package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRepositoryIsSelfContained fails when a script, Go file or document of the
// repository refers to a folder beside it (a fresh clone in an empty folder has none),
// or when a script runs a repository script that does not exist.
func TestRepositoryIsSelfContained(t *testing.T) {
	outside := regexp.MustCompile(`\.\./(shared|\.\.)|\$\(dirname "\$0"\)/\.\./\.\.`)
	scriptRef := regexp.MustCompile(`(?:bash |exec |\./)(scripts/[A-Za-z0-9_.-]+|\.ci/[A-Za-z0-9_.-]+)`)
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if path == filepath.Join("internal", "repocheck", "selfcontained_test.go") {
			return nil
		}
		ext := filepath.Ext(path)
		isScript := ext == ".sh" || strings.HasPrefix(path, ".ci"+string(filepath.Separator))
		if ext != ".go" && ext != ".md" && ext != ".yaml" && ext != ".yml" && !isScript {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d refers to a folder outside the repository: %s", path, i+1, strings.TrimSpace(line))
			}
			if !isScript {
				continue
			}
			for _, m := range scriptRef.FindAllStringSubmatch(line, -1) {
				if _, err := os.Stat(m[1]); err != nil {
					t.Errorf("%s:%d runs %s, which the repository does not have", path, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files checked; the walk missed the repository", checked)
	}
	for _, p := range []string{"scripts/test.sh", "scripts/setup.sh", "scripts/conformance.sh", ".ci/run"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the test command needs %s: %v", p, err)
		}
	}
}
