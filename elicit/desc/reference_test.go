package desc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceFixtures is opt-in: it reads a checkout of mcpdesc/mcpdesc-specification
// named by MCPDESC_SPEC_REPO and lints the elicitation fixtures of every snapshot
// (packages/validator/test/snapshots/<version>/fixtures/expected-{valid,invalid,warning}/
// elicitation-*), asserting only their outcome class. The fixtures are not vendored.
func TestReferenceFixtures(t *testing.T) {
	repo := os.Getenv("MCPDESC_SPEC_REPO")
	if repo == "" {
		t.Skip("MCPDESC_SPEC_REPO is not set")
	}
	pattern := filepath.Join(repo, "packages", "validator", "test", "snapshots", "*", "fixtures", "expected-*", "elicitation-*")
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures match %s", pattern)
	}
	for _, file := range files {
		class := strings.TrimPrefix(filepath.Base(filepath.Dir(file)), "expected-")
		rel, _ := filepath.Rel(repo, file)
		t.Run(rel, func(t *testing.T) {
			rep, err := LintFile(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			errs, warns := rep.Counts()
			var got string
			switch {
			case errs > 0:
				got = "invalid"
			case warns > 0:
				got = "warning"
			default:
				got = "valid"
			}
			if got != class {
				t.Errorf("outcome %s, want %s:\n%s", got, class, wantLines(rep))
			}
		})
	}
}
