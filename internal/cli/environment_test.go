package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/elicitty/elicitty/internal/testkit"
)

// TestHelpEnvironmentIsComplete reads every Go file compiled into the binary and
// checks that each environment variable it names in a Getenv/LookupEnv call (or a
// getenv function passed around) is listed by `elicitty help environment`.
func TestHelpEnvironmentIsComplete(t *testing.T) {
	// The module's packages that the binary compiles in, read without the go command.
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := testkit.ModulePackages(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`(?i)(?:getenv|lookupenv)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"`)
	prefixed := regexp.MustCompile(`"(ELICITTY_[A-Z0-9_]*)"`)
	listed := map[string]bool{}
	for _, g := range environment {
		for _, v := range g.vars {
			listed[v.name] = true
		}
	}
	var files int
	missing := map[string]string{}
	for _, p := range pkgs {
		for _, f := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			files++
			var names []string
			for _, m := range call.FindAllStringSubmatch(string(src), -1) {
				names = append(names, m[1])
			}
			for _, m := range prefixed.FindAllStringSubmatch(string(src), -1) {
				name := m[1]
				if strings.HasSuffix(name, "_") { // a prefix such as ELICITTY_INPUT_
					name += "<ID>"
				}
				names = append(names, name)
			}
			for _, n := range names {
				if !listed[n] {
					missing[n] = f
				}
			}
		}
	}
	if files < 50 {
		t.Fatalf("scanned only %d files", files)
	}
	if len(missing) > 0 {
		t.Errorf("read but not in `elicitty help environment` (environment.go): %v", missing)
	}
	help := runCLI(t, "help", "environment")
	if help.code != 0 {
		t.Fatalf("help environment: exit %d\n%s", help.code, help.stderr)
	}
	for n := range listed {
		if !strings.Contains(help.stdout, n) {
			t.Errorf("help environment does not show %s", n)
		}
	}
}

func TestColourFromEnvironment(t *testing.T) {
	// Not a terminal: only CLICOLOR_FORCE gives colour, and NO_COLOR still wins.
	var buf strings.Builder
	tests := []struct {
		env  []string
		want colorprofile.Profile
	}{
		{[]string{"TERM=xterm-256color"}, colorprofile.NoTTY},
		{[]string{"TERM=xterm-256color", "CLICOLOR_FORCE=1"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "CLICOLOR_FORCE=1", "NO_COLOR=yes"}, colorprofile.ASCII},
		{[]string{"TERM=xterm-256color", "CLICOLOR_FORCE=1", "CLICOLOR=0"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "CLICOLOR_FORCE=1", "COLORTERM=truecolor"}, colorprofile.TrueColor},
		{[]string{"TERM=dumb"}, colorprofile.NoTTY},
	}
	for _, tt := range tests {
		if got := detectProfile(&buf, &buf, tt.env); got != tt.want {
			t.Errorf("profile with %v = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// TestUIProfileIsTheTerminals: the terminal UI's renderer gets the profile the run
// detected for its output, as the program would detect it itself (NO_COLOR and
// CLICOLOR=0 are applied by the styles, not by the renderer's profile).
func TestUIProfileIsTheTerminals(t *testing.T) {
	for _, env := range [][2]string{{"CLICOLOR_FORCE", "1"}, {"NO_COLOR", "yes"}, {"CLICOLOR", "0"}, {"COLORTERM", "truecolor"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv("TERM", "xterm-256color")
			t.Setenv("CLICOLOR_FORCE", "1")
			t.Setenv(env[0], env[1])
			var out, errOut strings.Builder
			a := newApp(strings.NewReader(""), &out, &errOut)
			got := a.uiProfile()
			if want := colorprofile.Detect(&out, os.Environ()); got == nil || *got != want {
				t.Errorf("uiProfile = %v, want %v (what the program detects for its output)", got, want)
			}
		})
	}
}

// TestTermDumbIsAccessible: TERM=dumb switches to accessible line prompts.
func TestTermDumbIsAccessible(t *testing.T) {
	t.Setenv("TERM", "dumb")
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.applyEnvironment()
	if !a.accessible || !a.noColor() {
		t.Errorf("TERM=dumb: accessible=%v noColor=%v; want both", a.accessible, a.noColor())
	}
}
