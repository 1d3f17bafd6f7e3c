package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCompletable(t *testing.T) {
	for name, want := range map[string]bool{
		"form_all_kinds":         true,
		"tools/list":             true,
		"naïve-ünïcode":          true,
		"":                       false,
		"a b":                    false,
		"evil\x1b]52;c;x\a":      false,
		"rm\n-rf":                false,
		"abc\u202egnp.exe":       false, // bidi override
		"zero\u200bwidth":        false,
		"c1\u009bcsi":            false,
		strings.Repeat("x", 300): false,
	} {
		if got := completable(name); got != want {
			t.Errorf("completable(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestManPages checks that every command a user can run has a man page.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if r := runCLI(t, "man", dir); r.code != 0 {
		t.Fatalf("man: exit %d\n%s", r.code, r.stderr)
	}
	root := newApp(nil, nil, nil).rootCommand()
	pages := 0
	var missing []string
	for _, c := range allCommands(root) {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			missing = append(missing, name)
			continue
		}
		pages++
		if !strings.Contains(string(data), ".SH NAME") || !strings.Contains(string(data), ".SH SYNOPSIS") {
			t.Errorf("%s lacks NAME or SYNOPSIS", name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no man page for %v", missing)
	}
	if pages < 15 {
		t.Errorf("only %d man pages", pages)
	}
}

// allCommands returns c and every command below it.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}
