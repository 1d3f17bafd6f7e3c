package repocheck

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit"
)

// engineLayers are the packages that must not depend on terminal UI code.
var engineLayers = []string{"./config/...", "./transport/...", "./elicit/...", "./proxy/...", "./skills/...", "./tree/...",
	"./protocol/...", "./internal/conformance/...", "./internal/safe/...", "./internal/boundedfile/...",
	"./internal/jsonrpcio/...", "./internal/process/..."}

// TestLayersImportNoUI keeps the engine layers free of terminal UI libraries: config,
// transport, elicit and proxy (with their sub-packages) must not depend, even indirectly, on
// bubbletea, huh, lipgloss or any other Charm module, and neither may skills, tree,
// protocol, the conformance client, internal/safe, internal/boundedfile, internal/jsonrpcio
// or internal/process. UI code lives under tui/ (see docs/architecture.md, "Import rules").
// It reads the sources (no go command), following our own packages' imports;
// TestLayersImportNoUIDeps, in the full tier, follows other modules' imports too.
func TestLayersImportNoUI(t *testing.T) {
	pkgs, err := testkit.ModulePackages(".", engineLayers...)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 4 {
		t.Fatalf("found %d packages, want config, transport, elicit and proxy at least", len(pkgs))
	}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if uiModule(imp) {
				t.Errorf("%s imports %s; UI code belongs under tui/", p.ImportPath, imp)
			}
		}
	}
}

// TestLayersImportNoUIDeps is TestLayersImportNoUI over every dependency, other modules'
// included, as the go command lists them; it runs the go command, so not under -short.
func TestLayersImportNoUIDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: full tier")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	out, err := exec.Command(goBin, append([]string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, engineLayers...)...).Output()
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
