package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// The hostile suite runs elicitty against testdata/hostile, a server that puts an
// attack payload (escape sequences, C1, bidi, zero-width, separators, bare CR, spoofed
// lines) in every string it controls or misbehaves at the frame level, and checks the
// raw bytes of every output, the exit codes, and the time and memory each run took.

var (
	hostileOnce sync.Once
	hostileBin  string
	hostileErr  error
)

// hostileServer builds testdata/hostile once, next to the elicitty binary.
func hostileServer(t *testing.T) string {
	t.Helper()
	hostileOnce.Do(func() {
		hostileBin = filepath.Join(filepath.Dir(bin), "hostile")
		out, err := exec.Command("go", "build", "-o", hostileBin, "./testdata/hostile").CombinedOutput()
		if err != nil {
			hostileErr = errors.New(string(out))
		}
	})
	if hostileErr != nil {
		t.Fatalf("build testdata/hostile: %v", hostileErr)
	}
	return hostileBin
}

// scanRaw fails the test when out carries anything of the payload a terminal would act
// on or that could spoof a line: ESC, C0 controls but newline and tab (a bare CR
// too), C1, bidi and zero-width characters, U+2028/U+2029 or invalid UTF-8; and, when
// out is lines of ours (not a tool result's multi-line text), a line that starts with
// the payload's fake "elicitty:" line.
func scanRaw(t *testing.T, what, out string) { scanOut(t, what, out, true) }

func scanOut(t *testing.T, what, out string, ours bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8 in output", what)
	}
	for i, r := range out {
		if r != '\n' && safe.Unsafe(r) {
			t.Errorf("%s: raw %U at byte %d: %q", what, r, i, context80(out, i))
			return
		}
	}
	if !ours {
		return
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "elicitty: fake line") {
			t.Errorf("%s: the server spoofed a line of ours: %q", what, l)
			return
		}
	}
}

func context80(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

// measured is a run of the binary with its cost.
type measured struct {
	result
	wall   time.Duration
	maxRSS int64 // KiB
}

// runMeasured runs elicitty with args and no terminal, in dir, and reports its exit
// code, output, wall time and peak memory.
func runMeasured(t *testing.T, dir string, limit time.Duration, args ...string) measured {
	t.Helper()
	return runMeasuredIn(t, dir, t.TempDir(), nil, limit, args...)
}

// runMeasuredIn is runMeasured with home as HOME and env added to the environment; it
// fails the test when the run has not ended within limit.
func runMeasuredIn(t *testing.T, dir, home string, env []string, limit time.Duration, args ...string) measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	start := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after %s (killed)\nstderr: %s", args, limit, stderr.String())
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		m.code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.maxRSS = int64(ru.Maxrss)
	}
	m.stdout, m.stderr = stdout.String(), stderr.String()
	return m
}

// noHostileLeft fails when a hostile server process outlived its client.
func noHostileLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := hostileProcs()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hostile server processes left running: %v", left)
		}
		time.Sleep(50 * time.Millisecond) // a reaped child leaves /proc asynchronously: poll
	}
}

// hostileProcs lists the pids of running processes of our hostile binary (Linux /proc;
// nothing elsewhere).
func hostileProcs() []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == hostileBin {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !strings.Contains(string(stat), ") Z ") { // a zombie is already dead
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// TestHostilePayloadHeadless sends the payload through every string the server
// controls and scans stdout, stderr, the --log file, the --record file and the printed
// answers-file entry, in text and --json.
func TestHostilePayloadHeadless(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {}\n  action: accept\n- kind: sampling\n  action: accept\n  reply: {text: ok}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		args []string
		code int
	}{
		{[]string{"tools"}, 0},
		{[]string{"prompts"}, 0},
		{[]string{"resources"}, 0},
		{[]string{"call", "ask"}, cli.ExitUnanswered},      // prints the answers-file entry
		{[]string{"call", "ask", "--answers", answers}, 0}, // accepts the defaults
		{[]string{"call", "ask", "--on-unanswered", "decline"}, 0},
		{[]string{"call", "fail"}, cli.ExitConn},
		{[]string{"call", "toolerr"}, cli.ExitToolError},
		{[]string{"call", "url", "--answers", answers}, 0},
		{[]string{"call", "sample", "--answers", answers}, 0},
		{[]string{"call", "cancel"}, cli.ExitUnanswered},
		{[]string{"call", "nosuchtool"}, cli.ExitConn},
	}
	for _, json := range []bool{false, true} {
		for _, r := range runs {
			args := append([]string{}, r.args...)
			if json {
				args = append(args, "--json")
			}
			name := strings.Join(args, " ")
			logFile, recFile := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "rec.yaml")
			os.Remove(logFile)
			os.Remove(recFile)
			args = append(args, "--log", logFile, "--record", recFile, "--", srv, "payload")
			m := runMeasured(t, dir, 60*time.Second, args...)
			if m.code != r.code {
				t.Errorf("%s: exit %d, want %d\nstderr: %s", name, m.code, r.code, m.stderr)
			}
			scanOut(t, name+": stdout", m.stdout, r.args[0] != "call") // a call prints the result's own lines
			scanRaw(t, name+": stderr", m.stderr)
			if json && r.code == 0 && r.args[0] != "call" {
				if !jsonValid(m.stdout) {
					t.Errorf("%s: stdout is not JSON: %q", name, m.stdout)
				}
			}
			logged, err := os.ReadFile(logFile)
			if err != nil || len(logged) == 0 {
				t.Errorf("%s: no --log file: %v", name, err)
			}
			scanLog(t, name+": --log", logged)
			if rec, err := os.ReadFile(recFile); err == nil {
				scanRaw(t, name+": --record", string(rec))
			}
		}
	}
	noHostileLeft(t)
}

// jsonValid reports whether s is one JSON value (and whitespace).
func jsonValid(s string) bool {
	var v any
	return json.Unmarshal([]byte(s), &v) == nil
}

// scanLog checks that the --log file is JSON lines with no raw unsafe byte.
func scanLog(t *testing.T, what string, b []byte) {
	t.Helper()
	scanRaw(t, what, string(b))
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) > 0 && !json.Valid(l) {
			t.Errorf("%s: not a JSON line: %.200q", what, l)
			return
		}
	}
}

// TestHostileMisbehaviour runs the frame-level scenarios: each must end (exit code as
// listed), within its time bound, below a generous memory bound, printing nothing raw.
func TestHostileMisbehaviour(t *testing.T) {
	srv := hostileServer(t)
	const maxRSS = 768 << 10 // KiB: generous; a huge frame is held a few times over
	tests := []struct {
		scenario string
		codes    []int
		limit    time.Duration
		stdout   string // what stdout must say, when set
		stderr   string // what stderr must say, when set
	}{
		{"crash", []int{cli.ExitConn}, 30 * time.Second, "", ""},
		{"hugeframe", []int{cli.ExitOK, cli.ExitConn}, 60 * time.Second, "", ""},
		// An elicitation over the frame limit is refused at once, the server is told why
		// and so is the user: the call ends with the server's own result, not after
		// --timeout.
		{"hugeask", []int{cli.ExitOK}, 30 * time.Second, "elicitty refused the request unread: message over the 16 MiB frame limit",
			"refused a request unread: message over the 16 MiB frame limit"},
		{"deepnest", []int{cli.ExitOK, cli.ExitConn}, 30 * time.Second, "", ""},
		{"flood", []int{cli.ExitOK, cli.ExitConn}, 60 * time.Second, "", ""},
		{"endless", []int{cli.ExitConn}, 30 * time.Second, "", ""},
		{"cancelstorm", []int{cli.ExitOK, cli.ExitUnanswered}, 30 * time.Second, "", ""},
		{"garbage", []int{cli.ExitOK}, 30 * time.Second, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			m := runMeasured(t, t.TempDir(), tt.limit, "call", "x", "--timeout", "5s", "--", srv, tt.scenario)
			ok := false
			for _, c := range tt.codes {
				ok = ok || m.code == c
			}
			if !ok {
				t.Errorf("exit %d, want one of %v\nstderr: %.2000s", m.code, tt.codes, m.stderr)
			}
			if m.maxRSS > maxRSS {
				t.Errorf("peak memory %d KiB, want at most %d KiB", m.maxRSS, maxRSS)
			}
			if !strings.Contains(m.stdout, tt.stdout) {
				t.Errorf("stdout %.2000q does not say %q", m.stdout, tt.stdout)
			}
			if !strings.Contains(m.stderr, tt.stderr) {
				t.Errorf("stderr %.2000q does not say %q", m.stderr, tt.stderr)
			}
			scanOut(t, "stdout", m.stdout, false)
			scanRaw(t, "stderr", m.stderr)
			t.Logf("%s: exit %d in %s, peak %d KiB", tt.scenario, m.code, m.wall.Round(time.Millisecond), m.maxRSS)
		})
	}
	noHostileLeft(t)
}

// hostileTerm starts elicitty with args against the hostile server in a real terminal
// whose tmux accepts OSC 52 clipboard writes, so that a write that got through would
// show as a paste buffer.
func hostileTerm(t *testing.T, opts tmuxterm.Options, scenario string, args ...string) *tmuxTerm {
	t.Helper()
	srv := hostileServer(t)
	opts.RawOutput = true
	tm := startTerm(t, opts, append(args, "--", srv, scenario)...)
	tm.Tmux("set-option", "-g", "set-clipboard", "on")
	return tm
}

// scanTerm fails when the terminal acted on, or shows, what the server sent: a title
// change, a clipboard write, an OSC 8 link, C1, bidi, zero-width or separator
// characters. The screen is captured with its attributes (our own SGR colours are
// allowed there; nothing else is).
func scanTerm(t *testing.T, tm *tmuxTerm, what string) { scanScreen(t, tm, what, true) }

// scanScreen is scanTerm; with ours unset the screen may show a server's multi-line
// message as lines (line prompts print an elicitation message as it is, cleaned).
func scanScreen(t *testing.T, tm *tmuxTerm, what string, ours bool) {
	t.Helper()
	// What the program wrote, byte for byte: what was stripped from the payload must
	// not be there (our own escape sequences are).
	out := tm.RawOutput()
	for _, marker := range []string{"PWNED", "SElKQUNLRUQ", "+q544e", "evil.example"} {
		if strings.Contains(out, marker) {
			i := strings.Index(out, marker)
			t.Errorf("%s: the terminal was sent the payload's %q: %q", what, marker, out[max(0, i-60):min(len(out), i+40)])
		}
	}
	for i, r := range out {
		if r != '\n' && r != '\r' && r != '\t' && r != 0x1b && r != 0x07 && r != 0x08 && safe.Unsafe(r) {
			t.Errorf("%s: the terminal was sent raw %U: %q", what, r, out[max(0, i-60):min(len(out), i+40)])
			break
		}
	}
	raw := tm.RawScreen()
	for _, r := range raw {
		if r != '\n' && r != 0x1b && safe.Unsafe(r) {
			t.Errorf("%s: the screen shows raw %U:\n%s", what, r, raw)
			break
		}
	}
	for _, bad := range []string{"\x1b]8;;https://evil", "\x1b]52", "\x1b]0;", "\x1bP"} {
		if strings.Contains(raw, bad) {
			t.Errorf("%s: the screen carries %q", what, bad)
		}
	}
	if title := tm.Tmux("display-message", "-p", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Errorf("%s: the server changed the terminal title to %q", what, title)
	}
	if bufs := tm.Tmux("list-buffers", "-F", "#{buffer_sample}"); strings.Contains(bufs, "HIJACKED") {
		t.Errorf("%s: the server wrote the clipboard: %q", what, bufs)
	}
	if !ours {
		return
	}
	for _, l := range strings.Split(tm.Screen(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "elicitty: fake line") {
			t.Errorf("%s: the server spoofed a line of ours: %q", what, l)
		}
	}
}

// TestTmuxHostileInlineCancelled: the server cancels its own open inline form; the
// "cancelled" line quotes its message, which must not run in the terminal.
func TestTmuxHostileInlineCancelled(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{StdoutToFile: true}, "payload", "call", "cancel")
	tm.WaitFor("Plinkevil")
	scanScreen(t, tm, "inline form", false) // the message is multi-line by design
	tm.WaitFor("cancelled")
	if code, stdout := tm.Wait(); code != 0 || !strings.Contains(stdout, "cancelled it") {
		t.Errorf("exit %d, stdout %q; want 0 and the result", code, stdout)
	}
	scanScreen(t, tm, "after the cancel", false)
	// The cancel line quotes the message on its one line (80 columns wrap it).
	if screen := tm.Screen(); !strings.Contains(screen, "elicitty: hostile: the server cancelled its request: Plinkevil  CR elicitty: fak\ne line") {
		t.Errorf("the cancel line is not the message on one line:\n%s", screen)
	}
}

// TestTmuxHostileAccessible shows the payload form in accessible (line prompt) mode.
func TestTmuxHostileAccessible(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{StdoutToFile: true}, "payload", "call", "ask", "--accessible")
	tm.WaitFor("Plinkevil", "[A]nswer, [d]ecline, [c]ancel")
	scanScreen(t, tm, "accessible form", false)
	tm.TypeText("c")
	tm.Keys("Enter")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after cancelling, want 0", code)
	}
	scanScreen(t, tm, "after cancelling", false)
}

// TestTmuxHostileTUI lists the payload tools in the TUI, calls one whose JSON-RPC
// error carries the payload and reads the error and log views.
func TestTmuxHostileTUI(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{}, "payload")
	tm.WaitFor("ready")
	scanTerm(t, tm, "tools list")
	selectTool(t, tm, "fail")
	tm.Keys("Enter") // no arguments, not marked read-only: it asks
	tm.Keys("y")
	tm.WaitFor("failed")
	scanTerm(t, tm, "failed call")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}

// hostileHTTP answers every JSON-RPC request with an error whose message is the
// payload (and every other request with 405), on 127.0.0.1, and returns the MCP URL.
func hostileHTTP(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32603, "message": hostilePayload}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// hostilePayload is testdata/hostile's Payload.
const hostilePayload = "P\x1b]52;c;SElKQUNLRUQ=\x07\x1b]0;PWNED\x07\x1b[2J\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07" +
	"\x1bP+q544e\x1b\\\u009b31m\u0085\u202eevil\u200b\u200c\u200d\u2060\ufeff\u2028\u2029\rCR\nelicitty: fake line"

// TestHostileHTTPErrorHeadless: an HTTP server whose error body is the payload.
func TestHostileHTTPErrorHeadless(t *testing.T) {
	url := hostileHTTP(t)
	m := runMeasured(t, t.TempDir(), 60*time.Second, "tools", url)
	if m.code != cli.ExitConn {
		t.Errorf("exit %d, want %d; stderr %q", m.code, cli.ExitConn, m.stderr)
	}
	scanRaw(t, "stderr", m.stderr)
	scanRaw(t, "stdout", m.stdout)
}

// TestTmuxHostileHTTPServersPane: the servers pane shows why an HTTP server failed,
// quoting its error body.
func TestTmuxHostileHTTPServersPane(t *testing.T) {
	t.Parallel()
	url := hostileHTTP(t)
	tm := startTerm(t, tmuxterm.Options{RawOutput: true, Cols: 200, Rows: 30}, url)
	tm.Tmux("set-option", "-g", "set-clipboard", "on")
	tm.WaitFor("failed", "Plinkevil")
	scanScreen(t, tm, "servers pane", false) // the narrow pane wraps words: any may start a line
	// The status line shows the error on one line (once the wider window is drawn).
	tm.WaitFor(`calling "initialize": Plinkevil  CR elicitty: fake line`)
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}

// TestTmuxHostileServersPane: the server refuses initialize with the payload; the
// servers pane shows the reason.
func TestTmuxHostileServersPane(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, tmuxterm.Options{Cols: 200, Rows: 30}, "initfail") // wide: the pane shows the stderr tail
	tm.WaitFor("✗ hostile", "failed", "Plinkevil")
	scanTerm(t, tm, "servers pane")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}

// TestDroppedDefaultReportedByCall checks that `call --answers` reports a default the
// form parse dropped (the hostile server's "count" has a string default), as `render`
// does: a stderr line, an entry of --json output and a note in the --log file, all
// sanitized.
func TestDroppedDefaultReportedByCall(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {}\n  action: accept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "wire.jsonl")
	r := runBin(t, nil, "call", "ask", "--answers", answers, "--json", "--log", logFile, "--", srv, "payload")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	const want = "/properties/count/default: default dropped: a JSON string is not an integer [default-dropped]"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	var out struct {
		Findings []struct{ Path, Code string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if len(out.Findings) != 1 || out.Findings[0].Path != "/properties/count/default" || out.Findings[0].Code != "default-dropped" {
		t.Errorf("--json findings = %+v, want the dropped count default", out.Findings)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "[default-dropped]") {
		t.Errorf("--log lacks the dropped default:\n%s", log)
	}
	scanRaw(t, "stderr", r.stderr)
	scanOut(t, "stdout", r.stdout, false)
}
