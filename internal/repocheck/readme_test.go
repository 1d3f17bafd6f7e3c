package repocheck

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeShowsCurrentUI keeps the README's text capture of the UI identical to the
// golden file the TUI tests compare against.
func TestReadmeShowsCurrentUI(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("tui/testdata/real_url_consent.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```text\n"+string(golden)+"```") {
		t.Error("README.md's UI capture differs from tui/testdata/real_url_consent.golden; copy the golden into the README")
	}
	first := strings.SplitN(string(readme), "## ", 2)[0]
	for _, cmd := range []string{"go run . demo", "./scripts/test.sh"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("the README's first screen lacks %q", cmd)
		}
	}
	if !strings.Contains(first, "go install github.com/elicitty/elicitty@latest") {
		t.Error("the README's first screen lacks the go install command")
	}
}
