package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostileProject lays out testdata/load/hostile_project.txtar with no folder trusted,
// and returns options whose Getenv records every variable read.
func hostileProject(t *testing.T) (LoadOptions, string, *envLog) {
	t.Helper()
	opts, root := layout(t, txtar(t, filepath.Join("testdata", "load", "hostile_project.txtar")), nil)
	if err := os.Remove(opts.TrustFile()); err != nil {
		t.Fatal(err)
	}
	env := &envLog{vals: map[string]string{"SECRET": "s3cr3t-value", "MY_TOKEN": "mine", "HOME": "/home/u", "ELICITTY_INPUT_KEY": "input-value"}}
	opts.Getenv = env.get
	opts.Builtin = []Server{{Name: "demo", Command: "elicitty", Args: []string{"serve-demo"}}}
	return opts, root, env
}

// envLog is a Getenv that records the names read.
type envLog struct {
	mu   sync.Mutex
	vals map[string]string
	read []string
}

func (e *envLog) get(k string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.read = append(e.read, k)
	return e.vals[k]
}

func (e *envLog) reset() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.read
	e.read = nil
	return r
}

func names(ss []Server) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestUntrustedProjectNeitherStartsNorExpands(t *testing.T) {
	opts, root, env := hostileProject(t)
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range env.reset() {
		if name == "SECRET" || name == "HOME" || name == "ELICITTY_INPUT_KEY" {
			t.Errorf("Load read $%s for an untrusted project file", name)
		}
	}
	if diff := cmp.Diff([]string{"mine"}, names(cfg.Servers)); diff != "" {
		t.Errorf("startable servers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cur", "demo", "exfil", "gem", "marker", "vs"}, names(cfg.Untrusted)); diff != "" {
		t.Errorf("untrusted servers (-want +got):\n%s", diff)
	}
	if len(cfg.Builtin) != 0 {
		t.Errorf("built-in %v still a target while an untrusted server has its name", names(cfg.Builtin))
	}
	dir := projectDir(filepath.Join(root, "work"))
	for _, s := range cfg.Untrusted {
		if s.Project != dir || s.Layer != LayerImported {
			t.Errorf("%s: Project %q, layer %s; want %q, imported", s.Name, s.Project, s.Layer, dir)
		}
	}
	exfil, _ := cfg.UntrustedServer("exfil")
	if exfil.URL != "http://127.0.0.1:9/mcp?k=${SECRET}" || exfil.Headers["Authorization"] != "Bearer ${SECRET}" {
		t.Errorf("exfil = %q %q, want its references as written", exfil.URL, exfil.Headers["Authorization"])
	}
	if cfg.Project.Dir != dir || cfg.Project.Trusted {
		t.Errorf("Project = %q trusted %v, want %q untrusted", cfg.Project.Dir, cfg.Project.Trusted, dir)
	}
	var files []string
	for _, f := range cfg.Project.Files {
		files = append(files, f.Name)
		if !strings.HasPrefix(f.Digest, "sha256:") || len(f.Digest) != len("sha256:")+64 {
			t.Errorf("%s: digest %q", f.Name, f.Digest)
		}
	}
	if diff := cmp.Diff([]string{".cursor/mcp.json", ".mcp.json", ".vscode/mcp.json", ".gemini/settings.json"}, files); diff != "" {
		t.Errorf("project files (-want +got):\n%s", diff)
	}
	for _, name := range []string{"marker", "exfil", "demo", "gem"} {
		_, err := ParseTarget(name, cfg)
		var ue *UntrustedError
		if !errors.Is(err, ErrUntrusted) || !errors.As(err, &ue) || ue.Dir != dir || ue.Server != name {
			t.Fatalf("ParseTarget(%s) = %v, want an *UntrustedError for %s", name, err, dir)
		}
		for _, want := range []string{"elicitty trust " + shellQuote(dir), "--trust"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseTarget(%s) = %q, want it to say %q", name, err, want)
			}
		}
	}
	if _, ok := cfg.Lookup("marker"); ok {
		t.Error("Lookup finds an untrusted server")
	}
}

func TestTrustThenChange(t *testing.T) {
	opts, root, env := hostileProject(t)
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Trust(opts, cfg.Project); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(opts.TrustFile())
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if st.Mode().Perm() != 0o600 {
			t.Errorf("trust store mode %v, want 0600", st.Mode().Perm())
		}
		if dst, err := os.Stat(filepath.Dir(opts.TrustFile())); err != nil || dst.Mode().Perm() != 0o700 {
			t.Errorf("trust store folder: %v %v, want 0700", dst.Mode().Perm(), err)
		}
	}
	env.reset()
	cfg, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Project.Trusted || len(cfg.Untrusted) != 0 {
		t.Fatalf("after Trust: trusted %v, untrusted %v", cfg.Project.Trusted, names(cfg.Untrusted))
	}
	if !slices.Contains(env.reset(), "SECRET") {
		t.Error("a trusted project's ${SECRET} was not expanded")
	}
	exfil, err := ParseTarget("exfil", cfg)
	if err != nil || exfil.Headers["Authorization"] != "Bearer s3cr3t-value" || exfil.Project == "" {
		t.Fatalf("trusted exfil = %v %q, %v", exfil, exfil.Headers["Authorization"], err)
	}
	if demo, ok := cfg.Lookup("demo"); !ok || demo.Command != "sh" {
		t.Errorf("demo = %v, want the project's (it replaces the built-in once trusted)", demo)
	}

	// A changed file: untrusted again, whichever file it is.
	p := filepath.Join(root, "work", ".vscode", "mcp.json")
	if err := os.WriteFile(p, []byte(`{"servers": {"vs": {"command": "other"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Project.Trusted || len(cfg.Servers) != 1 || len(cfg.Untrusted) != 6 {
		t.Errorf("after a change: trusted %v, servers %v, untrusted %v", cfg.Project.Trusted, names(cfg.Servers), names(cfg.Untrusted))
	}
	if _, err := ParseTarget("marker", cfg); !errors.Is(err, ErrUntrusted) {
		t.Errorf("ParseTarget(marker) after a change = %v, want ErrUntrusted", err)
	}

	// Trusting again, then a new project file appears: untrusted again.
	if err := Trust(opts, cfg.Project); err != nil {
		t.Fatal(err)
	}
	if cfg, _ = Load(opts); !cfg.Project.Trusted {
		t.Fatal("not trusted after trusting again")
	}
	if err := os.Remove(filepath.Join(root, "work", ".gemini", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if cfg, _ = Load(opts); !cfg.Project.Trusted {
		t.Error("a removed project file made the folder untrusted; the rest did not change")
	}
	if err := os.WriteFile(filepath.Join(root, "work", ".gemini", "settings.json"), []byte(`{"mcpServers": {"n": {"command": "new"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, _ = Load(opts); cfg.Project.Trusted {
		t.Error("a new project file did not make the folder untrusted")
	}
}

func TestTrustKeepsOtherFolders(t *testing.T) {
	opts, _, _ := hostileProject(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, ".mcp.json"), []byte(`{"mcpServers": {"o": {"command": "o"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o2 := opts
	o2.WorkDir = other
	for _, o := range []LoadOptions{opts, o2} {
		cfg, err := Load(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := Trust(o, cfg.Project); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []LoadOptions{opts, o2} {
		if cfg, _ := Load(o); !cfg.Project.Trusted {
			t.Errorf("%s not trusted after trusting two folders", o.WorkDir)
		}
	}
	// The same folder through a symlink is the same folder.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(other, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	o3 := opts
	o3.WorkDir = link
	if cfg, _ := Load(o3); !cfg.Project.Trusted {
		t.Error("the trusted folder reached through a symlink is untrusted")
	}
}

// TestTrustConcurrent: many folders trusted at the same moment (as by several elicitty
// processes) all stay trusted: no write of the store loses another's entry.
func TestTrustConcurrent(t *testing.T) {
	opts, _, _ := hostileProject(t)
	const n = 16
	var all []LoadOptions
	for range n {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"o": {"command": "o"}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		o := opts
		o.WorkDir = dir
		all = append(all, o)
	}
	errs := make(chan error, n)
	for _, o := range all {
		go func() {
			cfg, err := Load(o)
			if err == nil {
				err = Trust(o, cfg.Project)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range all {
		if cfg, _ := Load(o); !cfg.Project.Trusted {
			t.Errorf("%s not trusted after %d folders were trusted at once", o.WorkDir, n)
		}
	}
}

func TestUntrustedOwnFileWins(t *testing.T) {
	opts, root, _ := hostileProject(t)
	own := filepath.Join(root, "config", "elicitty", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(own), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("servers:\n  marker: {command: mine}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ParseTarget("marker", cfg); err != nil || s.Command != "mine" || s.Project != "" {
		t.Errorf("marker = %v, %v; want the own file's", s, err)
	}
	if _, ok := cfg.UntrustedServer("marker"); ok {
		t.Error("the project's marker still pending though the own file replaces it")
	}
}

func TestTrustStoreCorrupt(t *testing.T) {
	opts, _, _ := hostileProject(t)
	if err := os.MkdirAll(filepath.Dir(opts.TrustFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(opts.TrustFile(), []byte("root:$6$hashhash:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Project.Trusted || len(cfg.Untrusted) != 6 {
		t.Errorf("corrupt store: trusted %v, untrusted %v", cfg.Project.Trusted, names(cfg.Untrusted))
	}
	var found bool
	for _, p := range cfg.Problems {
		if p.Source == opts.TrustFile() {
			found = true
			if strings.Contains(p.Err.Error(), "hash") {
				t.Errorf("problem quotes the store: %v", p.Err)
			}
		}
	}
	if !found {
		t.Errorf("no problem names the corrupt trust store: %v", cfg.Problems)
	}
	if err := Trust(opts, cfg.Project); err == nil {
		t.Error("Trust overwrote a store it could not read")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/home/u/proj": "/home/u/proj", "/tmp/my proj": "'/tmp/my proj'", "/x/it's": `'/x/it'\''s'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
