package config

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// installRoundTrips are the install fixtures: every host format, wraps and adds.
var installRoundTrips = []struct {
	fixture string
	host    Host
	name    string
	own     bool
	config  string
}{
	{"claude_desktop", HostClaudeDesktop, "weather", false, ""},
	{"claude_desktop_multiline", HostClaudeDesktop, "filesystem", false, ""},
	{"cursor_http", HostCursor, "shared", false, ""},
	{"cursor_inline", HostCursor, "linear", false, ""},
	{"vscode", HostVSCode, "perplexity", false, ""},
	{"vscode_add", HostVSCode, "demo", true, ""},
	{"vscode_headers", HostVSCode, "github", true, "/etc/elicitty.yaml"},
	{"claude_code", HostClaudeCode, "everything", false, ""},
	{"claude_code_add", HostClaudeCode, "demo", true, ""},
	{"windsurf", HostWindsurf, "figma", false, ""},
	{"gemini", HostGeminiCLI, "api", false, ""},
	{"gemini_trailing", HostGeminiCLI, "demo", true, ""},
	{"cursor_comments", HostCursor, "api", false, ""},
}

// TestUninstallRestoresTheFileByteForByte: install --write then uninstall --write
// gives back every host's file exactly as it was, for a wrapped entry (from the
// install's backup: URL entries, headers, comments and layout included) and for an
// added one (removed); a second uninstall changes nothing.
func TestUninstallRestoresTheFileByteForByte(t *testing.T) {
	now := time.Date(2026, 12, 2, 2, 10, 3, 0, time.UTC)
	for _, tt := range installRoundTrips {
		t.Run(tt.fixture, func(t *testing.T) {
			o, _, _ := installFixture(t, tt.fixture)
			opts := InstallOptions{Host: tt.host, Name: tt.name, Command: "/home/ada/go/bin/elicitty", Own: tt.own, ConfigFile: tt.config, GOOS: "linux"}
			in, err := o.PlanInstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			if in.Create {
				t.Skip("the fixture has no file before install")
			}
			before, err := os.ReadFile(in.File.Path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := in.Write(now); err != nil {
				t.Fatal(err)
			}
			un, err := o.PlanUninstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			want := InstallRestore
			if tt.own && in.Action == InstallAdd {
				want = InstallRemove
			}
			if un.Action != want {
				t.Errorf("action = %v, want %v", un.Action, want)
			}
			backup, err := un.Write(now.Add(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if backup == "" {
				t.Error("uninstall kept no backup of the file as install left it")
			}
			got, err := os.ReadFile(in.File.Path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(before), string(got)); diff != "" {
				t.Errorf("after install and uninstall (-before +after):\n%s", diff)
			}
			again, err := o.PlanUninstall(opts)
			if tt.own && in.Action == InstallAdd {
				if err == nil {
					t.Errorf("a second uninstall of a removed entry planned %v", again.Action)
				}
				return
			}
			if err != nil || again.Action != InstallNotWrapped {
				t.Fatalf("second uninstall: %v, %v; want nothing to do", again, err)
			}
			if b, err := again.Write(now.Add(2 * time.Second)); err != nil || b != "" {
				t.Errorf("second Write = %q, %v; want no backup and no error", b, err)
			}
		})
	}
}

// TestUninstallWithoutBackup: with no backup beside the file, an entry wrapped as
// `elicitty proxy -- CMD ARGS` gets its command line back in place, env kept; one that
// proxies a URL cannot be rebuilt and is left alone with an error; an entry that does
// not run through the proxy is reported as such.
func TestUninstallWithoutBackup(t *testing.T) {
	o, _, _ := installFixture(t, "claude_desktop")
	opts := InstallOptions{Host: HostClaudeDesktop, Name: "weather", Command: "/usr/local/bin/elicitty"}
	in, err := o.PlanInstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	backup, err := in.Write(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(backup); err != nil {
		t.Fatal(err)
	}
	un, err := o.PlanUninstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"command":"uvx","args":["weather-mcp","--units","metric"],"env":{"WEATHER_API_KEY":"wk-123"}}`
	if un.Action != InstallRestore || string(un.EntryJSON()) != want {
		t.Errorf("plan %v %s, want the command line back: %s", un.Action, un.EntryJSON(), want)
	}

	o, _, _ = installFixture(t, "cursor_http")
	opts = InstallOptions{Host: HostCursor, Name: "shared", Command: "elicitty"}
	in, err = o.PlanInstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	if backup, err = in.Write(time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(backup); err != nil {
		t.Fatal(err)
	}
	if _, err := o.PlanUninstall(opts); err == nil || !strings.Contains(err.Error(), "no backup") {
		t.Errorf("a URL entry without a backup: %v", err)
	}

	o, _, _ = installFixture(t, "claude_desktop")
	un, err = o.PlanUninstall(InstallOptions{Host: HostClaudeDesktop, Name: "weather", Command: "elicitty"})
	if err != nil || un.Action != InstallNotWrapped {
		t.Errorf("an entry never installed: %v, %v", un, err)
	}
}
