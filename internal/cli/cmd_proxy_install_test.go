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
	// The test binary is a `go test` build: the installs run an elicitty that `go
	// install` put in ~/go/bin.
	if err := os.MkdirAll(filepath.Dir(elicittyCommand()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(elicittyCommand(), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
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
	a.launch = &launcher{executable: func() (string, error) { return elicittyCommand(), nil },
		lookPath: func(string) (string, error) { return "", exec.ErrNotFound }, getenv: os.Getenv}
	for _, f := range setup {
		f(a)
	}
	err := a.proxyInstall(host, []string{server}, write)
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	return stdout.String(), err
}

// elicittyCommand is the command an entry runs in a test: the elicitty in the test's
// ~/go/bin (newInstallEnv).
func elicittyCommand() string { return filepath.Join(os.Getenv("HOME"), "go", "bin", "elicitty") }

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

// TestLaunchCommand: an entry always starts elicitty by an absolute path, preferring
// a name that outlives upgrades (the link on PATH, ~/go/bin) to the versioned file it
// resolves to; a `go run` build is never written: the elicitty on PATH is, with a note,
// and without one it is an error.
func TestLaunchCommand(t *testing.T) {
	dir := t.TempDir()
	file := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home := filepath.Join(dir, "home")
	goBin := file(filepath.Join(home, "go", "bin", "elicitty"))
	versioned := file(filepath.Join(dir, "Cellar", "elicitty", "1.2.0", "bin", "elicitty"))
	brewLink := link(versioned, filepath.Join(dir, "brew", "bin", "elicitty"))
	other := file(filepath.Join(dir, "other", "elicitty"))
	plain := file(filepath.Join(dir, "opt", "elicitty"))
	plainLink := link(plain, filepath.Join(dir, "links", "elicitty"))
	goRun := file(filepath.Join(dir, "tmp", "go-build123", "b001", "exe", "elicitty"))
	cache := filepath.Join(dir, "cache")
	cached := file(filepath.Join(cache, "ab", "elicitty"))
	goRunLink := link(goRun, filepath.Join(dir, "badlink", "elicitty"))

	found := func(p string) func(string) (string, error) { return func(string) (string, error) { return p, nil } }
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	at := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	env := map[string]string{"HOME": home, "GOCACHE": cache}
	tests := []struct {
		name    string
		exe     func() (string, error)
		look    func(string) (string, error)
		want    string
		note    string // a part of the note, "" for none
		wantErr bool
	}{
		{"go install, not on PATH", at(goBin), missing, goBin, "", false},
		{"go install, on PATH", at(goBin), found(goBin), goBin, "", false},
		{"a package manager's link on PATH", at(versioned), found(brewLink), brewLink, "", false},
		{"started through a link", at(plainLink), missing, plain, "", false},
		{"another elicitty on PATH", at(plain), found(other), plain, "", false},
		{"go run, one on PATH", at(goRun), found(brewLink), brewLink, "go run", false},
		{"go run from the build cache", at(cached), found(other), other, "go run", false},
		{"go run, none on PATH", at(goRun), missing, "", "", true},
		{"go run, PATH's is a go run build too", at(goRun), found(goRunLink), "", "", true},
		{"unknown", func() (string, error) { return "", errors.New("no /proc") }, found(other), other, "could not be located", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := launchCommand(launcher{executable: tt.exe, lookPath: tt.look, getenv: func(k string) string { return env[k] }})
			if (err != nil) != tt.wantErr {
				t.Fatalf("launchCommand = %q, %q, %v; want an error: %v", got, note, err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "go install") {
					t.Errorf("the error does not say how to install: %v", err)
				}
				return
			}
			if got != tt.want || !filepath.IsAbs(got) {
				t.Errorf("launchCommand = %q, want %q", got, tt.want)
			}
			if (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) || (tt.note != "" && !strings.Contains(note, got)) {
				t.Errorf("note = %q, want one that says %q and names %s", note, tt.note, got)
			}
		})
	}
}

// uninstall runs proxyUninstall in a fresh app and returns its output.
func uninstall(t *testing.T, host, server string, write bool, setup ...func(*app)) (string, error) {
	t.Helper()
	var stdout, stderr strings.Builder
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	a.launch = &launcher{executable: func() (string, error) { return elicittyCommand(), nil },
		lookPath: func(string) (string, error) { return "", exec.ErrNotFound }, getenv: os.Getenv}
	for _, f := range setup {
		f(a)
	}
	err := a.proxyUninstall(host, []string{server}, write)
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	return stdout.String(), err
}

// TestProxyUninstallEveryHost: --uninstall after --install --write gives every host's
// file back byte for byte; without --write it only says what it would do; a second
// --uninstall has nothing to undo.
func TestProxyUninstallEveryHost(t *testing.T) {
	for _, hf := range hostFixtures {
		t.Run(hf.host, func(t *testing.T) {
			e := newInstallEnv(t)
			file := e.write(t, hf.path(e), hf.content)
			if _, err := install(t, hf.host, "weather", true); err != nil {
				t.Fatal(err)
			}
			installed, _ := os.ReadFile(file)
			out, err := uninstall(t, hf.host, "weather", false)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, `Put back the entry "weather" in `+file) || !strings.Contains(out, `"command": "uvx"`) ||
				strings.Contains(out, "secret-1") || !strings.Contains(out, "--write") {
				t.Errorf("uninstall without --write says:\n%s", out)
			}
			if got, _ := os.ReadFile(file); string(got) != string(installed) {
				t.Errorf("without --write the file changed:\n%s", got)
			}
			out, err = uninstall(t, hf.host, "weather", true)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, `Put back "weather" in `+file) {
				t.Errorf("uninstall --write says:\n%s", out)
			}
			if got, _ := os.ReadFile(file); string(got) != hf.content {
				t.Errorf("after install and uninstall:\n%s\nwant the original:\n%s", got, hf.content)
			}
			out, err = uninstall(t, hf.host, "weather", true)
			if err != nil || !strings.Contains(out, "does not run through elicitty proxy; nothing to undo") {
				t.Errorf("second uninstall: %v\n%s", err, out)
			}
		})
	}
}

// TestProxyInstallRepointsBareElicitty: an entry an earlier version wrote with a bare
// "elicitty" (which GUI hosts cannot find) is pointed at this elicitty's absolute path,
// and --uninstall still puts back the entry as it was before the first install.
func TestProxyInstallRepointsBareElicitty(t *testing.T) {
	e := newInstallEnv(t)
	orig := `{"mcpServers": {"weather": {"command": "uvx", "args": ["weather-mcp"]}}}`
	file := e.write(t, filepath.Join(e.home, ".cursor", "mcp.json"), orig)
	if err := os.WriteFile(file+".20261201-120000.bak", []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	old := `{"mcpServers": {"weather": {"command": "elicitty", "args": ["proxy", "--", "uvx", "weather-mcp"]}}}`
	e.write(t, file, old)
	out, err := install(t, "cursor", "weather", true, func(a *app) { a.jsonOut = true })
	if err != nil {
		t.Fatal(err)
	}
	var got installOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Action != "repoint" || !got.Written {
		t.Errorf("--json = %+v", got)
	}
	want := `{"mcpServers": {"weather": {"command": ` + quoteJSON(elicittyCommand()) + `, "args": ["proxy", "--", "uvx", "weather-mcp"]}}}`
	if b, _ := os.ReadFile(file); string(b) != want {
		t.Errorf("after repointing:\n%s\nwant\n%s", b, want)
	}
	if _, err := uninstall(t, "cursor", "weather", true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Errorf("after uninstall:\n%s\nwant\n%s", b, orig)
	}
}

// TestProxyUninstallAdded: an entry --install added for a server of elicitty's own
// config is removed.
func TestProxyUninstallAdded(t *testing.T) {
	e := newInstallEnv(t)
	orig := `{"theme": "x", "mcpServers": {"other": {"command": "x"}}}`
	file := e.write(t, filepath.Join(e.home, ".gemini", "settings.json"), orig)
	if _, err := install(t, "gemini-cli", "demo", true); err != nil {
		t.Fatal(err)
	}
	out, err := uninstall(t, "gemini-cli", "demo", true)
	if err != nil || !strings.Contains(out, `Removed "demo", which --install added`) {
		t.Errorf("uninstall: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Errorf("after uninstall:\n%s\nwant\n%s", b, orig)
	}
}
