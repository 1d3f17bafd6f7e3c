package e2e

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestHostileEveryOutput runs every headless command that prints server text over the
// hostile server, in text and --json, and scans the raw bytes of stdout and stderr:
// no ESC, C0 but newline and tab, C1, bidi or zero-width character may be there, and
// none of the lines may be the server's. Each of these commands prints server text
// only in one-line fields here (names, URIs, MIME types, roles, annotations, completion
// values, serverInfo, log lines): a line break in one is shown escaped.
func TestHostileEveryOutput(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {}\n  action: accept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// render's input: an elicitation as the hostile server sends it, payload in every
	// string the form shows.
	params, _ := json.Marshal(map[string]any{"mode": "form", "message": "ask" + hostilePayload, "requestedSchema": map[string]any{
		"type": "object", "properties": map[string]any{
			"n" + hostilePayload: map[string]any{"type": "string", "title": hostilePayload, "description": hostilePayload, "default": "d" + hostilePayload},
			"e":                  map[string]any{"type": "string", "enum": []any{"x" + hostilePayload, "y"}, "default": "y"},
		}}})
	schema := filepath.Join(dir, "params.json")
	if err := os.WriteFile(schema, params, 0o600); err != nil {
		t.Fatal(err)
	}
	server := []string{"--", srv, "payload"}
	runs := []struct {
		args  []string
		code  int
		shows string // a line stdout must hold, when set (text output)
	}{
		{[]string{"tools"}, 0, ""},
		{[]string{"prompts"}, 0, ""},
		{[]string{"resources"}, 0, ""},
		{[]string{"read", "file:///r"}, 0, "[blob file:///r" + escapedPayload + ", 2 bytes, " + escapedPayload + "]\n"},
		{[]string{"watch", "file:///r", "--updates", "1"}, 0, "[blob file:///r" + escapedPayload + ", 2 bytes, " + escapedPayload + "]\n"},
		{[]string{"call", "media"}, 0, "[image " + escapedPayload + ", 2 bytes]\n"},
		{[]string{"prompt", "p"}, 0, "[resource link file:///l" + escapedPayload + " " + escapedPayload + "]\n"},
		{[]string{"complete", "--prompt", "p", "--arg", "a=x"}, 0, ""},
		{[]string{"tasks"}, 0, ""},
		{[]string{"doctor"}, 0, ""},
		{[]string{"call", "fail"}, cli.ExitConn, ""},
		{[]string{"render", schema, "--answers", answers}, 0, ""},
	}
	for _, jsonOut := range []bool{false, true} {
		for _, r := range runs {
			args := append([]string{}, r.args...)
			if jsonOut {
				args = append(args, "--json")
			}
			name := strings.Join(args, " ")
			if r.args[0] != "render" {
				args = append(args, server...)
			}
			m := runMeasured(t, dir, 60*time.Second, args...)
			if m.code != r.code {
				t.Errorf("%s: exit %d, want %d\nstdout: %.3000s\nstderr: %.3000s", name, m.code, r.code, m.stdout, m.stderr)
			}
			scanRaw(t, name+": stdout", m.stdout)
			if want := r.shows; want != "" && !jsonOut && !strings.Contains(m.stdout, want) {
				t.Errorf("%s: stdout does not show %q:\n%s", name, want, m.stdout)
			}
			scanRaw(t, name+": stderr", m.stderr)
			if jsonOut && r.code == 0 && !jsonStream(m.stdout) {
				t.Errorf("%s: stdout is not JSON: %.3000q", name, m.stdout)
			}
		}
	}
	noHostileLeft(t)
}

// escapedPayload is the hostile payload as safe.Field shows it in a one-line field:
// its escape sequences and invisible characters gone, its line breaks escaped.
const escapedPayload = `Plinkevil\u2028\u2029\rCR\nelicitty: fake line`

// TestTmuxHostileResultAndLog calls the tool whose result is every kind of media
// content with the payload in each one-line field, and reads the result view and the
// Log tab: nothing raw reaches the terminal, no line is the server's.
func TestTmuxHostileResultAndLog(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{Cols: 160, Rows: 50}, "payload")
	tm.WaitFor("ready")
	scanTerm(t, tm, "tools list")
	noFakeLine(t, tm, "tools list")
	selectTool(t, tm, "media")
	tm.Keys("Enter") // no arguments, not marked read-only: it asks
	tm.WaitFor("run media now?")
	tm.Keys("y")
	tm.WaitFor("[image ", "[audio ", "[resource link ", "[embedded resource ")
	scanTerm(t, tm, "media result")
	noFakeLine(t, tm, "media result")
	// The MIME type's line breaks show escaped, for what they are.
	if screen := tm.Screen(); !strings.Contains(screen, "[image "+escapedPayload+", 2 bytes]") {
		t.Errorf("the image's MIME type is not shown escaped on its line:\n%s", screen)
	}
	tm.Keys("Tab", "Tab", "Tab")
	tm.WaitFor("Log:", "stderr line", "tools/call #6")
	scanTerm(t, tm, "Log tab")
	noFakeLine(t, tm, "Log tab")
	tm.Keys("Enter") // the last frame, the media result, in full
	tm.WaitFor(`"jsonrpc": "2.0"`)
	// The frame can be longer than the pane it opens in (how long the list above it
	// is depends on which stderr lines and notes came first): page down until its
	// first media item shows, waiting for each page so that none is skipped.
	for page := 0; ; page++ {
		screen := tm.Screen()
		if strings.Contains(screen, `"mimeType"`) {
			break
		}
		if page == 20 {
			t.Fatalf("the result frame never showed \"mimeType\":\n%s", screen)
		}
		tm.Keys("NPage")
		tm.WaitUntil("the frame's next page", false, func(s string) bool { return s != screen })
	}
	// The frame shows as JSON: the payload is there, escaped as text (\u001b...), so
	// scanTerm's markers are in it; what must not be is any of it raw.
	scanEscapedFrame(t, tm, "Log tab: the result frame")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}

// scanEscapedFrame fails when the terminal was sent any of the payload raw: its escape
// sequences, C1, bidi or zero-width characters, a title change, a clipboard write, or
// a line of the server's own. The payload's text may show escaped (a JSON view).
func scanEscapedFrame(t *testing.T, tm *tmuxTerm, what string) {
	t.Helper()
	out := tm.RawOutput()
	for _, bad := range []string{"\x1b]52", "\x1b]0;PWNED", "\x1b]8;;https://evil", "\x1bP+q"} {
		if i := strings.Index(out, bad); i >= 0 {
			t.Errorf("%s: the terminal was sent %q raw: %q", what, bad, out[max(0, i-60):min(len(out), i+40)])
		}
	}
	for i, r := range out {
		if r != '\n' && r != '\r' && r != '\t' && r != 0x1b && r != 0x07 && r != 0x08 && safe.Unsafe(r) {
			t.Errorf("%s: the terminal was sent raw %U: %q", what, r, out[max(0, i-60):min(len(out), i+40)])
			break
		}
	}
	if title := tm.Tmux("display-message", "-p", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Errorf("%s: the server changed the terminal title to %q", what, title)
	}
	if bufs := tm.Tmux("list-buffers", "-F", "#{buffer_sample}"); strings.Contains(bufs, "HIJACKED") {
		t.Errorf("%s: the server wrote the clipboard: %q", what, bufs)
	}
	noFakeLine(t, tm, what)
}

// noFakeLine fails when a line of a pane of the screen starts with the payload's
// fake line: each pane (the parts of a screen line between "│") is its own column
// of lines.
func noFakeLine(t *testing.T, tm *tmuxTerm, what string) {
	t.Helper()
	for _, l := range strings.Split(tm.Screen(), "\n") {
		for _, pane := range strings.Split(l, "│") {
			if strings.HasPrefix(strings.TrimSpace(pane), "elicitty: fake line") {
				t.Errorf("%s: the server spoofed a line of ours: %q", what, l)
			}
		}
	}
}

// jsonStream reports whether s is one or more JSON values (watch prints one a read).
func jsonStream(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	n := 0
	for ; ; n++ {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return n > 0
		} else if err != nil {
			return false
		}
	}
}
