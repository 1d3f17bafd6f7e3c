package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit"
)

// The end-to-end tests of `elicitty proxy` (issue 19): a small scripted MCP host that
// declares no elicitation talks to the built binary, which relays to a real server and
// answers its questions from an answers file.

// hostInit is the scripted host's initialize: no elicitation capability at all.
const hostInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scripted-host","version":"1.0"}}}`

// scriptedHost is a JSON-RPC client over a child process's stdin and stdout.
type scriptedHost struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr *testkit.LockedBuffer
	mu     sync.Mutex
	got    bytes.Buffer // every byte received, as received
	mark   string       // in the environment of every process the run starts
	exited chan struct{}
}

// startHost runs argv (the proxy, or a server directly) as the host's server.
func startHost(t *testing.T, env []string, argv ...string) *scriptedHost {
	t.Helper()
	return startHostStderr(t, env, nil, argv...)
}

// startHostStderr is startHost with the process's stderr going to stderr instead of
// the host's buffer, when not nil (a pipe nobody reads, for one).
func startHostStderr(t *testing.T, env []string, stderr *os.File, argv ...string) *scriptedHost {
	t.Helper()
	h := &scriptedHost{t: t, lines: make(chan []byte, 64), stderr: &testkit.LockedBuffer{}, exited: make(chan struct{}),
		mark: fmt.Sprintf("ELICITTY_PROXY_TEST_MARK=%s-%d", t.Name(), time.Now().UnixNano())}
	cmd := exec.Command(argv[0], argv[1:]...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1",
		"DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=", h.mark)
	cmd.Env = append(cmd.Env, env...)
	wd, _ := os.Getwd()
	cmd.Dir = wd
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = h.stderr
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.cmd, h.in = cmd, in
	go func() {
		defer close(h.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				h.mu.Lock()
				h.got.Write(l)
				h.mu.Unlock()
				h.lines <- l
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(h.exited) }()
	t.Cleanup(func() {
		h.in.Close()
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-h.exited
			t.Errorf("the process did not end when its stdin closed\nstderr:\n%s", h.stderr)
		}
		h.noSurvivors()
	})
	return h
}

// send writes one message.
func (h *scriptedHost) send(msg string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, msg+"\n"); err != nil {
		h.t.Fatalf("send: %v\nstderr:\n%s", err, h.stderr)
	}
}

// await reads messages until the response with id (a JSON value as text), which it
// returns decoded; requests from the server fail the test (this host declares none).
func (h *scriptedHost) await(id string, within time.Duration) map[string]any {
	h.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-h.lines:
			if !ok {
				h.t.Fatalf("stdout ended before the response %s\nstderr:\n%s", id, h.stderr)
			}
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				h.t.Fatalf("stdout carried a line that is not JSON: %q", l)
			}
			if _, isReq := m["method"]; isReq {
				if m["id"] != nil {
					h.t.Fatalf("the host got a request it never declared: %s", l)
				}
				continue
			}
			if b, _ := json.Marshal(m["id"]); string(b) == id {
				return m
			}
		case <-deadline:
			h.t.Fatalf("no response %s within %s\nstderr:\n%s", id, within, h.stderr)
		}
	}
}

// initialize runs the handshake.
func (h *scriptedHost) initialize() map[string]any {
	h.t.Helper()
	h.send(hostInit)
	res := h.await("0", 30*time.Second)
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// callTool calls a tool and returns the text of its result.
func (h *scriptedHost) callTool(id int, tool, args string) string {
	h.t.Helper()
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	res := h.await(fmt.Sprint(id), 60*time.Second)
	if res["error"] != nil {
		h.t.Fatalf("tools/call %s: error %v\nstderr:\n%s", tool, res["error"], h.stderr)
	}
	return toolText(h.t, res)
}

// close ends the host's input and waits for the process.
func (h *scriptedHost) close() int {
	h.t.Helper()
	h.in.Close()
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		h.t.Fatalf("the process did not end when its stdin closed\nstderr:\n%s", h.stderr)
	}
	return h.cmd.ProcessState.ExitCode()
}

// received returns every byte the host received.
func (h *scriptedHost) received() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.got.Bytes()...)
}

// noSurvivors fails the test when a process started by the run (it carries the run's
// mark in its environment) is still alive.
func (h *scriptedHost) noSurvivors() {
	h.t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := marked(h.mark)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			h.t.Errorf("processes still running after the run: %v", left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// marked lists the live processes whose environment holds mark.
func marked(mark string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(mark+"\x00")) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie is dead already
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		out = append(out, filepath.Base(d)+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// proxyAnswers answers the demo's form tools and accepts URL requests, opening them
// with $ELICITTY_OPENER (testdata/opener approves the demo's consent page).
const proxyAnswers = `- match: {tool: form_all_kinds}
  action: accept
  content: {email: ada@example.com, seats: 3, tags: [api, ops], subscribe: false, color: g, features: [sso]}
- match: {mode: url}
  action: accept
  open: true
`

// TestProxyDemo: host → proxy → demo server over stdio: a form, a pushed URL request and
// a -32042, all answered by the proxy; the host gets each tool's result and never a
// question. The proxy's stdout carries JSON-RPC only and its log names the tools.
func TestProxyDemo(t *testing.T) {
	dir := t.TempDir()
	answers := writeFile(t, "answers.yaml", proxyAnswers)
	logFile := filepath.Join(dir, "proxy.log")
	opener := testOpener(t) + " -record " + filepath.Join(dir, "opened.jsonl")
	h := startHost(t, []string{"ELICITTY_OPENER=" + opener},
		bin, "proxy", "--answers", answers, "--log", logFile, "--", bin, "serve-demo")
	h.initialize()
	if got := h.callTool(1, "form_all_kinds", "{}"); !strings.Contains(got, `"email":"ada@example.com"`) || !strings.HasPrefix(got, "accepted") {
		t.Errorf("form_all_kinds: %q", got)
	}
	if got := h.callTool(2, "link_account", "{}"); got != "linked" {
		t.Errorf("link_account (pushed URL): %q", got)
	}
	if got := h.callTool(3, "needs_link", "{}"); got != "linked" {
		t.Errorf("needs_link (-32042): %q", got)
	}
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(h.received()), []byte("\n")) {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
			Method  string `json:"method"`
			Error   *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(l, &m) != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
		if m.Method == "elicitation/create" || m.Method == "notifications/elicitation/complete" || (m.Error != nil && m.Error.Code == -32042) {
			t.Errorf("the host saw a question: %s", l)
		}
	}
	info, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, want 0600", info.Mode().Perm())
	}
	log := readFile(t, logFile)
	for _, want := range []string{`host "scripted-host" declares elicitation none`, "during tools/call form_all_kinds: answered accept",
		"url-required url question", "retrying after the URL elicitation"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "Tell us about yourself") {
		t.Errorf("the log quotes a server's message:\n%s", log)
	}
}

// TestProxyDemoHTTP: the same host through the proxy to the demo over Streamable HTTP.
func TestProxyDemoHTTP(t *testing.T) {
	mcpURL := startDemoHTTP(t)
	dir := t.TempDir()
	answers := writeFile(t, "answers.yaml", proxyAnswers)
	opener := testOpener(t) + " -record " + filepath.Join(dir, "opened.jsonl")
	h := startHost(t, []string{"ELICITTY_OPENER=" + opener}, bin, "proxy", "--answers", answers, mcpURL)
	h.initialize()
	if got := h.callTool(1, "form_all_kinds", "{}"); !strings.HasPrefix(got, "accepted") {
		t.Errorf("form_all_kinds: %q", got)
	}
	if got := h.callTool(2, "needs_link", "{}"); got != "linked" {
		t.Errorf("needs_link (-32042): %q", got)
	}
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
}

// TestProxyEverything: host → proxy → server-everything over stdio; its form tool is
// answered from the answers file.
func TestProxyEverything(t *testing.T) {
	js := everythingJS(t)
	h := startHost(t, nil, bin, "proxy", "--answers", "testdata/everything-answers.yaml", "--", "node", js)
	h.initialize()
	got := h.callTool(1, "trigger-elicitation-request", "{}")
	if !strings.Contains(got, "Ada Lovelace") {
		t.Errorf("trigger-elicitation-request: %q\nstderr:\n%s", got, h.stderr)
	}
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
}

// TestProxyPassThroughByteExact: a session without questions gives the host the same
// bytes through the proxy as straight from the server.
func TestProxyPassThroughByteExact(t *testing.T) {
	session := func(argv ...string) []byte {
		h := startHost(t, nil, argv...)
		h.initialize()
		for i, m := range []string{"tools/list", "prompts/list", "resources/list", "ping"} {
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, m))
			h.await(fmt.Sprint(i+1), 30*time.Second)
		}
		h.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		h.send(`{"jsonrpc":"2.0","id":"last","method":"ping","params":{"_meta":{"k":"v"}}}`)
		h.await(`"last"`, 30*time.Second)
		if code := h.close(); code != 0 {
			t.Errorf("%v: exit %d\nstderr:\n%s", argv, code, h.stderr)
		}
		return h.received()
	}
	direct := session(bin, "serve-demo")
	proxied := session(bin, "proxy", "--", bin, "serve-demo")
	if !bytes.Equal(direct, proxied) {
		t.Errorf("the host received different bytes through the proxy\ndirect:\n%s\nproxied:\n%s", direct, proxied)
	}
	if n := bytes.Count(direct, []byte("\n")); n != 6 {
		t.Errorf("%d messages, want 6:\n%s", n, direct)
	}
}

// TestProxyServerExit: a server that ends on its own ends the proxy with exit 4 and a
// log line.
func TestProxyServerExit(t *testing.T) {
	h := startHost(t, nil, bin, "proxy", "--", "sh", "-c", "read line; exit 3")
	h.send(hostInit)
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end with its server")
	}
	if code := h.cmd.ProcessState.ExitCode(); code != cli.ExitConn {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, cli.ExitConn, h.stderr)
	}
	if !strings.Contains(h.stderr.String(), "the server ended the session") {
		t.Errorf("stderr lacks the reason:\n%s", h.stderr)
	}
}

// TestProxyDemoModern: a 2026-07-28 host (no handshake, capabilities in each request's
// _meta, none for elicitation) → proxy → demo: the input_required rounds of a form and
// of a URL are answered by the proxy, which retries under the host's id.
func TestProxyDemoModern(t *testing.T) {
	dir := t.TempDir()
	answers := writeFile(t, "answers.yaml", "- match: {tool: mrtr_one}\n  action: accept\n  content: {color: green}\n"+acceptAndOpen)
	opener := testOpener(t) + " -record " + filepath.Join(dir, "opened.jsonl")
	h := startHost(t, []string{"ELICITTY_OPENER=" + opener}, bin, "proxy", "--answers", answers, "--", bin, "serve-demo")
	call := func(id int, tool string) string {
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
			`"io.modelcontextprotocol/clientInfo":{"name":"modern-host","version":"1"}}}}`, id, tool))
		res := h.await(fmt.Sprint(id), 60*time.Second)
		r, _ := res["result"].(map[string]any)
		if r == nil || r["resultType"] == "input_required" {
			t.Fatalf("%s: host got %v\nstderr:\n%s", tool, res, h.stderr)
		}
		content, _ := r["content"].([]any)
		if len(content) != 1 {
			t.Fatalf("%s: result %v", tool, r)
		}
		text, _ := content[0].(map[string]any)["text"].(string)
		return text
	}
	if got := call(1, "mrtr_one"); got != "you picked green" {
		t.Errorf("mrtr_one: %q", got)
	}
	if got := call(2, "needs_link"); got != "linked" {
		t.Errorf("needs_link: %q", got)
	}
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
	for _, want := range []string{"input-request form question from elicitty (elicitty-demo) during tools/call mrtr_one", "input-request url question"} {
		if log := h.stderr.String(); !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestProxySignal: SIGTERM stops the proxy and its server (exit 130, nothing left).
func TestProxySignal(t *testing.T) {
	h := startHost(t, nil, bin, "proxy", "--", bin, "serve-demo")
	h.initialize()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end on SIGTERM")
	}
	if code := h.cmd.ProcessState.ExitCode(); code != cli.ExitCancel {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, cli.ExitCancel, h.stderr)
	}
	if strings.Contains(h.stderr.String(), "context canceled") {
		t.Errorf("an interrupted proxy reports a raw context error:\n%s", h.stderr)
	}
	h.noSurvivors()
}

// TestProxyStopsStubbornServer: a server that ignores the end of its stdin is stopped
// with its process group when the host leaves.
func TestProxyStopsStubbornServer(t *testing.T) {
	h := startHost(t, nil, bin, "proxy", "--", "sh", "-c", "sleep 300 & sleep 300; wait")
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
	h.noSurvivors()
	if !strings.Contains(h.stderr.String(), "SIGTERM to its process group") {
		t.Errorf("stderr does not say how the server was stopped:\n%s", h.stderr)
	}
}

// TestProxyStderrNotRead: a host that never reads the proxy's stderr (its pipe full of
// the server's stderr lines, which the proxy logs) still gets every answer: logging
// never blocks the relay.
func TestProxyStderrNotRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() // never read until the test ends
	noisy := `i=0; while [ $i -lt 5000 ]; do echo "noise line $i of a chatty server" >&2; i=$((i+1)); done; exec "$0" serve-demo`
	h := startHostStderr(t, nil, w, bin, "proxy", "--", "sh", "-c", noisy, bin)
	w.Close() // the proxy holds the only write end
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.initialize()
		h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		h.await("2", 30*time.Second)
	}()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the proxy stopped relaying while its stderr was not read")
	}
}
