package consent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit"
)

func TestBrowserOpenerNoBrowser(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		none bool
	}{
		{"linux without display", "linux", nil, true},
		{"linux with X", "linux", map[string]string{"DISPLAY": ":0"}, false},
		{"linux with wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false},
		{"ssh with display forwarding", "linux", map[string]string{"DISPLAY": "localhost:10", "SSH_CONNECTION": "1 2 3 4"}, true},
		{"ssh on macOS", "darwin", map[string]string{"SSH_TTY": "/dev/ttys001"}, true},
		{"macOS", "darwin", nil, false},
		{"windows", "windows", nil, false},
		{"BROWSER over ssh", "linux", map[string]string{"BROWSER": "w3m", "SSH_CONNECTION": "1 2 3 4"}, false},
		{"freebsd without display", "freebsd", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBrowserOpenerWith(&BrowserOptions{GOOS: tt.goos, Getenv: func(k string) string { return tt.env[k] }})
			if got := b.noBrowser() != ""; got != tt.none {
				t.Errorf("no browser = %v, want %v (%q)", got, tt.none, b.noBrowser())
			}
			if tt.none {
				err := b.Open(context.Background(), "https://example.com/")
				var nb *NoBrowserError
				if !errors.Is(err, ErrNoBrowser) || !errors.As(err, &nb) || nb.Reason == "" {
					t.Errorf("Open = %v, want a *NoBrowserError", err)
				}
			}
		})
	}
}

func TestCommandOpener(t *testing.T) {
	testkit.External(t, "sh")
	file := filepath.Join(t.TempDir(), "opened")
	// sh -c SCRIPT FILE URL: $0 is the file, $1 the URL appended by the opener.
	c := &CommandOpener{Path: "sh", Args: []string{"-c", `printf %s "$1" > "$0"; echo noise; echo noise >&2`, file}}
	u := "https://auth.example.com/link?s=a&b=c"
	if err := c.Open(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != u {
		t.Errorf("opener got %q, want %q", got, u)
	}

	fail := &CommandOpener{Path: "sh", Args: []string{"-c", "exit 3"}}
	if err := fail.Open(context.Background(), u); err == nil {
		t.Error("failing opener returned nil")
	}
	missing := &CommandOpener{Path: "elicitty-no-such-opener"}
	if err := missing.Open(context.Background(), u); err == nil {
		t.Error("missing opener returned nil")
	}
}

func TestParseCommandAndEnv(t *testing.T) {
	c, err := ParseCommand("  my-open --new-tab %s --flag ")
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "my-open" || len(c.Args) != 3 || c.Args[1] != "%s" {
		t.Errorf("ParseCommand = %+v", c)
	}
	if _, err := ParseCommand("   "); err == nil {
		t.Error("empty command accepted")
	}
	if err := NewCommandOpener("").Open(context.Background(), "https://example.com/"); err == nil {
		t.Error("empty NewCommandOpener opened")
	}
	op, err := OpenerFromEnv(func(k string) string {
		if k == "ELICITTY_OPENER" {
			return "fake-open -q"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if co, ok := op.(*CommandOpener); !ok || co.Path != "fake-open" {
		t.Errorf("OpenerFromEnv = %#v, want the command opener", op)
	}
	op, _ = OpenerFromEnv(func(string) string { return "" })
	if _, ok := op.(*BrowserOpener); !ok {
		t.Errorf("OpenerFromEnv without ELICITTY_OPENER = %T, want *BrowserOpener", op)
	}
}

func TestCommandOpenerPlaceholder(t *testing.T) {
	testkit.External(t, "sh")
	file := filepath.Join(t.TempDir(), "opened")
	// "%s" is replaced by the URL, which then is $0; nothing is appended after it.
	c := &CommandOpener{Path: "sh", Args: []string{"-c", `printf '%s|%s' "$0" "$#" > ` + file, "%s"}}
	u := "https://auth.example.com/x"
	if err := c.Open(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := u + "|0"; string(got) != want {
		t.Errorf("opener got %q, want %q", got, want)
	}
}

// TestOpenerPathWithSpaces: $ELICITTY_OPENER and $BROWSER may name a program whose path
// has spaces, quoted or escaped as in a shell; the program gets the URL.
func TestOpenerPathWithSpaces(t *testing.T) {
	testkit.External(t, "sh")
	dir := filepath.Join(t.TempDir(), "My Opener")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "open it")
	// The script writes its arguments, one per line, next to itself.
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args\"\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	escaped := strings.ReplaceAll(prog, " ", `\ `)
	u := "https://auth.example.com/x?a=1&b=2"
	for _, tc := range []struct{ name, env, value string }{
		{"double quotes", "ELICITTY_OPENER", `"` + prog + `" --new-tab`},
		{"single quotes", "ELICITTY_OPENER", `'` + prog + `' --new-tab`},
		{"backslashes", "ELICITTY_OPENER", escaped + ` --new-tab`},
		{"BROWSER", "BROWSER", `"` + prog + `" --new-tab:other-browser`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(dir, "args"))
			env := func(k string) string {
				if k == tc.env {
					return tc.value
				}
				return ""
			}
			op, err := OpenerFromEnv(env)
			if err != nil {
				t.Fatal(err)
			}
			if err := op.Open(context.Background(), u); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "args"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "--new-tab\n" + u + "\n"; string(got) != want {
				t.Errorf("opener got arguments %q, want %q", got, want)
			}
		})
	}
}

// TestParseCommandRunsNothing: the command line is split, never interpreted by a shell.
func TestParseCommandRunsNothing(t *testing.T) {
	c, err := ParseCommand(`open $HOME "$(id)" ` + "`id`")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"$HOME", "$(id)", "`id`"}; !slices.Equal(c.Args, want) {
		t.Errorf("args = %q, want %q kept as written", c.Args, want)
	}
	for _, bad := range []string{"open; rm -rf x", "open | tee", `open "unterminated`} {
		if _, err := ParseCommand(bad); err == nil {
			t.Errorf("ParseCommand(%q) accepted", bad)
		}
	}
}
