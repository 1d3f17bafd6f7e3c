package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuiltinLayer checks that a built-in server is a target on an empty machine, is
// not a configured server, and gives way to a config entry of the same name (also to a
// broken one, whose problem is then reported instead of silently using the built-in).
func TestBuiltinLayer(t *testing.T) {
	demo := Server{Name: "demo", Kind: KindStdio, Command: "/bin/elicitty", Args: []string{"serve-demo"}}
	load := func(t *testing.T, own string) Config {
		t.Helper()
		dir := t.TempDir()
		opts := LoadOptions{HomeDir: dir, ConfigDir: dir, WorkDir: dir, NoImports: true,
			Getenv: func(string) string { return "" }, Builtin: []Server{demo}}
		if own != "" {
			opts.Path = filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(opts.Path, []byte(own), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	c := load(t, "")
	if len(c.Servers) != 0 {
		t.Errorf("built-in servers are not configured ones: Servers = %v", c.Names())
	}
	got, err := ParseTarget("demo", c)
	if err != nil || got.Command != "/bin/elicitty" {
		t.Errorf("ParseTarget(demo) on an empty machine = %+v, %v; want the built-in demo", got, err)
	}
	if _, err := ParseTarget("nope", c); err == nil || err.Error() != `unknown server "nope" (known: demo)` {
		t.Errorf("unknown name: %v", err)
	}

	c = load(t, "servers:\n  demo:\n    command: my-demo\n")
	if got, _ := ParseTarget("demo", c); got.Command != "my-demo" {
		t.Errorf("a user's own demo entry must win over the built-in one, got %+v", got)
	}
	if len(c.Builtin) != 0 {
		t.Errorf("Builtin = %v, want none once the config names demo", c.Builtin)
	}
}
