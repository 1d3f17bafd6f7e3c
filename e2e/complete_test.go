package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
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
