package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// configHome lays out a home directory with other clients' configs: a Codex TOML file,
// a malformed Gemini CLI settings file and a project .mcp.json with a secret header.
func configHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(home, ".codex", "config.toml"):              "model = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\nenv = { DOCS_TOKEN = \"tok-s3cret-env\" }\n",
		filepath.Join(home, ".gemini", "settings.json"):           "{\n  \"mcpServers\": {\n    \"lost\": {\"command\": \"x\"}\n  }\n  \"theme\": \"Default\"\n}\n",
		filepath.Join(work, ".mcp.json"):                          `{"mcpServers": {"api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer tok-s3cret-hdr"}}}}`,
		filepath.Join(home, ".config", "elicitty", "config.yaml"): "servers:\n  mine:\n    command: " + strconv.Quote(bin) + "\n    args: [serve-demo]\n",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

func TestConfigListsServersWithTheirFiles(t *testing.T) {
	home, work := configHome(t)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ELICITTY_CONFIG=", "CODEX_HOME=", "APPDATA="}
	// The project's .mcp.json waits for the folder's trust: listed apart, not expanded.
	r := runBinIn(t, work, env, "config")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "not started until you trust") || !strings.Contains(r.stdout, "api: connects to https://api.example.com/mcp (http); headers: Authorization") || strings.Contains(r.stdout, "s3cret") {
		t.Errorf("untrusted project: stdout:\n%s", r.stdout)
	}
	r = runBinIn(t, work, env, "--trust", "config")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"docs", "imported", filepath.Join(home, ".codex", "config.toml"), "npx -y docs-mcp (env: DOCS_TOKEN)",
		"api", filepath.Join(work, ".mcp.json"), "(headers: Authorization)",
		"mine", "own", filepath.Join(home, ".config", "elicitty", "config.yaml"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "lost") {
		t.Errorf("a server of the malformed file is listed:\n%s", r.stdout)
	}
	gemini := filepath.Join(home, ".gemini", "settings.json")
	if !strings.Contains(r.stderr, "WARNING") || !strings.Contains(r.stderr, gemini+":5:3: invalid JSON") {
		t.Errorf("stderr %q should warn about %s:5:3", r.stderr, gemini)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "s3cret") {
			t.Errorf("a secret was printed:\n%s", out)
		}
	}

	r = runBinIn(t, work, env, "config", "--json")
	if r.code != 0 {
		t.Fatalf("--json: exit %d; stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Errorf("--json printed a secret:\n%s", r.stdout)
	}
	var got struct {
		Servers []struct {
			Name, Layer, Source, Type string
			Headers                   map[string]string
		}
		Problems []struct{ Source, Server, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.stdout)
	}
	layers := map[string]string{}
	for _, s := range got.Servers {
		layers[s.Name] = s.Layer + " " + s.Type + " " + s.Source
	}
	want := map[string]string{
		"api":  "imported http " + filepath.Join(work, ".mcp.json"),
		"docs": "imported stdio " + filepath.Join(home, ".codex", "config.toml"),
		"mine": "own stdio " + filepath.Join(home, ".config", "elicitty", "config.yaml"),
	}
	for name, w := range want {
		if layers[name] != w {
			t.Errorf("server %s: %q, want %q", name, layers[name], w)
		}
	}
	if len(got.Problems) != 1 || got.Problems[0].Source != gemini || got.Problems[0].Server != "" {
		t.Errorf("problems = %+v, want the Gemini file", got.Problems)
	}

	r = runBinIn(t, work, env, "config", "--no-imports")
	if r.code != 0 || strings.Contains(r.stdout, "docs") || strings.Contains(r.stdout, "api") || !strings.Contains(r.stdout, "mine") || r.stderr != "" {
		t.Errorf("--no-imports: exit %d, stdout:\n%s\nstderr %q; want only the own server and no warning", r.code, r.stdout, r.stderr)
	}
}

// TestMalformedImportDoesNotStopOtherCommands checks that a command naming a server of
// another file still works when one imported file is malformed, with a warning.
func TestMalformedImportDoesNotStopOtherCommands(t *testing.T) {
	home, work := configHome(t)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ELICITTY_CONFIG=", "CODEX_HOME=", "APPDATA="}
	r := runBinIn(t, work, env, "tools", "mine")
	if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
		t.Errorf("tools mine: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "WARNING") {
		t.Errorf("stderr %q should warn about the malformed Gemini file", r.stderr)
	}
}
