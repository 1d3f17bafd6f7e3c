package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/config"
)

// installEnv is a private home for one test: HOME, XDG_CONFIG_HOME and a project
// directory as the working directory, so that only the files a test writes exist.
type installEnv struct {
	home, configDir, work string
}

func newInstallEnv(t *testing.T) installEnv {
	t.Helper()
	root := t.TempDir()
	e := installEnv{home: filepath.Join(root, "home"), configDir: filepath.Join(root, "home", ".config"), work: filepath.Join(root, "work")}
	for _, d := range []string{e.configDir, e.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_CONFIG_HOME", e.configDir)
	t.Setenv("APPDATA", "")
	t.Setenv("ELICITTY_CONFIG", "")
	t.Setenv("CODEX_HOME", "")
	t.Chdir(e.work)
	return e
}

// write puts a file under dir, making its directories.
func (e installEnv) write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// install runs proxyInstall in a fresh app and returns its output.
func install(t *testing.T, host, server string, write bool, setup ...func(*app)) (string, error) {
	t.Helper()
	var stdout, stderr strings.Builder
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	for _, f := range setup {
		f(a)
	}
	err := a.proxyInstall(host, []string{server}, write)
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	return stdout.String(), err
}

// elicittyCommand is the command an entry runs for this test binary.
func elicittyCommand() string {
	cmd, _ := launchCommand(os.Executable, exec.LookPath, os.TempDir())
	return cmd
}

// hostFixture is a host's config file holding a stdio server "weather" with an env
// value, in the host's own format.
type hostFixture struct {
	host    string
	path    func(installEnv) string
	content string
	key     string // the object of servers
}

var hostFixtures = []hostFixture{
	{"claude-desktop", func(e installEnv) string { return filepath.Join(e.configDir, "Claude", "claude_desktop_config.json") },
		`{"mcpServers": {"weather": {"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}}}`, "mcpServers"},
	{"cursor", func(e installEnv) string { return filepath.Join(e.home, ".cursor", "mcp.json") },
		`{"mcpServers": {"weather": {"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}}}`, "mcpServers"},
	{"vscode", func(e installEnv) string { return filepath.Join(e.configDir, "Code", "User", "mcp.json") },
		"{\n  // mine\n  \"servers\": {\"weather\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"weather-mcp\"], \"env\": {\"KEY\": \"secret-1\"}},},\n}\n", "servers"},
	{"claude-code", func(e installEnv) string { return filepath.Join(e.home, ".claude.json") },
		`{"numStartups": 1, "mcpServers": {"weather": {"type": "stdio", "command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}}}`, "mcpServers"},
	{"windsurf", func(e installEnv) string { return filepath.Join(e.home, ".codeium", "windsurf", "mcp_config.json") },
		`{"mcpServers": {"weather": {"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}}}`, "mcpServers"},
	{"gemini-cli", func(e installEnv) string { return filepath.Join(e.home, ".gemini", "settings.json") },
		`{"theme": "x", "mcpServers": {"weather": {"command": "uvx", "args": ["weather-mcp"], "env": {"KEY": "secret-1"}}}}`, "mcpServers"},
}

func TestProxyInstallEveryHost(t *testing.T) {
	for _, hf := range hostFixtures {
		t.Run(hf.host, func(t *testing.T) {
			e := newInstallEnv(t)
			file := e.write(t, hf.path(e), hf.content)
			out, err := install(t, hf.host, "weather", false)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{file, `"` + hf.key + `": {`, `"weather": {`, `"proxy",`, `"--",`, `"uvx",`,
				`"command": ` + quoteJSON(elicittyCommand()), `"KEY": "<redacted>"`, "--write"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "secret-1") {
				t.Errorf("output shows an env value:\n%s", out)
			}
			if got, _ := os.ReadFile(file); string(got) != hf.content {
				t.Errorf("without --write the file changed:\n%s", got)
			}

			out, err = install(t, hf.host, "weather", true)
			if err != nil {
				t.Fatal(err)
			}
			matches, _ := filepath.Glob(file + ".*.bak")
			if len(matches) != 1 {
				t.Fatalf("backups: %v, want one", matches)
			}
			if got, _ := os.ReadFile(matches[0]); string(got) != hf.content {
				t.Errorf("backup holds %s", got)
			}
			if !strings.Contains(out, "Rewrote \"weather\" in "+file) || !strings.Contains(out, matches[0]) {
				t.Errorf("--write output does not say what it wrote and where the backup is:\n%s", out)
			}
			cfg, err := config.Load(config.LoadOptions{HomeDir: e.home, ConfigDir: e.configDir, WorkDir: e.work, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := cfg.Lookup("weather")
			if !ok {
				t.Fatalf("weather not loadable after --write: %v", cfg.Problems)
			}
			want := []string{"proxy", "--", "uvx", "weather-mcp"}
			if s.Command != elicittyCommand() || strings.Join(s.Args, " ") != strings.Join(want, " ") || s.Env["KEY"] != "secret-1" {
				t.Errorf("after --write: %s %q env %v; want %s %q with the env kept", s.Command, s.Args, s.Env, elicittyCommand(), want)
			}
			if hf.host == "vscode" {
				if got, _ := os.ReadFile(file); !strings.Contains(string(got), "// mine") {
					t.Errorf("the comment is gone:\n%s", got)
				}
			}

			out, err = install(t, hf.host, "weather", true)
			if err != nil || !strings.Contains(out, "already runs through elicitty proxy") {
				t.Errorf("second --write: %v\n%s", err, out)
			}
			if matches, _ := filepath.Glob(file + ".*.bak"); len(matches) != 1 {
				t.Errorf("second --write made another backup: %v", matches)
			}
		})
	}
}

func TestProxyInstallOwnServer(t *testing.T) {
	e := newInstallEnv(t)
	e.write(t, filepath.Join(e.configDir, "elicitty", "config.yaml"), "servers:\n  api:\n    url: https://api.example.com/mcp\n    headers: {Authorization: \"Bearer ${API_TOKEN}\"}\n")
	t.Setenv("API_TOKEN", "tok")
	out, err := install(t, "cursor", "api", true)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(e.home, ".cursor", "mcp.json")
	if !strings.Contains(out, "Added \"api\" to "+file) {
		t.Errorf("output:\n%s", out)
	}
	var got struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	entry := got.MCPServers["api"]
	if entry.Command != elicittyCommand() || strings.Join(entry.Args, " ") != "proxy --no-imports api" {
		t.Errorf("entry = %+v, want elicitty proxy --no-imports api", entry)
	}
	if strings.Contains(string(data), "tok") {
		t.Error("the header's value reached the host's file")
	}
}

func TestProxyInstallConfigFlag(t *testing.T) {
	e := newInstallEnv(t)
	cfgFile := e.write(t, filepath.Join(e.work, "servers.yaml"), "servers:\n  mine:\n    command: my-server\n")
	out, err := install(t, "gemini", "mine", false, func(a *app) { a.configPath = "servers.yaml" })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"--no-imports",`, `"--config",`, quoteJSON(cfgFile) + ",", `"mine"`, "the file does not exist yet"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

func TestProxyInstallEnvConfig(t *testing.T) {
	e := newInstallEnv(t)
	cfgFile := e.write(t, filepath.Join(e.home, "elicitty.yaml"), "servers:\n  mine:\n    command: my-server\n")
	t.Setenv("ELICITTY_CONFIG", cfgFile)
	out, err := install(t, "windsurf", "mine", false)
	if err != nil {
		t.Fatal(err)
	}
	// The host does not pass ELICITTY_CONFIG on: the entry names the file.
	if !strings.Contains(out, `"--config",`) || !strings.Contains(out, quoteJSON(cfgFile)) {
		t.Errorf("output lacks --config %s:\n%s", cfgFile, out)
	}
}

func TestProxyInstallBuiltinDemo(t *testing.T) {
	newInstallEnv(t)
	out, err := install(t, "claude-code", "demo", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "claude mcp add-json --scope user demo '{\"type\":\"stdio\",\"command\":" + quoteJSON(elicittyCommand()) + ",\"args\":[\"proxy\",\"--no-imports\",\"demo\"]}'"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks\n%s\n%s", want, out)
	}
}

func TestProxyInstallClaudeCodeRewrite(t *testing.T) {
	e := newInstallEnv(t)
	e.write(t, filepath.Join(e.work, ".mcp.json"), `{"mcpServers": {"files": {"command": "npx", "args": ["-y", "fs server"]}}}`)
	out, err := install(t, "claude-code", "files", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "claude mcp remove --scope project files && claude mcp add-json --scope project files '{\"command\":" +
		quoteJSON(elicittyCommand()) + ",\"args\":[\"proxy\",\"--\",\"npx\",\"-y\",\"fs server\"]}'"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks\n%s\n%s", want, out)
	}
}

func TestProxyInstallRefuses(t *testing.T) {
	e := newInstallEnv(t)
	broken := e.write(t, filepath.Join(e.home, ".cursor", "mcp.json"), `{"mcpServers": {"a": {"command": "x"}`)
	e.write(t, filepath.Join(e.home, ".gemini", "settings.json"), `{"mcpServers": {"elsewhere": {"command": "x"}}}`)
	tests := []struct {
		name, host, server string
		want               []string
	}{
		{"unknown host", "emacs", "a", []string{`unknown host "emacs"`, "claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini-cli"}},
		{"unknown server", "windsurf", "nope", []string{`"nope"`, "Windsurf", "nor elicitty's own"}},
		{"another client's server", "windsurf", "elsewhere", []string{"settings.json", "another", "client"}},
		{"unparsable", "cursor", "a", []string{"cannot parse", broken + ":1:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := install(t, tt.host, tt.server, true)
			var u *usageError
			if !errors.As(err, &u) || exitCode(err) != ExitUsage {
				t.Fatalf("err = %v, want a usage error (exit 2)", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
	if got, _ := os.ReadFile(broken); string(got) != `{"mcpServers": {"a": {"command": "x"}` {
		t.Errorf("the unparsable file changed: %s", got)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".codeium")); err == nil {
		t.Error("a refused install created Windsurf's file")
	}
	var stdout strings.Builder
	a := newApp(strings.NewReader(""), &stdout, &stdout)
	if err := a.proxyInstall("cursor", nil, false); exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "one SERVER") {
		t.Errorf("no SERVER: %v", err)
	}
}

func TestProxyInstallSanitizes(t *testing.T) {
	e := newInstallEnv(t)
	e.write(t, filepath.Join(e.home, ".cursor", "mcp.json"), `{"mcpServers": {"evil\u001b]0;x\u0007\u202e": {"command": "run\u202e\u001b[2J"}}}`)
	out, err := install(t, "cursor", "evil\x1b]0;x\x07\u202e", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has a raw %q:\n%q", bad, out)
		}
	}
	if !strings.Contains(out, `\u202e`) {
		t.Errorf("the JSON entry should keep the character escaped:\n%s", out)
	}
}

func TestProxyInstallJSON(t *testing.T) {
	e := newInstallEnv(t)
	file := e.write(t, filepath.Join(e.home, ".codeium", "windsurf", "mcp_config.json"), `{"mcpServers": {"figma": {"serverUrl": "https://mcp.figma.com/mcp"}}}`)
	out, err := install(t, "windsurf", "figma", true, func(a *app) { a.jsonOut = true })
	if err != nil {
		t.Fatal(err)
	}
	var got installOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Host != "windsurf" || got.File != file || got.Action != "wrap" || !got.Written || got.Backup == "" ||
		!strings.Contains(string(got.Entry), `"https://mcp.figma.com/mcp"`) {
		t.Errorf("--json output = %+v", got)
	}
}

func TestLaunchCommand(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "elicitty")
	other := filepath.Join(dir, "other", "elicitty")
	for _, p := range []string{exe, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	found := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	at := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	tests := []struct {
		name     string
		exe      func() (string, error)
		look     func(string) (string, error)
		want     string
		wantNote bool
	}{
		{"on PATH", at(exe), found(exe), "elicitty", false},
		{"on PATH through a link", at(exe), found(link), "elicitty", false},
		{"another elicitty on PATH", at(exe), found(other), exe, false},
		{"not on PATH", at(exe), missing, exe, false},
		{"go run", at(filepath.Join(tmp, "go-build123", "b001", "exe", "elicitty")), found(exe), "elicitty", true},
		{"unknown", func() (string, error) { return "", errors.New("no /proc") }, found(exe), "elicitty", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note := launchCommand(tt.exe, tt.look, tmp)
			if got != tt.want || (note != "") != tt.wantNote {
				t.Errorf("launchCommand = %q, note %q; want %q, a note: %v", got, note, tt.want, tt.wantNote)
			}
		})
	}
}
