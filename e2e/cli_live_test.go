package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/internal/cli"
)

// TestRootsCommand: the roots declared are the working directory, --root flags and
// the config's roots:, each once; --no-roots declares none; a bad --root is a usage error.
func TestRootsCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	body := "servers:\n  mine:\n    command: " + strconv.Quote(bin) + "\n    args: [serve-demo]\n    roots: [sub, \"file:///srv/data\"]\n    logLevel: warning\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinIn(t, dir, nil, "roots", "mine", "--config", cfg, "--root", "/opt/x", "--root", dir, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got struct {
		Declared bool `json:"declared"`
		Roots    []struct{ URI, Name string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	var uris []string
	for _, rt := range got.Roots {
		uris = append(uris, rt.URI)
	}
	d := "file://" + filepath.ToSlash(dir)
	if diff := cmp.Diff([]string{d, "file:///opt/x", d + "/sub", "file:///srv/data"}, uris); diff != "" || !got.Declared {
		t.Errorf("roots (-want +got), declared %v:\n%s", got.Declared, diff)
	}

	r = runBinIn(t, dir, nil, "roots", "mine", "--config", cfg, "--no-roots")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no roots are declared to mine") {
		t.Errorf("--no-roots: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"roots", "demo", "--root", "https://example.com/x"},
		{"roots", "demo", "--root", "/a", "--no-roots"},
		{"tools", "demo", "--log-level", "loud"},
	} {
		if r := runBin(t, nil, args...); r.code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, cli.ExitUsage, r.stderr)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("servers:\n  b:\n    url: http://127.0.0.1:9/mcp\n    logLevel: loud\n    roots: [\"https://x\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinIn(t, dir, nil, "roots", "b", "--config", bad)
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "logLevel") || !strings.Contains(r.stderr, "roots[0]") {
		t.Errorf("bad config: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestDemoRootsBothEras: the demo's list_roots lists what elicitty declares, pushed as
// roots/list in 2025-11-25 and as an input request in 2026-07-28.
func TestDemoRootsBothEras(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			dir := t.TempDir()
			r := runBinIn(t, dir, nil, "call", "demo", "list_roots", "--root", "/srv/shared", "--protocol", era)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// go-sdk answers roots/list in URI order; the input request keeps ours.
			for _, want := range []string{"file://" + filepath.ToSlash(dir) + "\n", "file:///srv/shared\n"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("list_roots printed:\n%s\nwant a line %q", r.stdout, want)
				}
			}
			r = runBinIn(t, dir, nil, "call", "demo", "list_roots", "--no-roots", "--protocol", era)
			if r.code != cli.ExitToolError || !strings.Contains(r.stdout, "no roots capability") {
				t.Errorf("--no-roots: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestWatchCommand: watch prints the demo's ticker, then again at each update, and the
// server's debug log lines on stderr.
func TestWatchCommand(t *testing.T) {
	r := runBin(t, nil, "watch", "demo", "demo://ticker", "--updates", "2", "--log-level", "debug")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "== demo://ticker"); n != 3 || strings.Count(r.stdout, " updated ") != 2 {
		t.Errorf("want the first read and 2 updates:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "log debug [demo] read demo://ticker at tick") {
		t.Errorf("no server log on stderr:\n%s", r.stderr)
	}
	r = runBin(t, nil, "watch", "demo")
	if r.code != cli.ExitUsage {
		t.Errorf("watch without a URI: exit %d", r.code)
	}
}

// TestCallShowsServerLogs: with --log-level a headless call prints the server's log
// messages at that level and above on stderr, and no others.
func TestCallShowsServerLogs(t *testing.T) {
	r := runBin(t, nil, "call", "demo", "log_messages", "--log-level", "error")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, l := range []string{"error", "critical", "alert", "emergency"} {
		if !strings.Contains(r.stderr, "log "+l+" [demo] log_messages at level "+l) {
			t.Errorf("stderr lacks the %s message:\n%s", l, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "at level warning") {
		t.Errorf("a message below the level was shown:\n%s", r.stderr)
	}
	if r := runBin(t, nil, "call", "demo", "log_messages"); strings.Contains(r.stderr, "log_messages at level") {
		t.Errorf("without --log-level the server logs nothing, yet:\n%s", r.stderr)
	}
}
