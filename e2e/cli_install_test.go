package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/cli"
)

// jsonString is s as a JSON string, as the install writes a command path.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestCLIProxyInstall(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "APPDATA=", "ELICITTY_CONFIG="}
	file := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	orig := `{
  "mcpServers": {
    "weather": {"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}
  }
}
`
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}

	r := runBinIn(t, work, env, "proxy", "--install", "claude-desktop", "weather")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// bin is in no directory on PATH: the entry names it by its absolute path.
	for _, want := range []string{file, `"command": ` + jsonString(bin), `"proxy",`, `"uvx",`, "--write"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "secret-1") {
		t.Errorf("stdout shows an env value:\n%s", r.stdout)
	}
	if got, _ := os.ReadFile(file); string(got) != orig {
		t.Fatalf("without --write the file changed:\n%s", got)
	}

	r = runBinIn(t, work, env, "proxy", "--install", "claude", "weather")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "claude-desktop") || !strings.Contains(r.stderr, "gemini-cli") {
		t.Errorf("unknown host: exit %d, stderr %s; want 2 and the list of hosts", r.code, r.stderr)
	}

	r = runBinIn(t, work, env, "proxy", "--install", "claude-desktop", "weather", "--write")
	if r.code != 0 {
		t.Fatalf("--write: exit %d: %s", r.code, r.stderr)
	}
	got, _ := os.ReadFile(file)
	want := `"command": ` + jsonString(bin) + `, "args": ["proxy", "--", "uvx", "weather-mcp"], "env": {"KEY": "secret-1"}}`
	if !strings.Contains(string(got), want) {
		t.Errorf("file after --write:\n%s\nwant it to contain\n%s", got, want)
	}
	backups, _ := filepath.Glob(file + ".*.bak")
	if len(backups) != 1 || !strings.Contains(r.stdout, backups[0]) {
		t.Errorf("backups %v; stdout:\n%s", backups, r.stdout)
	}

	// Installing again changes nothing.
	r = runBinIn(t, work, env, "proxy", "--install", "claude-desktop", "weather", "--write")
	if r.code != 0 || !strings.Contains(r.stdout, "already runs through elicitty proxy") {
		t.Errorf("second --write: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// --uninstall puts the file back as it was, byte for byte.
	r = runBinIn(t, work, env, "proxy", "--uninstall", "claude-desktop", "weather", "--write")
	if r.code != 0 || !strings.Contains(r.stdout, `Put back "weather" in `+file) {
		t.Errorf("--uninstall --write: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(file); string(got) != orig {
		t.Errorf("after --uninstall:\n%s\nwant the original:\n%s", got, orig)
	}

	// Started through a link on PATH (a package manager's, to a versioned file), the
	// entry names the link, which upgrades keep.
	links := t.TempDir()
	link := filepath.Join(links, "elicitty")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	r = runBinIn(t, work, append(env, "PATH="+links+string(os.PathListSeparator)+os.Getenv("PATH")), "proxy", "--install", "claude-desktop", "weather")
	if r.code != 0 || !strings.Contains(r.stdout, `"command": `+jsonString(link)) {
		t.Errorf("through a link on PATH: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	if err := os.WriteFile(file, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinIn(t, work, env, "proxy", "--install", "claude-desktop", "weather", "--write")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "cannot parse") {
		t.Errorf("unparsable file: exit %d, stderr %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(file); string(got) != `{"mcpServers": {` {
		t.Errorf("the unparsable file changed: %s", got)
	}
}
