package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// completions runs the shell-completion entry point cobra gives every program (what
// the bash, zsh, fish and PowerShell scripts call on Tab) and returns the candidates.
func completions(t *testing.T, cfg string, args ...string) []string {
	t.Helper()
	argv := append([]string{"__complete"}, args[:len(args)-1]...)
	argv = append(argv, "--config", cfg, "--no-imports", args[len(args)-1])
	r := runBin(t, nil, argv...)
	if r.code != 0 {
		t.Fatalf("__complete %v: exit %d\n%s", args, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("__complete %v: no directive line in %q", args, r.stdout)
	}
	if d := lines[len(lines)-1]; d != ":4" { // ShellCompDirectiveNoFileComp
		t.Errorf("__complete %v: directive %s, want :4 (no file completion)", args, d)
	}
	return lines[:len(lines)-1]
}

func TestCompletion(t *testing.T) {
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`servers:
  local:
    command: %q
    args: [serve-demo]
  deploy-bot:
    url: http://127.0.0.1:9/mcp
`, bin))
	tests := []struct {
		name string
		args []string
		want []string // exactly these, in order
		has  []string // at least these
	}{
		{name: "call TARGET", args: []string{"call", ""}, want: []string{"deploy-bot", "local", "demo"}}, // configured, then built-in
		{name: "TARGET prefix", args: []string{"tools", "deploy"}, want: []string{"deploy-bot"}},
		{name: "root TARGET...", args: []string{"local", "l"}, want: []string{"local"}},
		{name: "call TOOL", args: []string{"call", "local", ""}, has: []string{"add", "deploy", "form_all_kinds", "link_account"}},
		{name: "TOOL prefix", args: []string{"call", "local", "form_a"}, want: []string{"form_all_kinds"}},
		{name: "prompt NAME", args: []string{"prompt", "local", ""}, has: []string{"greet"}},
		{name: "unreachable server: nothing", args: []string{"call", "deploy-bot", ""}, want: []string{}},
		{name: "after TOOL: nothing", args: []string{"call", "local", "add", ""}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := completions(t, cfg, tt.args...)
			if len(got) == 1 && got[0] == "" {
				got = []string{}
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("completions of %q = %q, want %q", tt.args, got, tt.want)
			}
			for _, h := range tt.has {
				if !slices.Contains(got, h) {
					t.Errorf("completions of %q = %q, want %q among them", tt.args, got, h)
				}
			}
		})
	}
}

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
	if r := runBin(t, nil, "man", dir); r.code != 0 {
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
