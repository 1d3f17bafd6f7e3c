package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModulePackagesFollowsOwnImports(t *testing.T) {
	root := moduleRoot(t)
	pkgs, err := ModulePackages(root, "internal/testkit")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pkgs {
		got = append(got, p.ImportPath)
	}
	// testkit imports no package of ours: it stands alone.
	if diff := cmp.Diff([]string{"github.com/elicitty/elicitty/internal/testkit"}, got); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
	pkgs, err = ModulePackages(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, p := range pkgs {
		paths[p.ImportPath] = true
	}
	for _, want := range []string{"github.com/elicitty/elicitty", "github.com/elicitty/elicitty/internal/cli", "github.com/elicitty/elicitty/transport"} {
		if !paths[want] {
			t.Errorf("the binary's packages lack %s", want)
		}
	}
	for _, not := range []string{"github.com/elicitty/elicitty/e2e", "github.com/elicitty/elicitty/internal/testkit"} {
		if paths[not] {
			t.Errorf("the binary's packages name %s, which only tests import", not)
		}
	}
}

// TestModulePackagesMatchesGoList compares ModulePackages with the go command's own
// answer, so it runs in the full tier only.
func TestModulePackagesMatchesGoList(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: full tier")
	}
	root := moduleRoot(t)
	for _, args := range [][]string{{"."}, {"./config/...", "./proxy/..."}} {
		cmd := exec.Command("go", append([]string{"list", "-deps", "-f", `{{if .Module}}{{if .Module.Main}}{{.ImportPath}}{{range .GoFiles}} {{.}}{{end}}{{end}}{{end}}`}, args...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		want := strings.Split(strings.TrimSpace(string(out)), "\n")
		pkgs, err := ModulePackages(root, args...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range pkgs {
			got = append(got, strings.Join(append([]string{p.ImportPath}, p.GoFiles...), " "))
		}
		if diff := cmp.Diff(sorted(want), got); diff != "" {
			t.Errorf("%v: packages and files (-go list +ModulePackages):\n%s", args, diff)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testkit", "modpkgs.go")); err != nil {
		t.Fatalf("ModuleRoot() = %s, not this module's root: %v", root, err)
	}
	return root
}
