package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/tree"
)

// installFixture lays out testdata/install/NAME.txtar: its "want PATH" sections are the
// files as they must be after Write, "entry" the entry PlanInstall shows.
func installFixture(t *testing.T, name string) (LoadOptions, string, map[string]string) {
	t.Helper()
	all := txtar(t, filepath.Join("testdata", "install", name+".txtar"))
	files, want := map[string]string{}, map[string]string{}
	for k, v := range all {
		if p, ok := strings.CutPrefix(k, "want "); ok {
			want[p] = v
		} else if k == "entry" {
			want[k] = v
		} else {
			files[k] = v
		}
	}
	o, root := layout(t, files, nil)
	for k, v := range want {
		want[k] = strings.ReplaceAll(v, "$ROOT", filepath.ToSlash(root))
	}
	return o, root, want
}

func TestPlanInstallWritesEachHostsFormat(t *testing.T) {
	fixed := time.Date(2026, 12, 2, 2, 10, 3, 0, time.UTC)
	tests := []struct {
		fixture string
		host    Host
		name    string
		own     bool
		config  string
		action  InstallAction
		path    []string
	}{
		{"claude_desktop", HostClaudeDesktop, "weather", false, "", InstallWrap, []string{"mcpServers"}},
		{"claude_desktop_multiline", HostClaudeDesktop, "filesystem", false, "", InstallWrap, []string{"mcpServers"}},
		{"cursor_http", HostCursor, "shared", false, "", InstallWrap, []string{"mcpServers"}},
		{"cursor_inline", HostCursor, "linear", false, "", InstallWrap, []string{"mcpServers"}},
		{"vscode", HostVSCode, "perplexity", false, "", InstallWrap, []string{"servers"}},
		{"vscode_add", HostVSCode, "demo", true, "", InstallAdd, []string{"servers"}},
		{"vscode_headers", HostVSCode, "github", true, "/etc/elicitty.yaml", InstallWrap, []string{"servers"}},
		{"claude_code", HostClaudeCode, "everything", false, "", InstallWrap, []string{"projects", "$ROOT/work", "mcpServers"}},
		{"claude_code_add", HostClaudeCode, "demo", true, "", InstallAdd, []string{"mcpServers"}},
		{"windsurf", HostWindsurf, "figma", false, "", InstallWrap, []string{"mcpServers"}},
		{"gemini", HostGeminiCLI, "api", false, "", InstallWrap, []string{"mcpServers"}},
		{"gemini_trailing", HostGeminiCLI, "demo", true, "", InstallAdd, []string{"mcpServers"}},
		{"cursor_comments", HostCursor, "api", false, "", InstallWrap, []string{"mcpServers"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			o, root, want := installFixture(t, tt.fixture)
			opts := InstallOptions{Host: tt.host, Name: tt.name, Command: "elicitty", Own: tt.own, ConfigFile: tt.config, GOOS: "linux"}
			in, err := o.PlanInstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			if in.Action != tt.action {
				t.Errorf("action = %v, want %v", in.Action, tt.action)
			}
			var path []string
			for _, p := range in.Path {
				path = append(path, rel(root, p))
			}
			if diff := cmp.Diff(tt.path, path); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
			if e, ok := want["entry"]; ok {
				if diff := cmp.Diff(strings.TrimSpace(e), string(in.Entry)); diff != "" {
					t.Errorf("entry (-want +got):\n%s", diff)
				}
			}
			// Planning writes nothing.
			for p := range want {
				if p == "entry" {
					continue
				}
				if got, _ := os.ReadFile(filepath.Join(root, p)); string(got) == want[p] {
					t.Errorf("%s already edited before Write", p)
				}
			}
			backup, err := in.Write(fixed)
			if err != nil {
				t.Fatal(err)
			}
			if backup == "" {
				t.Error("no backup")
			}
			written := 0
			for p, w := range want {
				if p == "entry" {
					continue
				}
				written++
				if rel(root, in.File.Path) != "$ROOT/"+p {
					t.Errorf("edited %s, want $ROOT/%s", rel(root, in.File.Path), p)
				}
				got, err := os.ReadFile(filepath.Join(root, p))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(w, string(got)); diff != "" {
					t.Errorf("%s after Write (-want +got):\n%s", p, diff)
				}
			}
			if written != 1 {
				t.Fatalf("fixture has %d want sections, want 1", written)
			}
			// The loader reads the edited file, and the entry runs elicitty.
			lo := o
			lo.Getenv = func(k string) string { return map[string]string{"ELICITTY_INPUT_PERPLEXITY_KEY": "k"}[k] }
			trustWork(t, lo) // a project file that changed is untrusted again, even by our edit
			cfg, err := Load(lo)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := cfg.Lookup(tt.name)
			if !ok {
				t.Fatalf("%s not in the catalog after the edit; problems: %v", tt.name, cfg.Problems)
			}
			if s.Command != "elicitty" || len(s.Args) < 2 || s.Args[0] != "proxy" || s.EffectiveKind() != KindStdio {
				t.Errorf("loaded entry = %s %q (%s), want elicitty proxy ... over stdio", s.Command, s.Args, s.EffectiveKind())
			}
			// Installing again changes nothing.
			again, err := o.PlanInstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Action != InstallWrapped {
				t.Errorf("second install: action = %v, want InstallWrapped", again.Action)
			}
			if b, err := again.Write(fixed.Add(time.Second)); err != nil || b != "" {
				t.Errorf("second Write = %q, %v; want no backup and no error", b, err)
			}
		})
	}
}

func TestInstallKeepsStdioEntryWhole(t *testing.T) {
	o, _, _ := installFixture(t, "claude_desktop")
	in, err := o.PlanInstall(InstallOptions{Host: HostClaudeDesktop, Name: "weather", Command: "/usr/local/bin/elicitty"})
	if err != nil {
		t.Fatal(err)
	}
	// The complete entry keeps the env value; only the shown one is redacted.
	want := `{"command":"/usr/local/bin/elicitty","args":["proxy","--","uvx","weather-mcp","--units","metric"],"env":{"WEATHER_API_KEY":"wk-123"}}`
	if got := string(in.EntryJSON()); got != want {
		t.Errorf("EntryJSON = %s\nwant %s", got, want)
	}
	if !in.Redacted || strings.Contains(string(in.Entry), "wk-123") {
		t.Errorf("shown entry not redacted: %s", in.Entry)
	}
}

func TestInstallBackup(t *testing.T) {
	for _, perm := range []fs.FileMode{0o600, 0o644} {
		t.Run(perm.String(), func(t *testing.T) {
			o, _, _ := installFixture(t, "windsurf")
			file := filepath.Join(o.HomeDir, ".codeium", "windsurf", "mcp_config.json")
			if err := os.Chmod(file, perm); err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(file)
			in, err := o.PlanInstall(InstallOptions{Host: HostWindsurf, Name: "figma", Command: "elicitty"})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 12, 2, 2, 10, 3, 0, time.UTC)
			backup, err := in.Write(now)
			if err != nil {
				t.Fatal(err)
			}
			if want := file + ".20261202-021003.bak"; backup != want {
				t.Errorf("backup = %s, want %s", backup, want)
			}
			got, err := os.ReadFile(backup)
			if err != nil || string(got) != string(orig) {
				t.Errorf("backup holds %q (%v), want the original", got, err)
			}
			for _, p := range []string{backup, file} {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != perm {
					t.Errorf("%s mode %v, want %v", filepath.Base(p), st.Mode().Perm(), perm)
				}
			}
			// A second edit in the same second does not overwrite the first backup.
			if err := os.WriteFile(file, orig, perm); err != nil {
				t.Fatal(err)
			}
			in, err = o.PlanInstall(InstallOptions{Host: HostWindsurf, Name: "figma", Command: "elicitty"})
			if err != nil {
				t.Fatal(err)
			}
			second, err := in.Write(now)
			if err != nil {
				t.Fatal(err)
			}
			if second == backup || !strings.HasSuffix(second, ".bak") {
				t.Errorf("second backup = %s, first %s", second, backup)
			}
		})
	}
}

func TestInstallCreatesMissingFile(t *testing.T) {
	tests := []struct {
		host Host
		goos string
		file string
		want string
	}{
		{HostClaudeDesktop, "linux", "config/Claude/claude_desktop_config.json",
			"{\n  \"mcpServers\": {\n    \"demo\": {\n      \"command\": \"elicitty\",\n      \"args\": [\n        \"proxy\",\n        \"--no-imports\",\n        \"demo\"\n      ]\n    }\n  }\n}\n"},
		{HostClaudeDesktop, "darwin", "home/Library/Application Support/Claude/claude_desktop_config.json", ""},
		{HostVSCode, "linux", "config/Code/User/mcp.json",
			"{\n  \"servers\": {\n    \"demo\": {\n      \"type\": \"stdio\",\n      \"command\": \"elicitty\",\n      \"args\": [\n        \"proxy\",\n        \"--no-imports\",\n        \"demo\"\n      ]\n    }\n  }\n}\n"},
		{HostCursor, "linux", "home/.cursor/mcp.json", ""},
		{HostClaudeCode, "linux", "home/.claude.json", ""},
		{HostWindsurf, "linux", "home/.codeium/windsurf/mcp_config.json", ""},
		{HostGeminiCLI, "linux", "home/.gemini/settings.json", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.host)+"/"+tt.goos, func(t *testing.T) {
			o, root := layout(t, nil, nil)
			in, err := o.PlanInstall(InstallOptions{Host: tt.host, Name: "demo", Command: "elicitty", Own: true, GOOS: tt.goos})
			if err != nil {
				t.Fatal(err)
			}
			if !in.Create || in.Action != InstallAdd {
				t.Errorf("Create = %v, Action = %v; want a new file with an added entry", in.Create, in.Action)
			}
			if got := rel(root, in.File.Path); got != "$ROOT/"+tt.file {
				t.Errorf("file = %s, want $ROOT/%s", got, tt.file)
			}
			backup, err := in.Write(time.Now())
			if err != nil || backup != "" {
				t.Fatalf("Write = %q, %v; want no backup of a new file", backup, err)
			}
			got, err := os.ReadFile(in.File.Path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("new file:\n%s\nwant:\n%s", got, tt.want)
			}
			st, _ := os.Stat(in.File.Path)
			if st.Mode().Perm() != 0o600 {
				t.Errorf("new file mode %v, want 0600", st.Mode().Perm())
			}
			cfg, err := Load(o)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := cfg.Lookup("demo"); !ok || s.Command != "elicitty" {
				t.Errorf("the new file does not load: %+v %v", s, cfg.Problems)
			}
		})
	}
}

func TestInstallWindowsUserFile(t *testing.T) {
	o, root := layout(t, nil, nil)
	appData := filepath.Join(root, "home", "AppData", "Roaming")
	o.Getenv = mapEnv(map[string]string{"APPDATA": appData})
	for host, want := range map[Host]string{
		HostClaudeDesktop: filepath.Join(appData, "Claude", "claude_desktop_config.json"),
		HostVSCode:        filepath.Join(appData, "Code", "User", "mcp.json"),
	} {
		in, err := o.PlanInstall(InstallOptions{Host: host, Name: "demo", Command: "elicitty", Own: true, GOOS: "windows"})
		if err != nil {
			t.Fatal(err)
		}
		if in.File.Path != want {
			t.Errorf("%s on Windows: file %s, want %s", host, in.File.Path, want)
		}
	}
}

func TestInstallRefuses(t *testing.T) {
	t.Run("unparsable", func(t *testing.T) {
		o, _, _ := installFixture(t, "broken")
		file := filepath.Join(o.HomeDir, ".cursor", "mcp.json")
		before, _ := os.ReadFile(file)
		for _, own := range []bool{false, true} {
			_, err := o.PlanInstall(InstallOptions{Host: HostCursor, Name: "a", Command: "elicitty", Own: own})
			if err == nil || !strings.Contains(err.Error(), "cannot parse") || !strings.Contains(err.Error(), "mcp.json:") {
				t.Errorf("own=%v: err = %v, want cannot parse with the file and line", own, err)
			}
		}
		if after, _ := os.ReadFile(file); string(after) != string(before) {
			t.Error("the unparsable file was changed")
		}
		if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 1 {
			t.Errorf("files next to it: %v, want none", entries)
		}
	})
	t.Run("unknown server", func(t *testing.T) {
		o, _, _ := installFixture(t, "cursor_inline")
		_, err := o.PlanInstall(InstallOptions{Host: HostCursor, Name: "nope", Command: "elicitty"})
		var ne *NoEntryError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), "linear, shared") {
			t.Errorf("err = %v, want a NoEntryError naming the host's servers", err)
		}
	})
	t.Run("headers", func(t *testing.T) {
		o, _, _ := installFixture(t, "vscode")
		_, err := o.PlanInstall(InstallOptions{Host: HostVSCode, Name: "github", Command: "elicitty"})
		if err == nil || !strings.Contains(err.Error(), "headers (Authorization)") {
			t.Errorf("err = %v, want a refusal naming the headers", err)
		}
	})
	t.Run("not an object", func(t *testing.T) {
		o, _ := layout(t, map[string]string{"home/.gemini/settings.json": `{"mcpServers": []}`}, nil)
		_, err := o.PlanInstall(InstallOptions{Host: HostGeminiCLI, Name: "demo", Command: "elicitty", Own: true})
		if err == nil || !strings.Contains(err.Error(), "mcpServers: must be an object") {
			t.Errorf("err = %v, want mcpServers must be an object", err)
		}
	})
	t.Run("changed meanwhile", func(t *testing.T) {
		o, _, _ := installFixture(t, "windsurf")
		in, err := o.PlanInstall(InstallOptions{Host: HostWindsurf, Name: "figma", Command: "elicitty"})
		if err != nil {
			t.Fatal(err)
		}
		file := in.File.Path
		if err := os.WriteFile(file, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Write(time.Now()); err == nil || !strings.Contains(err.Error(), "changed since") {
			t.Errorf("Write = %v, want changed since it was read", err)
		}
		if got, _ := os.ReadFile(file); string(got) != `{"mcpServers": {}}` {
			t.Errorf("file = %s, want it left alone", got)
		}
	})
}

func TestInstallAlreadyWrapped(t *testing.T) {
	o, _, _ := installFixture(t, "wrapped")
	in, err := o.PlanInstall(InstallOptions{Host: HostGeminiCLI, Name: "api", Command: "/usr/local/bin/elicitty"})
	if err != nil {
		t.Fatal(err)
	}
	if in.Action != InstallWrapped {
		t.Errorf("action = %v, want InstallWrapped", in.Action)
	}
	// Another elicitty (a bare "elicitty" an earlier version wrote, a binary since
	// moved): the command is repointed, the rest is left as it is.
	in, err = o.PlanInstall(InstallOptions{Host: HostGeminiCLI, Name: "api", Command: "/home/ada/go/bin/elicitty"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"command":"/home/ada/go/bin/elicitty","args":["proxy","--","python","-m","server"]}`
	if in.Action != InstallRepoint || string(in.EntryJSON()) != want {
		t.Errorf("action %v, entry %s; want InstallRepoint, %s", in.Action, in.EntryJSON(), want)
	}
}

func TestInstallFollowsSymlink(t *testing.T) {
	o, root, want := installFixture(t, "windsurf")
	file := filepath.Join(o.HomeDir, ".codeium", "windsurf", "mcp_config.json")
	real := filepath.Join(root, "dotfiles", "mcp_config.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, file); err != nil {
		t.Fatal(err)
	}
	in, err := o.PlanInstall(InstallOptions{Host: HostWindsurf, Name: "figma", Command: "elicitty"})
	if err != nil {
		t.Fatal(err)
	}
	backup, err := in.Write(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(file); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	got, _ := os.ReadFile(real)
	if string(got) != want["home/.codeium/windsurf/mcp_config.json"] {
		t.Errorf("linked file:\n%s", got)
	}
	if filepath.Dir(backup) != filepath.Dir(real) {
		t.Errorf("backup %s, want it next to the linked file", backup)
	}
}

func TestParseHost(t *testing.T) {
	for in, want := range map[string]Host{
		"claude-desktop": HostClaudeDesktop, "Claude_Desktop": HostClaudeDesktop, "claude-code": HostClaudeCode,
		"cursor": HostCursor, "code": HostVSCode, "VSCode": HostVSCode, "windsurf": HostWindsurf,
		"gemini": HostGeminiCLI, "gemini-cli": HostGeminiCLI,
	} {
		if got, err := ParseHost(in); err != nil || got != want {
			t.Errorf("ParseHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"claude", "codex", "", "emacs"} {
		if _, err := ParseHost(bad); err == nil || !strings.Contains(err.Error(), "claude-desktop") {
			t.Errorf("ParseHost(%q) = %v, want an error listing the hosts", bad, err)
		}
	}
}

func TestIsProxy(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		args []string
		want bool
	}{
		{"elicitty", []string{"proxy", "--", "npx"}, true},
		{`C:\bin\Elicitty.exe`, []string{"--no-imports", "proxy", "x"}, true},
		{"/opt/e", []string{"proxy", "x"}, true}, // the running executable
		{"elicitty", []string{"serve-demo"}, false},
		{"npx", []string{"proxy"}, false},
		{"elicitty", []string{"call", "--", "proxy"}, false},
	} {
		if got := isProxy(tt.cmd, tt.args, "/opt/e"); got != tt.want {
			t.Errorf("isProxy(%q, %q) = %v, want %v", tt.cmd, tt.args, got, tt.want)
		}
	}
}

func TestInstallKeepsCRLF(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		opts    InstallOptions
	}{
		{"claude_desktop", InstallOptions{Host: HostClaudeDesktop, Name: "weather"}},
		{"vscode_add", InstallOptions{Host: HostVSCode, Name: "demo", Own: true}},
		{"gemini_trailing", InstallOptions{Host: HostGeminiCLI, Name: "demo", Own: true}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			o, root, want := installFixture(t, tt.fixture)
			crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
			var file, wantFile string
			for p, w := range want {
				if p != "entry" {
					file, wantFile = filepath.Join(root, p), crlf(w)
				}
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(crlf(string(data))), 0o600); err != nil {
				t.Fatal(err)
			}
			tt.opts.Command = "elicitty"
			in, err := o.PlanInstall(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := in.Write(time.Now()); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(file)
			if diff := cmp.Diff(wantFile, string(got)); diff != "" {
				t.Errorf("CRLF file (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzInstall: whatever the host's file holds, an install that is planned leaves a file
// the loader parses, with the entry in it and every other server as it was.
func FuzzInstall(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "install"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		for name, body := range txtar(f, filepath.Join("testdata", "install", e.Name())) {
			if strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, "want ") {
				f.Add(body, "demo")
				f.Add(body, "a")
			}
		}
	}
	f.Fuzz(func(t *testing.T, body, name string) {
		if name == "" {
			return
		}
		o, _ := layout(t, map[string]string{"home/.gemini/settings.json": body}, nil)
		in, err := o.PlanInstall(InstallOptions{Host: HostGeminiCLI, Name: name, Command: "elicitty", Own: true})
		if err != nil {
			return
		}
		before, _ := parse("x", []byte(body), formatGemini)
		after, err := parse("x", in.after, formatGemini)
		if err != nil {
			t.Fatalf("the edited file does not parse: %v\n%s", err, in.after)
		}
		afterServers := after.At("mcpServers")
		if afterServers == nil || !afterServers.Has(name) {
			t.Fatalf("entry %q missing after the edit:\n%s", name, in.after)
		}
		if before == nil || before.Kind != tree.KindObject {
			return
		}
		if bs := before.At("mcpServers"); bs != nil && bs.Kind == afterServers.Kind {
			for i, k := range bs.Keys {
				if k == name {
					continue
				}
				got := afterServers.At(k)
				if got == nil {
					t.Fatalf("server %q went:\n%s", k, in.after)
				}
				a, _ := got.MarshalJSON()
				b, _ := bs.Values[i].MarshalJSON()
				if string(a) != string(b) {
					t.Fatalf("server %q changed or went:\n%s", k, in.after)
				}
			}
		}
	})
}
