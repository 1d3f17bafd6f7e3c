package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionFlag checks both ways a binary gets its version: the plain build of
// TestMain (go build / go install: build info) and a release-style build with the
// ldflags goreleaser passes.
func TestVersionFlag(t *testing.T) {
	r := runBin(t, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "elicitty version ") {
		t.Fatalf("plain build --version = %d %q %q", r.code, r.stdout, r.stderr)
	}
	release := filepath.Join(t.TempDir(), "elicitty")
	ldflags := "-X " + cliPkg + ".version=3.1.4 -X " + cliPkg + ".commit=deadbeefcafe -X " + cliPkg + ".date=2026-07-28T12:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", release, modulePath).CombinedOutput(); err != nil {
		t.Fatalf("release build: %v\n%s", err, out)
	}
	out, err := exec.Command(release, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "elicitty version 3.1.4 (commit deadbeefcafe, built 2026-07-28T12:00:00Z)\n"; string(out) != want {
		t.Errorf("release build --version = %q, want %q", out, want)
	}
}
