package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
	"github.com/elicitty/elicitty/proxy/inbox"
)

// inboxDir is a private runtime directory for a test's proxies and inboxes (mode 0700,
// as the inbox requires; t.TempDir's directories are 0755).
func inboxDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// colourAsk is the demo's mrtr_one form as a proxy forwards it for a host.
func colourAsk() *elicit.Request {
	return &elicit.Request{Server: "demo", ServerInfo: "elicitty-demo", Host: "Claude Desktop", Origin: elicit.OriginPush,
		Call: "tools/call mrtr_one", Tool: "mrtr_one", Protocol: "2025-11-25", Mode: elicit.ModeForm, Message: "Pick a colour",
		Schema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","title":"Colour","oneOf":[` +
			`{"const":"red","title":"Red"},{"const":"green","title":"Green"},{"const":"blue","title":"Blue"}]}},"required":["color"]}`)}
}

// TestTmuxInboxAnswersAProxyAsk runs `elicitty inbox` in a terminal against a proxy's
// broker in this process: the inbox lists the proxy, the ask opens as the usual form
// with the host and the server, rings the bell, and the typed answer reaches the
// proxy; an ask the proxy withdraws leaves the screen with its reason; quitting the
// inbox leaves an unanswered ask pending in the proxy; --list prints the proxy.
func TestTmuxInboxAnswersAProxyAsk(t *testing.T) {
	t.Parallel()
	dir := inboxDir(t)
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "Claude Desktop", Server: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mark := runMark(t) // after the terminal is gone
	tm := startTerm(t, tmuxterm.Options{Env: []string{"ELICITTY_RUNTIME_DIR=" + dir, mark}, RawOutput: true}, "inbox")
	tm.WaitFor("Proxies", "Claude Desktop", "› demo", fmt.Sprintf("pid %d", os.Getpid()), "Inbox: 0 pending")

	answered := make(chan elicit.Response, 1)
	go func() {
		r, err := b.Answer(context.Background(), colourAsk())
		if err != nil {
			r = elicit.Response{Action: elicit.Action("error: " + err.Error())}
		}
		answered <- r
	}()
	tm.WaitFocus("Colour *")
	tm.WaitFor(`Input requested by "Claude Desktop › demo" during tools/call mrtr_one`, "Pick a colour")
	tm.Keys("Down")
	tm.WaitFor("┃ > Green")
	tm.Keys("Enter")
	tm.WaitFor(`"color": "green"`, "[ Accept ]")
	tm.Keys("a")
	select {
	case r := <-answered:
		if r.Action != elicit.Accept || r.Content["color"] != "green" {
			t.Errorf("the proxy got %+v", r)
		}
	case <-time.After(termDeadline):
		t.Fatalf("no answer reached the proxy; screen:\n%s", tm.Screen())
	}
	// An OSC 9 notification, and the bell: a BEL beyond the OSC 9 terminators.
	tm.WaitOutputUntil("an OSC 9 notification and the bell", func(out string) bool {
		return strings.Contains(out, "\x1b]9;elicitty: Claude Desktop › demo asks for input") &&
			strings.Count(out, "\a")-strings.Count(out, "\x1b]9;") >= 1
	})

	// The proxy stops waiting: the form goes, with the reason.
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := b.Answer(ctx, colourAsk())
		gone <- err
	}()
	tm.WaitFocus("Colour *")
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("Answer = %v", err)
	}
	tm.WaitFor("withdrawn: cancelled by the server", "Inbox: 0 pending")

	// An ask still open when the inbox quits stays pending for another inbox.
	pending, stop := context.WithCancel(context.Background())
	defer stop()
	left := make(chan error, 1)
	go func() {
		_, err := b.Answer(pending, colourAsk())
		left <- err
	}()
	tm.WaitFocus("Colour *")
	tm.Keys("C-b") // set aside
	tm.WaitFor("Inbox: 1 pending")
	tm.Keys("q") // no confirmation: nothing of the inbox's own is cancelled
	if code, _ := tm.Wait(); code != 0 {
		t.Fatalf("elicitty inbox exited %d; screen:\n%s", code, tm.Screen())
	}
	r := runBin(t, []string{"ELICITTY_RUNTIME_DIR=" + dir}, "inbox", "--list")
	want := fmt.Sprintf("%d  Claude Desktop  demo    1", os.Getpid())
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("inbox --list: exit %d, stdout:\n%s\nstderr:\n%s\nwant a line %q", r.code, r.stdout, r.stderr, want)
	}
	select {
	case err := <-left:
		t.Errorf("the ask ended when the inbox quit: %v", err)
	default:
	}
}

// TestTmuxInboxProxyEndToEnd: a scripted host that declares no elicitation → the built
// `elicitty proxy -- elicitty serve-demo` → the demo's tools that ask; `elicitty inbox`
// in a terminal shows each question with the host and the server, the test answers as
// a user would, and the host receives the tool's result: a form (mrtr_one, pushed to a
// 2025-11-25 host), a URL-mode request (link_account) and a -32042 (needs_link), both
// opened with the recording opener. No process of the run survives it.
func TestTmuxInboxProxyEndToEnd(t *testing.T) {
	t.Parallel()
	dir := inboxDir(t)
	opener, record := fakeOpener(t)
	// The inbox's terminal goes first, so that it is killed after the host: its
	// cleanup runs last.
	mark := runMark(t) // after the terminal is gone
	tm := startTerm(t, tmuxterm.Options{Env: []string{"ELICITTY_RUNTIME_DIR=" + dir, "ELICITTY_OPENER=" + opener, mark}}, "inbox")
	tm.WaitFor("Proxies", "(none running)")
	h := startHost(t, []string{"ELICITTY_RUNTIME_DIR=" + dir}, bin, "proxy", "--", bin, "serve-demo")
	h.initialize()
	server := filepath.Base(bin)
	// The proxy names the host to the inbox once the host's initialize came.
	tm.WaitFor("scripted-host", "› "+server)

	// A form.
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mrtr_one","arguments":{}}}`)
	tm.WaitFocus("Colour *")
	screen := tm.WaitFor("Pick a colour")
	if want := `Input requested by "scripted-host › ` + server + `" during tools/call mrtr_one`; !strings.Contains(screen, want) {
		t.Errorf("the form lacks %q:\n%s", want, screen)
	}
	tm.Keys("Down", "Down")
	tm.WaitFor("┃ > Blue")
	tm.Keys("Enter")
	tm.WaitFor(`"color": "blue"`, "[ Accept ]")
	tm.Keys("a")
	if got := toolText(t, h.await("1", 30*time.Second)); got != "you picked blue" {
		t.Errorf("mrtr_one: the host got %q", got)
	}

	// URL mode, pushed, and a -32042: the consent screen, then the opener approves.
	for i, tool := range []string{"link_account", "needs_link"} {
		id := i + 2
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool))
		screen := tm.WaitFor("Nothing has been opened or fetched.", "Open in browser")
		if want := `"scripted-host › ` + server + `" asks you to open a link`; !strings.Contains(screen, want) {
			t.Errorf("%s: the consent screen lacks %q:\n%s", tool, want, screen)
		}
		tm.Keys("o")
		if got := toolText(t, h.await(fmt.Sprint(id), 30*time.Second)); got != "linked" {
			t.Errorf("%s: the host got %q\nproxy log:\n%s", tool, got, h.stderr)
		}
	}
	opened, err := os.ReadFile(record)
	if err != nil || strings.Count(string(opened), "\n") != 2 {
		t.Errorf("the opener ran for %q (%v), want two links", opened, err)
	}
	if code := h.close(); code != 0 {
		t.Errorf("the proxy exited %d\nstderr:\n%s", code, h.stderr)
	}
	tm.WaitFor("proxy gone: scripted-host", "(none running)")
	for _, l := range bytes.Split(bytes.TrimSpace(h.received()), []byte("\n")) {
		var m struct {
			Method string `json:"method"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("the host got a line that is not JSON: %q", l)
		}
		if m.Method == "elicitation/create" || (m.Error != nil && m.Error.Code == -32042) {
			t.Errorf("the host saw a question: %s", l)
		}
	}
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty inbox exited %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "proxy-"+fmt.Sprint(h.cmd.Process.Pid)+".sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the proxy left its socket: %v", err)
	}
}

// toolText is the text of a tools/call response's result; an error fails the test.
func toolText(t *testing.T, res map[string]any) string {
	t.Helper()
	if res["error"] != nil {
		t.Fatalf("error %v", res["error"])
	}
	r, _ := res["result"].(map[string]any)
	var texts []string
	content, _ := r["content"].([]any)
	for _, c := range content {
		if cm, ok := c.(map[string]any); ok {
			if s, ok := cm["text"].(string); ok {
				texts = append(texts, s)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// TestInboxFindsProxyOfStrippedHost is a desktop-like run: the host starts the proxy
// with the TypeScript SDK's environment (no XDG_RUNTIME_DIR, no TMPDIR, no
// ELICITTY_RUNTIME_DIR), while `elicitty inbox` runs in a shell that has
// XDG_RUNTIME_DIR and TMPDIR of its own; the inbox finds the proxy all the same.
func TestInboxFindsProxyOfStrippedHost(t *testing.T) {
	t.Parallel()
	h := startHost(t, []string{"ELICITTY_RUNTIME_DIR=", "XDG_RUNTIME_DIR=", "TMPDIR="}, bin, "proxy", "--", bin, "serve-demo")
	h.initialize()
	shell := []string{"ELICITTY_RUNTIME_DIR=", "XDG_RUNTIME_DIR=" + inboxDir(t), "TMPDIR=" + t.TempDir()}
	pid := h.cmd.Process.Pid
	var got struct {
		Proxies []inbox.Proxy `json:"proxies"`
		Places  []inbox.Place `json:"places"`
	}
	// The proxy opened its socket before it relayed the host's initialize.
	r := runBin(t, shell, "inbox", "--list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", r.code, r.stdout, err, r.stderr)
	}
	if !slices.ContainsFunc(got.Proxies, func(p inbox.Proxy) bool { return p.PID == pid }) {
		t.Fatalf("the inbox did not find the proxy (pid %d): %+v\nproxy log:\n%s", pid, got, h.stderr)
	}
	if len(got.Places) < 3 {
		t.Errorf("the inbox looked in %+v only", got.Places)
	}
	if code := h.close(); code != 0 {
		t.Errorf("the proxy exited %d\nstderr:\n%s", code, h.stderr)
	}
}

// TestTmuxTUIAttachesToProxies: `elicitty demo`, beside its own server, attaches to a
// running proxy and answers its ask in the Inbox like its own, named by host and
// server; the ask waits there (badge and bell) until opened.
func TestTmuxTUIAttachesToProxies(t *testing.T) {
	t.Parallel()
	dir := inboxDir(t)
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "Cursor", Server: "github"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mark := runMark(t)
	tm := startTerm(t, tmuxterm.Options{Env: []string{"ELICITTY_RUNTIME_DIR=" + dir, mark}}, "demo")
	// The status line says "demo ready" only until the proxy's attach notice replaces
	// it; the listed tools stay. The ask reaches the TUI whenever it attaches.
	tm.WaitFor("elicit_n")
	req := colourAsk()
	req.Host, req.Server, req.ServerInfo = "Cursor", "github", ""
	answered := make(chan elicit.Response, 1)
	go func() {
		r, _ := b.Answer(context.Background(), req)
		answered <- r
	}()
	// A proxy's question never takes the keyboard: the badge, then i and enter open it.
	tm.WaitFor("1 new", "new request from Cursor › github")
	tm.Keys("i")
	tm.WaitFor("Cursor › github form")
	tm.Keys("Enter")
	tm.WaitFocus("Colour *")
	tm.WaitFor(`Input requested by "Cursor › github" during tools/call mrtr_one`)
	tm.Keys("Enter")
	tm.WaitFor(`"color": "red"`, "[ Accept ]")
	tm.Keys("a")
	select {
	case r := <-answered:
		if r.Action != elicit.Accept || r.Content["color"] != "red" {
			t.Errorf("the proxy got %+v", r)
		}
	case <-time.After(termDeadline):
		t.Fatalf("no answer reached the proxy; screen:\n%s", tm.Screen())
	}
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty demo exited %d", code)
	}
}

// TestInboxList: `elicitty inbox --list --json` names each running proxy with its
// pending questions and the places it looked in, the table says where it looked when
// no proxy runs, and `elicitty inbox` without a terminal is a usage error.
func TestInboxList(t *testing.T) {
	t.Parallel()
	dir := inboxDir(t)
	env := []string{"ELICITTY_RUNTIME_DIR=" + dir}
	r := runBin(t, env, "inbox", "--list", "--json")
	if want := "{\n  \"places\": [\n    {\n      \"dir\": " + quoteJSON(dir) + "\n    }\n  ],\n  \"proxies\": []\n}"; r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Errorf("no proxy: exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
	if r := runBin(t, env, "inbox", "--list"); r.code != 0 || strings.TrimSpace(r.stdout) != "no elicitty proxy is running (looked in "+dir+")" {
		t.Errorf("no proxy, as a table: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "Windsurf", Server: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = b.Answer(ctx, colourAsk()) }()
	var got struct {
		Proxies []inbox.Proxy `json:"proxies"`
	}
	deadline := time.Now().Add(termDeadline)
	for {
		r = runBin(t, env, "inbox", "--list", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
			t.Fatalf("exit %d, stdout %q (%v), stderr %q", r.code, r.stdout, err, r.stderr)
		}
		if len(got.Proxies) == 1 && got.Proxies[0].Pending == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(termPoll) // the ask is filed by another goroutine
	}
	if len(got.Proxies) != 1 || got.Proxies[0].PID != os.Getpid() || got.Proxies[0].Host != "Windsurf" ||
		got.Proxies[0].Server != "linear" || got.Proxies[0].Pending != 1 {
		t.Errorf("proxies = %+v", got.Proxies)
	}
	if r := runBin(t, env, "inbox"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "needs a terminal") {
		t.Errorf("inbox without a terminal: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestTmuxInboxProxyEverything: the same path with server-everything: its form, which
// has one required field among many with defaults (the user types the name, takes
// every default, and the host gets the server's echo of the answer), then its URL
// request.
func TestTmuxInboxProxyEverything(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	dir := inboxDir(t)
	mark := runMark(t)
	opener, record := recordingOpener(t)
	tm := startTerm(t, tmuxterm.Options{Env: []string{"ELICITTY_RUNTIME_DIR=" + dir, "ELICITTY_OPENER=" + opener, mark}}, "inbox")
	tm.WaitFor("Proxies", "(none running)")
	h := startHost(t, []string{"ELICITTY_RUNTIME_DIR=" + dir}, bin, "proxy", "--", "node", js)
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-elicitation-request","arguments":{}}}`)
	screen := tm.WaitFor("Input requested by \"scripted-host › node")
	if !strings.Contains(screen, "during tools/call trigger-") { // the line wraps
		t.Errorf("the form does not name the call:\n%s", screen)
	}
	tm.TypeText("Grace Hopper")
	tm.WaitFor("> Grace Hopper")
	for i := 0; ; i++ {
		before := tm.Screen()
		if strings.Contains(before, "[ Accept ]") {
			break
		}
		if i == 40 {
			t.Fatalf("no review step after %d fields:\n%s", i, before)
		}
		// Wait for the next field to have the focus, not for any change: huh moves
		// the focus in two updates (a frame between them shows no field focused) and
		// the deadline in the status line counts down. An Enter sent before the move
		// ends is typed ahead (into the next field, or dropped at the review), so it
		// would not be the one step this loop counts.
		was := focusedLine(before)
		tm.Keys("Enter") // the field's default
		tm.WaitUntil("the next field", false, func(s string) bool {
			f := focusedLine(s)
			return strings.Contains(s, "[ Accept ]") || f != "" && f != was
		})
	}
	tm.Keys("a")
	got := toolText(t, h.await("1", 30*time.Second))
	if !strings.Contains(got, "Grace Hopper") || !strings.Contains(got, "Monica") {
		t.Errorf("the host got %q", got)
	}

	// Its URL request (the proxy adds URL mode, so the tool is offered): the consent
	// screen, and the link goes to the recording opener, which fetches nothing.
	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com/connect?x=1"}}}`)
	screen = tm.WaitFor("Nothing has been opened or fetched.", "Open in browser", "example.com")
	if !strings.Contains(screen, `"scripted-host › node" asks you to open a link`) {
		t.Errorf("the consent screen does not name host and server:\n%s", screen)
	}
	tm.Keys("o")
	got = toolText(t, h.await("2", 30*time.Second))
	if !strings.Contains(got, "User completed the URL elicitation flow") || !strings.Contains(got, `"action": "accept"`) {
		t.Errorf("trigger-url-elicitation: the host got %q", got)
	}
	if b, err := os.ReadFile(record); err != nil || strings.TrimSpace(string(b)) != "https://example.com/connect?x=1" {
		t.Errorf("the opener got %q (%v)", b, err)
	}
	if code := h.close(); code != 0 {
		t.Errorf("the proxy exited %d\nstderr:\n%s", code, h.stderr)
	}
}

// TestTmuxInboxURLRequiredEverything: server-everything's trigger-url-elicitation with
// errorPath: true answers the host's call with error -32042 and never sends a
// completion. Through the proxy, the inbox shows the consent, then the full-screen
// program's waiting screen (what is awaited, time since consent, keys); r has the proxy
// retry the host's call at once, the server then asks for its own link, and the host
// gets the tool's result instead of waiting the proxy's 10 minutes for nothing.
func TestTmuxInboxURLRequiredEverything(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	dir := inboxDir(t)
	mark := runMark(t)
	opener, record := recordingOpener(t)
	tm := startTerm(t, tmuxterm.Options{Env: []string{"ELICITTY_RUNTIME_DIR=" + dir, "ELICITTY_OPENER=" + opener, mark}}, "inbox")
	tm.WaitFor("Proxies", "(none running)")
	h := startHost(t, []string{"ELICITTY_RUNTIME_DIR=" + dir}, bin, "proxy", "--", "node", js)
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":` +
		`{"url":"https://example.com/connect","message":"Connect your account","errorPath":true}}}`)
	tm.WaitFor("Nothing has been opened or fetched.", "Open in browser", "modelcontextprotocol.io")
	tm.Keys("o")
	screen := tm.WaitFor("Waiting for the step in your browser", "r retry now", "o reopen", "c cancel")
	for _, want := range []string{"modelcontextprotocol.io", "since ", "1 pending"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the waiting screen lacks %q:\n%s", want, screen)
		}
	}
	tm.Keys("r")
	// The retried call takes the request path: the server asks for its own link.
	tm.WaitFor("Nothing has been opened or fetched.", "example.com")
	tm.Keys("o")
	got := toolText(t, h.await("1", 30*time.Second))
	if !strings.Contains(got, "User completed the URL elicitation flow") {
		t.Errorf("the host got %q", got)
	}
	b, err := os.ReadFile(record)
	if want := "https://modelcontextprotocol.io\nhttps://example.com/connect\n"; err != nil || string(b) != want {
		t.Errorf("the opener got %q (%v), want %q", b, err, want)
	}
	if code := h.close(); code != 0 {
		t.Errorf("the proxy exited %d\nstderr:\n%s", code, h.stderr)
	}
}

// focusedLine is the first line of the huh field that has the focus (the one its
// focus bar starts), or "" when no field has it.
func focusedLine(screen string) string {
	for _, line := range strings.Split(screen, "\n") {
		if i := strings.Index(line, "┃ "); i >= 0 {
			return strings.TrimSpace(line[i:])
		}
	}
	return ""
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
