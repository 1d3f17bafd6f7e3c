package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// The host matrix (issue 28): real MCP hosts run `elicitty proxy` as their server and a
// person answers the server's questions in `elicitty inbox`, driven in a terminal. The
// hosts are a client on the TypeScript SDK with its default settings that behaves as an
// agent (testdata/hosts/agent-host.mjs), the MCP Inspector's CLI, mcpc and Claude Code's
// `claude mcp list`; scripts/setup.sh installs them and Node 22, and scripts/test.sh
// passes their locations in ELICITTY_NODE22, ELICITTY_TS_SDK_DIR, ELICITTY_INSPECTOR_BIN,
// ELICITTY_MCPC_BIN and ELICITTY_CLAUDE_BIN. The server is mostly
// testdata/hosts/counter-server.mjs, which writes a line for each run of a tool, so that
// a test can tell the server ran the tool once.

// hostTool returns the program named by the environment variable name. Without it the
// test is skipped, saying which; under ELICITTY_E2E (scripts/test.sh) or CI it fails.
func hostTool(t *testing.T, name, what string) string {
	t.Helper()
	p := os.Getenv(name)
	if p == "" {
		if os.Getenv("ELICITTY_E2E") != "" || os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: scripts/setup.sh installs %s and scripts/test.sh sets it", name, what)
		}
		t.Skipf("%s is not set: %s is not installed (scripts/setup.sh installs it; scripts/test.sh sets the variable)", name, what)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s=%s: %v (run scripts/setup.sh)", name, p, err)
	}
	return p
}

// hostKit is one test's copy of the host matrix's Node scripts, beside a node_modules
// that is the TypeScript SDK's, and the file where the counting server writes its runs.
type hostKit struct {
	dir  string // holds the scripts; every process of the test has it in its command line
	node string // Node 22
	runs string // counter-server.mjs's record of tool runs
	mark string // KEY=VALUE in the environment of the processes the test starts
}

// newHostKit prepares a hostKit and fails the test, at its end, when a process it
// started (found by its command line or its environment) is still running.
func newHostKit(t *testing.T) *hostKit {
	t.Helper()
	node := hostTool(t, "ELICITTY_NODE22", "Node 22")
	sdk := hostTool(t, "ELICITTY_TS_SDK_DIR", "the TypeScript SDK (@modelcontextprotocol/sdk)")
	// The mark's check is registered first, so that it runs last: after the hosts and
	// terminals are gone.
	k := &hostKit{dir: t.TempDir(), node: node, mark: runMark(t)}
	k.runs = filepath.Join(k.dir, "runs")
	for _, f := range []string{"agent-host.mjs", "counter-server.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hosts", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(k.dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(sdk, filepath.Join(k.dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { noSurvivors(t, k.dir) }) // likewise, after the hosts and terminals
	return k
}

// counter is the argv of the counting server.
func (k *hostKit) counter() []string {
	return []string{k.node, filepath.Join(k.dir, "counter-server.mjs"), k.runs}
}

// proxied is the argv of `elicitty proxy -- server...`.
func proxied(server []string) []string {
	return append([]string{bin, "proxy", "--"}, server...)
}

// runCount is how many times the counting server ran a tool so far.
func (k *hostKit) runCount(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(k.runs)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// waitRuns waits until the counting server has run a tool n times (it writes the line
// before it asks its question).
func (k *hostKit) waitRuns(t *testing.T, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for k.runCount(t) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server ran a tool %d times in %s, want %d", k.runCount(t), within, n)
		}
		time.Sleep(termPoll) // the file is all the server tells: poll it
	}
}

// hostEnv is a desktop session's environment for a host: a private HOME, Node 22 first
// on PATH, the test's mark, and extra.
func (k *hostKit) hostEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "USER=" + os.Getenv("USER"), "LOGNAME=" + os.Getenv("LOGNAME"), "SHELL=/bin/sh",
		"TERM=xterm-256color", "PATH=" + filepath.Dir(k.node) + string(os.PathListSeparator) + os.Getenv("PATH"), k.mark}
	return append(env, extra...)
}

// startInbox runs `elicitty inbox` in a terminal with env, its URL opener recording the
// links it is given in the returned file.
func (k *hostKit) startInbox(t *testing.T, env ...string) (*tmuxTerm, string) {
	t.Helper()
	opener, record := recordingOpener(t)
	tm := startTerm(t, tmuxterm.Options{Env: append([]string{"ELICITTY_OPENER=" + opener, k.mark}, env...)}, "inbox")
	return tm, record
}

// answerName types name into the counting server's ask form and accepts it.
func answerName(tm *tmuxTerm, name string) {
	tm.T().Helper()
	tm.WaitFocus("Name *")
	tm.WaitFor("Who is asking?")
	tm.TypeText(name)
	tm.WaitFor("> " + name)
	tm.Keys("Enter")
	tm.WaitFor(`"name": "`+name+`"`, "[ Accept ]")
	tm.Keys("a")
}

// agentSpec is what agent-host.mjs runs (see its comment).
type agentSpec struct {
	Name      string            `json:"name,omitempty"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"` // nil: the SDK's default environment only
	Tool      string            `json:"tool"`
	Arguments map[string]any    `json:"arguments"`
	Attempts  int               `json:"attempts"`
	// TimeoutMs is the host's request timeout (0: the SDK's default, 60 s).
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// ResetTimeoutOnProgress asks for progress and restarts the timeout on each
	// notification, as hosts that offer it do.
	ResetTimeoutOnProgress bool `json:"resetTimeoutOnProgress,omitempty"`
}

// agentEvent is one line of agent-host.mjs's report.
type agentEvent struct {
	Event   string          `json:"event"`
	Attempt int             `json:"attempt,omitempty"`
	Code    any             `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// agentHost is a running agent-host.mjs.
type agentHost struct {
	t      *testing.T
	cmd    *exec.Cmd
	report chan agentEvent
	seen   []agentEvent
	stderr *testkit.LockedBuffer
	exited chan struct{}
	// note, when set, adds to the messages of a failure (the server's run count).
	note func() string
}

// failf fails the test with the host's events, its stderr (the proxy's log) and note.
func (h *agentHost) failf(format string, args ...any) {
	h.t.Helper()
	extra := ""
	if h.note != nil {
		extra = "\n" + h.note()
	}
	h.t.Fatalf(format+"\nevents %s%s\nstderr:\n%s", append(args, h.events(), extra, h.stderr)...)
}

// events is the host's events so far, as JSON.
func (h *agentHost) events() string {
	b, _ := json.Marshal(h.seen)
	return string(b)
}

// startAgent runs agent-host.mjs with spec and env (its own environment, of which the
// SDK passes only HOME, LOGNAME, PATH, SHELL, TERM and USER to the proxy).
func (k *hostKit) startAgent(t *testing.T, spec agentSpec, env []string) *agentHost {
	t.Helper()
	if spec.Attempts == 0 {
		spec.Attempts = 5
	}
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	h := &agentHost{t: t, report: make(chan agentEvent, 64), stderr: &testkit.LockedBuffer{}, exited: make(chan struct{})}
	cmd := exec.Command(k.node, filepath.Join(k.dir, "agent-host.mjs"), string(js))
	cmd.Dir = k.dir
	cmd.Env = env
	cmd.Stderr = h.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.cmd = cmd
	go func() {
		defer close(h.report)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			var e agentEvent
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				e = agentEvent{Event: "garbage", Message: sc.Text()}
			}
			h.report <- e
		}
	}()
	go func() { _ = cmd.Wait(); close(h.exited) }()
	t.Cleanup(func() {
		select {
		case <-h.exited:
			return
		default:
		}
		// The host's process group: Node and the proxy it started; the proxy stops
		// its server's group when it ends.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-h.exited
		}
	})
	return h
}

// next returns the host's next event, failing the test after within.
func (h *agentHost) next(within time.Duration) agentEvent {
	h.t.Helper()
	select {
	case e, ok := <-h.report:
		if !ok {
			h.failf("the host ended")
		}
		h.seen = append(h.seen, e)
		return e
	case <-time.After(within):
		h.failf("no event from the host within %s", within)
	}
	return agentEvent{}
}

// waitEvent reads events until one of kind.
func (h *agentHost) waitEvent(kind string, within time.Duration) agentEvent {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for {
		e := h.next(time.Until(deadline))
		if e.Event == kind {
			return e
		}
	}
}

// result waits for the tool's result, through the host's retries, and returns its text
// and the attempt that got it. The host giving up (every attempt failed) fails the test.
func (h *agentHost) result(within time.Duration) (string, int) {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for {
		e := h.next(time.Until(deadline))
		switch e.Event {
		case "result":
			var r struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			}
			if err := json.Unmarshal(e.Result, &r); err != nil {
				h.t.Fatalf("result %s: %v", e.Result, err)
			}
			var texts []string
			for _, c := range r.Content {
				texts = append(texts, c.Text)
			}
			text := strings.Join(texts, "\n")
			if r.IsError {
				text = "isError: " + text
			}
			return text, e.Attempt
		case "done", "garbage":
			h.failf("the host got no result")
		}
	}
}

// finish waits for the host to close its client and exit 0.
func (h *agentHost) finish() {
	h.t.Helper()
	h.waitEvent("done", 30*time.Second)
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		h.t.Fatalf("the host did not exit after closing its client\nstderr:\n%s", h.stderr)
	}
	if code := h.cmd.ProcessState.ExitCode(); code != 0 {
		h.t.Errorf("the host exited %d\nstderr:\n%s", code, h.stderr)
	}
}

// hostedDir is a private runtime directory for a test's proxy and inbox, with the
// environment that names it to both.
func hostedDir(t *testing.T) (dir string, env map[string]string) {
	t.Helper()
	dir = inboxDir(t)
	return dir, map[string]string{"ELICITTY_RUNTIME_DIR": dir, "ELICITTY_NOTIFY": "off"}
}

// withMark adds the kit's mark to a host's env setting, so that the proxy and the
// server carry it.
func (k *hostKit) withMark(env map[string]string) map[string]string {
	key, value, _ := strings.Cut(k.mark, "=")
	env[key] = value
	return env
}

// TestHostMatrixAgentAnswers: the SDK agent host → `elicitty proxy` → the counting server,
// whose question the person answers in `elicitty inbox` (started before the host):
// accept, decline and cancel each reach the host as the server's result, and the
// server ran the tool once.
func TestHostMatrixAgentAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer func(tm *tmuxTerm)
		want   string
	}{
		{"accept", func(tm *tmuxTerm) { answerName(tm, "Ada") }, "accept Ada"},
		{"decline", func(tm *tmuxTerm) {
			tm.WaitFocus("Name *")
			tm.Keys("C-x")
		}, "decline"},
		{"cancel", func(tm *tmuxTerm) {
			tm.WaitFocus("Name *")
			tm.Keys("Escape")
		}, "cancel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := newHostKit(t)
			dir, env := hostedDir(t)
			tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
			tm.WaitFor("Proxies", "(none running)")
			h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env),
				Tool: "ask", Arguments: map[string]any{"topic": tc.name}}, k.hostEnv(t))
			h.waitEvent("connected", 30*time.Second)
			tm.WaitFor(`Input requested by "agent-host › node" during tools/call ask`)
			tc.answer(tm)
			got, attempt := h.result(30 * time.Second)
			if got != tc.want || attempt != 1 {
				t.Errorf("the host got %q on attempt %d, want %q on attempt 1\nstderr:\n%s", got, attempt, tc.want, h.stderr)
			}
			h.finish()
			if n := k.runCount(t); n != 1 {
				t.Errorf("the server ran the tool %d times, want 1", n)
			}
		})
	}
}

// TestHostMatrixAgentURLConsent: the counting server's URL-mode question reaches the inbox
// as the consent screen; "Open in browser" runs the opener with the link and the host
// gets the server's result for an accepted URL request.
func TestHostMatrixAgentURLConsent(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	dir, env := hostedDir(t)
	tm, opened := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env), Tool: "link"}, k.hostEnv(t))
	screen := tm.WaitFor("Nothing has been opened or fetched.", "Open in browser", "example.com")
	if !strings.Contains(screen, `"agent-host › node" asks you to open a link`) {
		t.Errorf("the consent screen does not name host and server:\n%s", screen)
	}
	tm.Keys("o")
	if got, attempt := h.result(30 * time.Second); got != "url accept" || attempt != 1 {
		t.Errorf("the host got %q on attempt %d, want \"url accept\" on attempt 1\nstderr:\n%s", got, attempt, h.stderr)
	}
	h.finish()
	if b, err := os.ReadFile(opened); err != nil || strings.TrimSpace(string(b)) != "https://example.com/link?from=counter" {
		t.Errorf("the opener got %q (%v)", b, err)
	}
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1", n)
	}
}

// TestHostMatrixAgentURLRequired: server-everything's trigger-url-elicitation with
// errorPath answers the call with -32042 (a link to open first) and sends no completion
// when it is opened. The inbox shows the consent screen, then the waiting screen with
// "retry now"; the retry asks for the tool's own link, and the host gets the tool's
// result, never the -32042.
func TestHostMatrixAgentURLRequired(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	k := newHostKit(t)
	dir, env := hostedDir(t)
	tm, opened := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied([]string{k.node, js})[1:], Env: k.withMark(env),
		Tool: "trigger-url-elicitation", Arguments: map[string]any{"url": "https://example.com/connect?x=2", "errorPath": true}}, k.hostEnv(t))
	tm.WaitFor("Nothing has been opened or fetched.", "Open in browser", "modelcontextprotocol.io")
	tm.Keys("o")
	// The server never completes the prerequisite: the person says it is done.
	tm.WaitFor("retry now")
	tm.Keys("r")
	tm.WaitFor("Nothing has been opened or fetched.", "Open in browser", "example.com/connect")
	tm.Keys("o")
	got, attempt := h.result(60 * time.Second)
	if !strings.Contains(got, "User completed the URL elicitation flow") || attempt != 1 {
		t.Errorf("the host got %q on attempt %d\nstderr:\n%s", got, attempt, h.stderr)
	}
	h.finish()
	b, err := os.ReadFile(opened)
	if want := "https://modelcontextprotocol.io\nhttps://example.com/connect?x=2\n"; err != nil || string(b) != want {
		t.Errorf("the opener got %q (%v), want %q", b, err, want)
	}
}

// TestHostMatrixAgentLateAnswer: the person answers 75 seconds after the host called, past
// the SDK's 60-second request timeout. The agent calls again after a failure; the
// answer reaches it within its attempts and the server ran the tool once.
func TestHostMatrixAgentLateAnswer(t *testing.T) {
	t.Parallel()
	const (
		late     = 75 * time.Second
		attempts = 5
		timeout  = 60 * time.Second // the SDK's default request timeout
	)
	k := newHostKit(t)
	dir, env := hostedDir(t)
	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env),
		Tool: "ask", Arguments: map[string]any{"topic": "late"}, Attempts: attempts}, k.hostEnv(t))
	h.note = func() string { return fmt.Sprintf("the server ran the tool %d times", k.runCount(t)) }
	h.waitEvent("call", 30*time.Second)
	start := time.Now()
	tm.WaitFocus("Name *")
	// The person is away: the delay is the scenario, not a synchronisation.
	time.Sleep(time.Until(start.Add(late)))
	tm.WaitFocus("Name *") // the question is still there
	answerName(tm, "Late")
	// Every attempt the host has left, and a margin.
	got, attempt := h.result(time.Until(start.Add(attempts*timeout + 30*time.Second)))
	if got != "accept Late" {
		t.Errorf("the host got %q on attempt %d, want \"accept Late\"\nevents %s\nstderr:\n%s", got, attempt, h.events(), h.stderr)
	}
	h.finish()
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1 (the host made %d attempts)\nevents %s", n, attempt, h.events())
	}
	t.Logf("answered after %s; the host got the result on attempt %d; events %s", late, attempt, h.events())
}

// TestHostMatrixAgentInboxAfterHost: the inbox starts after the host's question is
// waiting; the question is there for it, and the answer reaches the host.
func TestHostMatrixAgentInboxAfterHost(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	dir, env := hostedDir(t)
	h := k.startAgent(t, agentSpec{Command: bin, Args: proxied(k.counter())[1:], Env: k.withMark(env),
		Tool: "ask", Arguments: map[string]any{"topic": "after"}}, k.hostEnv(t))
	k.waitRuns(t, 1, 30*time.Second) // the server is asking
	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	answerName(tm, "Bea")
	if got, attempt := h.result(30 * time.Second); got != "accept Bea" || attempt != 1 {
		t.Errorf("the host got %q on attempt %d, want \"accept Bea\" on attempt 1\nstderr:\n%s", got, attempt, h.stderr)
	}
	h.finish()
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1", n)
	}
}

// TestHostMatrixAgentStrippedEnv: a desktop-like run. The host passes the proxy only the
// SDK's default environment (no XDG_RUNTIME_DIR, no TMPDIR, nothing of elicitty's),
// while the inbox runs from the user's shell with XDG_RUNTIME_DIR set; they find each
// other and the answer reaches the host. This test uses the user's real rendezvous
// directory, as a desktop does: the host's name is unique to the run.
func TestHostMatrixAgentStrippedEnv(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	xdg := inboxDir(t) // the session's runtime directory (mode 0700)
	name := fmt.Sprintf("desktop-host-%d-%d", os.Getpid(), runSeq.Add(1))
	h := k.startAgent(t, agentSpec{Name: name, Command: bin, Args: proxied(k.counter())[1:], Env: nil,
		Tool: "ask", Arguments: map[string]any{"topic": "stripped"}}, k.hostEnv(t, "XDG_RUNTIME_DIR="+xdg))
	k.waitRuns(t, 1, 30*time.Second)
	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR=", "XDG_RUNTIME_DIR="+xdg)
	tm.WaitFor(name)
	answerName(tm, "Cy")
	if got, attempt := h.result(30 * time.Second); got != "accept Cy" || attempt != 1 {
		t.Errorf("the host got %q on attempt %d, want \"accept Cy\" on attempt 1\nstderr:\n%s", got, attempt, h.stderr)
	}
	h.finish()
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran the tool %d times, want 1", n)
	}
}

// cliRun is one finished run of a host's command line.
type cliRun struct {
	code           int
	stdout, stderr string
	err            error // the run could not start, or did not finish in time
}

// startHostCLI starts a host's command line with env and returns where its run will be
// reported; a run still going when the test ends is killed then, and one that takes
// longer than within is killed and reported with an error.
func startHostCLI(t *testing.T, within time.Duration, dir string, env []string, argv ...string) <-chan cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	done := make(chan cliRun, 1)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr testkit.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("%v: %v", argv, err)
	}
	finished := make(chan struct{})
	t.Cleanup(func() { cancel(); <-finished })
	go func() {
		defer close(finished)
		err := cmd.Wait()
		r := cliRun{stdout: stdout.String(), stderr: stderr.String()}
		var exitErr *exec.ExitError
		switch {
		case ctx.Err() != nil:
			r.err = fmt.Errorf("%v did not finish within %s: %w", argv, within, ctx.Err())
		case errors.As(err, &exitErr):
			r.code = exitErr.ExitCode()
		case err != nil:
			r.err = err
		}
		done <- r
	}()
	return done
}

// runHostCLI runs a host's command line with env and returns its exit code, stdout and
// stderr, failing the test when it does not finish within.
func runHostCLI(t *testing.T, within time.Duration, dir string, env []string, argv ...string) (int, string, string) {
	t.Helper()
	r := <-startHostCLI(t, within, dir, env, argv...)
	if r.err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	return r.code, r.stdout, r.stderr
}

// wantAccepted checks a host CLI's run r of the counting server's ask tool, whose
// question the person accepted with name: it printed the tool's result as JSON, and the
// server ran the tool once. what names the run in failures.
func (k *hostKit) wantAccepted(t *testing.T, what string, r cliRun, name string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", what, r.err, r.stdout, r.stderr)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); r.code != 0 || err != nil || len(res.Content) != 1 || res.Content[0].Text != "accept "+name {
		t.Errorf("%s: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", what, r.code, err, r.stdout, r.stderr)
	}
	if n := k.runCount(t); n != 1 {
		t.Errorf("the server ran a tool %d times, want 1", n)
	}
}

// TestHostMatrixInspectorCLI: the MCP Inspector's CLI (on Node 22) lists the tools through
// the proxy, and calls one whose question the person answers in the inbox.
func TestHostMatrixInspectorCLI(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	inspector := hostTool(t, "ELICITTY_INSPECTOR_BIN", "the MCP Inspector (@modelcontextprotocol/inspector)")
	dir, _ := hostedDir(t)
	env := k.hostEnv(t, "MCP_INSPECTOR_SECRET_STORE=memory")
	target := append([]string{"--"}, proxied(k.counter())...)
	cli := func(args ...string) []string {
		return append(append([]string{inspector, "--cli", "-e", "ELICITTY_RUNTIME_DIR=" + dir, "-e", "ELICITTY_NOTIFY=off", "-e", k.mark}, args...), target...)
	}
	code, stdout, stderr := runHostCLI(t, 60*time.Second, k.dir, env, cli("--method", "tools/list")...)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); code != 0 || err != nil || len(list.Tools) != 3 || list.Tools[0].Name != "ask" {
		t.Fatalf("tools/list: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}

	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	done := startHostCLI(t, 90*time.Second, k.dir, env, cli("--method", "tools/call", "--tool-name", "ask", "--tool-arg", "topic=inspector")...)
	tm.WaitFor(`Input requested by "inspector-cli › node"`)
	answerName(tm, "Ivy")
	k.wantAccepted(t, "tools/call ask", <-done, "Ivy")
}

// TestHostMatrixMcpc: mcpc connects a session through the proxy (its bridge runs the proxy),
// lists the tools, and calls one whose question the person answers in the inbox.
func TestHostMatrixMcpc(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	mcpc := hostTool(t, "ELICITTY_MCPC_BIN", "mcpc (@apify/mcpc)")
	dir, env := hostedDir(t)
	argv := proxied(k.counter())
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"counter": map[string]any{
		"command": argv[0], "args": argv[1:], "env": k.withMark(env)}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(k.dir, "mcp.json")
	if err := os.WriteFile(file, config, 0o600); err != nil {
		t.Fatal(err)
	}
	henv := k.hostEnv(t)
	session := "@hm" + fmt.Sprint(runSeq.Add(1))
	mc := func(within time.Duration, args ...string) (int, string, string) {
		t.Helper()
		return runHostCLI(t, within, k.dir, henv, append([]string{mcpc, "--json"}, args...)...)
	}
	// mcpc gives its bridge (a Node process it starts) a fixed 5 s to create its socket,
	// before the bridge starts the proxy; on a loaded machine Node can take longer. That
	// one error of mcpc's own start is tried again, twice at most.
	for try := 1; ; try++ {
		code, stdout, stderr := mc(60*time.Second, "connect", file+":counter", session)
		if code == 0 {
			break
		}
		if try < 3 && strings.Contains(stderr, "Bridge failed to start: socket file not created within timeout") {
			t.Logf("mcpc connect, try %d: its bridge did not start within mcpc's 5 s; again", try)
			continue
		}
		t.Fatalf("mcpc connect: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	t.Cleanup(func() {
		if code, stdout, stderr := mc(30*time.Second, "close", session); code != 0 {
			t.Errorf("mcpc close: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
	code, stdout, stderr := mc(60*time.Second, session, "tools-list")
	var tools []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(stdout), &tools); code != 0 || err != nil || len(tools) != 3 || tools[0].Name != "ask" {
		t.Fatalf("mcpc tools-list: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}

	tm, _ := k.startInbox(t, "ELICITTY_RUNTIME_DIR="+dir)
	done := startHostCLI(t, 90*time.Second, k.dir, henv, mcpc, "--json", session, "tools-call", "ask", "topic:=mcpc")
	tm.WaitFor(`Input requested by "mcpc › node"`)
	answerName(tm, "Mia")
	k.wantAccepted(t, "mcpc tools-call ask", <-done, "Mia")
}

// TestHostMatrixClaudeMcpList: `elicitty proxy --install claude-code counter --write` wraps
// Claude Code's entry; `claude mcp list` (no sign-in needed), with a PATH that does not
// hold elicitty, connects to the server through the proxy.
func TestHostMatrixClaudeMcpList(t *testing.T) {
	t.Parallel()
	k := newHostKit(t)
	claude := hostTool(t, "ELICITTY_CLAUDE_BIN", "Claude Code (@anthropic-ai/claude-code)")
	env := k.hostEnv(t, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	_, runEnv := hostedDir(t)
	server := k.counter()
	entry, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"counter": map[string]any{
		"command": server[0], "args": server[1:], "env": k.withMark(runEnv)}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(file, entry, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinIn(t, k.dir, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ELICITTY_CONFIG="},
		"proxy", "--install", "claude-code", "counter", "--write")
	if r.code != 0 {
		t.Fatalf("--install --write: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	written, _ := os.ReadFile(file)
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(written, &cfg); err != nil || cfg.MCPServers["counter"].Command != bin {
		t.Fatalf("the entry after --install (%v):\n%s\nwant the command %s", err, written, bin)
	}
	code, stdout, stderr := runHostCLI(t, 90*time.Second, k.dir, env, claude, "mcp", "list")
	want := "counter: " + bin + " proxy -- " + strings.Join(server, " ") + " - ✔ Connected"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("claude mcp list: exit %d\nstdout:\n%s\nstderr:\n%s\nwant a line %q", code, stdout, stderr, want)
	}
}
