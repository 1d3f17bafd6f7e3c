//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/testkit/endless"
)

// loadWithin runs Load and fails the test when it has not returned within 10 s.
func loadWithin(t *testing.T, opts LoadOptions) (Config, error) {
	t.Helper()
	var cfg Config
	err := endless.Within(t, 10*time.Second, "Load", func() error {
		var err error
		cfg, err = Load(opts)
		return err
	})
	return cfg, err
}

// problemOf returns the problem of the file source.
func problemOf(t *testing.T, cfg Config, source string) error {
	t.Helper()
	for _, p := range cfg.Problems {
		if p.Source == source {
			return p.Err
		}
	}
	t.Fatalf("no problem for %s; problems: %v", source, cfg.Problems)
	return nil
}

// The shadow-like content of a file that is not ours to show.
const secretContent = "root:$6$SALT$verysecrethash:19000:0:99999:7:::\n"

func TestLoadRefusesSpecialFiles(t *testing.T) {
	opts, root := layout(t, map[string]string{"home/.cursor/mcp.json": `{"mcpServers": {"mine": {"command": "m"}}}`}, nil)
	work := filepath.Join(root, "work")
	endless.Zero(t, filepath.Join(work, ".mcp.json"))
	if err := os.MkdirAll(filepath.Join(work, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	endless.Fifo(t, filepath.Join(work, ".vscode", "mcp.json"))
	codex := filepath.Join(root, "home", ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(codex), 0o755); err != nil {
		t.Fatal(err)
	}
	endless.Zero(t, codex)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cfg, err := loadWithin(t, opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("Load allocated %d MiB", grew>>20)
	}
	for file, want := range map[string]string{
		filepath.Join(work, ".mcp.json"):           "is a symlink to a character device, not a regular file",
		filepath.Join(work, ".vscode", "mcp.json"): "is a named pipe (FIFO), not a regular file",
		codex: "is a symlink to a character device, not a regular file",
	} {
		err := problemOf(t, cfg, file)
		if !errors.Is(err, boundedfile.ErrNotRegular) || err.Error() != file+" "+want {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	if _, ok := cfg.Lookup("mine"); !ok {
		t.Error("the other files' servers are gone")
	}

	// Our own file a FIFO: an error, not a hang.
	opts.Path = endless.Fifo(t, filepath.Join(root, "own.yaml"))
	if _, err := loadWithin(t, opts); !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("own file a FIFO: %v, want ErrNotRegular", err)
	}
}

func TestLoadBoundsSizeAndNesting(t *testing.T) {
	opts, root := layout(t, nil, nil)
	work := filepath.Join(root, "work")
	write := func(p, data string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write(filepath.Join(work, ".mcp.json"), `{"mcpServers": {}}`+strings.Repeat(" ", MaxFileSize))
	tenMB := write(filepath.Join(work, ".cursor", "mcp.json"), strings.Repeat("[", 10<<20))
	deepJSONC := write(filepath.Join(work, ".vscode", "mcp.json"), "// deep\n"+strings.Repeat("[", 3<<20))
	deepTOML := write(filepath.Join(root, "home", ".codex", "config.toml"), "[mcp_servers.x]\nargs = "+strings.Repeat("[", 3<<20))
	cfg, err := loadWithin(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		big:       big + " is larger than 4 MiB",
		tenMB:     tenMB + " is larger than 4 MiB",
		deepJSONC: deepJSONC + ":2: arrays or objects nest more than 1000 levels deep",
		deepTOML:  deepTOML + ":2: arrays or objects nest more than 1000 levels deep",
	} {
		if err := problemOf(t, cfg, file); err.Error() != want {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	own := write(filepath.Join(root, "own.yaml"), "servers:\n  x: {args: "+strings.Repeat("[", 2<<20)+"}\n")
	opts.Path = own
	if _, err := loadWithin(t, opts); err == nil || err.Error() != own+":2: arrays or objects nest more than 1000 levels deep" {
		t.Errorf("deep own YAML: %v", err)
	}
}

func TestLoadQuotesNothingOfAFileOutside(t *testing.T) {
	opts, root := layout(t, nil, nil)
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte(secretContent), 0o600); err != nil {
		t.Fatal(err)
	}
	outsideJSON := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(outsideJSON, []byte(`{"mcpServers": {"s": {"type": "verysecrethash", "command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		filepath.Join(root, "work", ".mcp.json"):             outside,
		filepath.Join(root, "work", ".cursor/mcp.json"):      outsideJSON,
		filepath.Join(root, "home", ".gemini/settings.json"): outside,
	}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	trustWork(t, opts) // trusted or not, nothing of it is quoted
	cfg2, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{cfg, cfg2} {
		for link := range links {
			err := problemOf(t, c, link)
			if strings.Contains(err.Error(), "verysecret") || strings.Contains(err.Error(), "root:") {
				t.Errorf("%s: the error quotes the file: %v", link, err)
			}
			if !strings.Contains(err.Error(), "not a valid config file") {
				t.Errorf("%s: %v, want it to say the file is not a valid config", link, err)
			}
		}
	}
	// Our own file, linked outside its folder.
	link := filepath.Join(root, "config", "elicitty", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	_, err = Load(opts)
	if err == nil || strings.Contains(err.Error(), "verysecret") || strings.Contains(err.Error(), "root:$6") {
		t.Errorf("own file linked to a secret: %v", err)
	}
	if err != nil && !strings.Contains(err.Error(), "not a valid config file") {
		t.Errorf("own file linked to a secret: %v, want it to say it is not a valid config", err)
	}
	// A link inside the folder is ours to show.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "config", "elicitty", "real.yaml")
	if err := os.WriteFile(inside, []byte("servers:\n  x: {type: bogus, command: c}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), `unknown type "bogus"`) {
		t.Errorf("own file linked inside its folder: %v, want its error in full", err)
	}
}
