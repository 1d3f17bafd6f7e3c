package repocheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayersImportNoUI keeps the engine layers free of terminal UI libraries: config,
// transport, elicit and proxy (with their sub-packages) must not depend, even indirectly, on
// bubbletea, huh, lipgloss or any other Charm module, and neither may skills, tree,
// protocol, the conformance client, internal/safe, internal/boundedfile, internal/jsonrpcio
// or internal/process. UI code lives under tui/ (see docs/architecture.md, "Import rules").
func TestLayersImportNoUI(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`,
		"./config/...", "./transport/...", "./elicit/...", "./proxy/...", "./skills/...", "./tree/...", "./protocol/...", "./internal/conformance/...", "./internal/safe/...", "./internal/boundedfile/...", "./internal/jsonrpcio/...", "./internal/process/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(pkgs) < 4 {
		t.Fatalf("go list named %d packages, want config, transport, elicit and proxy at least", len(pkgs))
	}
	for _, line := range pkgs {
		fields := strings.Fields(line)
		for _, dep := range fields[1:] {
			if uiModule(dep) {
				t.Errorf("%s depends on %s; UI code belongs under tui/", fields[0], dep)
			}
		}
	}
}

// uiModule reports import paths of terminal UI libraries and of our own UI packages.
func uiModule(path string) bool {
	for _, p := range []string{"charm.land/", "github.com/charmbracelet/", "github.com/elicitty/elicitty/tui"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

func TestUIModule(t *testing.T) {
	for path, want := range map[string]bool{
		"charm.land/lipgloss/v2":                   true,
		"github.com/charmbracelet/x/ansi":          true,
		"github.com/elicitty/elicitty/tui/consent": true,
		"github.com/elicitty/elicitty/elicit":      false,
		"golang.org/x/text/unicode/norm":           false,
	} {
		if got := uiModule(path); got != want {
			t.Errorf("uiModule(%q) = %v, want %v", path, got, want)
		}
	}
}
