package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

func demoSession() *fakeSession {
	return &fakeSession{
		name:     "demo",
		protocol: "2025-11-25",
		tools: []*mcp.Tool{
			{Name: "echo", Description: "Echo text back", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","title":"Text"}},"required":["text"]}`)},
			{Name: "deploy", Description: "Deploy the service", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		},
		prompts: []*mcp.Prompt{{Name: "greet", Description: "Say hello"}},
		call: func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content: []mcp.Content{
					&mcp.TextContent{Text: "echo: " + args["text"].(string)},
					&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
				},
				StructuredContent: map[string]any{"echoed": args["text"], "length": len(args["text"].(string))},
			}, nil
		},
	}
}

func demoServers() []config.Server {
	return []config.Server{{Name: "demo", Command: "elicitty", Args: []string{"serve"}}, {Name: "broken", URL: "http://127.0.0.1:9/mcp"}}
}

// started returns a harness with demo ready and broken failed.
func started(t *testing.T, opts Options) *harness {
	t.Helper()
	opts.Servers = demoServers()
	opts.dial = connector(demoSession())
	h := newHarness(t, opts)
	h.run(h.m.Init())
	return h
}

func TestStartup(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(demoSession())})
	testkit.Golden(t, "startup_connecting", h.screen())
	h.run(h.m.Init())
	got := h.screen()
	testkit.Golden(t, "startup_ready", got)
	for _, want := range []string{"● demo", "ready 2025-11-25", "✗ broken", "refused", "echo", "deploy"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

func TestServersPaneSaysWhyThisEra(t *testing.T) {
	sess := demoSession()
	sess.era = "the server accepts initialize: 2025-11-25 is preferred because tools can push elicitation/create"
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
	h.run(h.m.Init())
	got := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"ready 2025-11-25", "preferred", "elicitation/ │ create"} {
		if !strings.Contains(got, want) {
			t.Errorf("servers pane lacks %q:\n%s", want, h.screen())
		}
	}
}

func TestResize(t *testing.T) {
	h := started(t, Options{})
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 16}, {80, 24}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(strings.TrimSuffix(h.screen(), "\n"), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := len([]rune(l)); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, l)
			}
		}
	}
}

func TestToolCall(t *testing.T) {
	h := started(t, Options{})
	// Tools are sorted: deploy, echo.
	h.keys("<down>", "<enter>")
	testkit.Golden(t, "tool_args", h.screen())
	h.typeText("hello")
	h.keys("<ctrl+s>")
	got := h.screen()
	testkit.Golden(t, "tool_result", got)
	for _, want := range []string{"echo: hello", "[image image/png, 1234 bytes]", `"echoed": "hello"`, "tools/call echo · done"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	h.keys("y")
	if len(h.side) != 1 {
		t.Fatalf("copy: side effects %v, want one clipboard write", h.side)
	}
}

func TestToolCallError(t *testing.T) {
	h := started(t, Options{})
	h.m.servers.rows[0].sess.(*fakeSession).call = func(context.Context, string, map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "replicas must be positive"}}}, nil
	}
	h.keys("<enter>", "y") // deploy: no arguments, not read-only: y runs it
	got := h.screen()
	if !strings.Contains(got, "tools/call deploy · error") || !strings.Contains(got, "replicas must be positive") {
		t.Errorf("error result not shown:\n%s", got)
	}
}

const everyKind = `{"type":"object","properties":{
 "name":{"type":"string","title":"Name","minLength":2},
 "age":{"type":"integer","title":"Age","minimum":0},
 "ratio":{"type":"number","title":"Ratio"},
 "subscribe":{"type":"boolean","title":"Subscribe","default":false},
 "color":{"type":"string","title":"Colour","enum":["red","green","blue"]},
 "tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b","c"]}},
 "password":{"type":"string","title":"Password"}
},"required":["name","color"]}`

func TestFormAnswered(t *testing.T) {
	h := started(t, Options{})
	reply := h.request(1, &elicit.Request{Server: "demo", Call: "tools/call signup", Protocol: "2025-11-25",
		Message: "Please sign up.", Schema: json.RawMessage(everyKind), Deadline: epoch.Add(90 * time.Second)})
	testkit.Golden(t, "form_open", h.screen())
	h.typeText("ada")
	h.keys("<tab>")
	h.typeText("42")
	h.keys("<tab>")
	h.typeText("0.5")
	h.keys("<tab>", "<space>", "<tab>", "<right>", "<right>", "<tab>", "<space>", "<right>", "<right>", "<space>", "<tab>")
	h.typeText("s3cret")
	testkit.Golden(t, "form_filled", h.screen())
	noReply(t, reply)
	h.keys("<ctrl+s>")
	got := replied(t, reply)
	want := elicit.Response{Action: elicit.Accept, Content: map[string]any{
		"name": "ada", "age": int64(42), "ratio": 0.5, "subscribe": true, "color": "green",
		"tags": []string{"a", "c"}, "password": "s3cret",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if len(h.m.inbox.items) != 0 || h.m.active != nil {
		t.Errorf("request still pending after the answer")
	}
}

func TestFormInlineError(t *testing.T) {
	h := started(t, Options{})
	reply := h.request(1, &elicit.Request{Server: "demo", Message: "Sign up", Schema: json.RawMessage(everyKind)})
	h.keys("<ctrl+s>") // name and colour are required
	noReply(t, reply)
	if s := h.screen(); !strings.Contains(s, "✗") {
		t.Errorf("no inline error shown:\n%s", s)
	}
}

func TestDeclineVsCancel(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want elicit.Action
	}{
		{"<ctrl+d>", elicit.Decline},
		{"<esc>", elicit.Cancel},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			h := started(t, Options{})
			reply := h.request(1, &elicit.Request{Server: "demo", Message: "Proceed?", Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
			h.keys(tc.key)
			got := replied(t, reply)
			if diff := cmp.Diff(elicit.Response{Action: tc.want}, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if !strings.Contains(h.screen(), ": "+string(tc.want)) {
				t.Errorf("status does not say %s:\n%s", tc.want, h.screen())
			}
		})
	}
}

func TestURLConsent(t *testing.T) {
	for _, tc := range []struct {
		key       string
		want      elicit.Action
		opened    bool
		clipboard bool
	}{
		{"o", elicit.Accept, true, false},
		{"c", elicit.Accept, false, true},
		{"d", elicit.Decline, false, false},
		{"<esc>", elicit.Cancel, false, false},
	} {
		t.Run(tc.key, func(t *testing.T) {
			op := &fakeOpener{}
			h := started(t, Options{Opener: op})
			reply := h.request(1, &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Call: "tools/call connect",
				Message: "Authorize access to your account.", URL: "https://auth.example.com/authorize?state=xyz", ElicitationID: "e-1"})
			if tc.key == "o" {
				testkit.Golden(t, "url_consent", h.screen())
			}
			h.keys(tc.key)
			if diff := cmp.Diff(elicit.Response{Action: tc.want}, replied(t, reply)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if got := len(op.opened) == 1; got != tc.opened {
				t.Errorf("opened = %v, want %v", op.opened, tc.opened)
			}
			if got := len(h.side) == 1; got != tc.clipboard {
				t.Errorf("clipboard writes %v, want %v", h.side, tc.clipboard)
			}
			if tc.want == elicit.Accept {
				h.keys("i")
				if s := h.screen(); !strings.Contains(s, "URL flows awaiting completion") {
					t.Errorf("pending URL flow not listed:\n%s", s)
				}
				h.send(eventMsg{Server: "demo", Kind: "elicitation-complete", ID: "e-1"})
				if s := h.screen(); strings.Contains(s, "URL flows awaiting completion") {
					t.Errorf("completed URL flow still listed:\n%s", s)
				}
			}
		})
	}
}

func TestTwoRequestsOutOfOrder(t *testing.T) {
	h := started(t, Options{})
	first := h.request(1, &elicit.Request{Server: "demo", Call: "tools/call deploy", Message: "First: which env?",
		Schema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)})
	h.typeText("prod") // a draft that must survive setting the request aside
	second := h.request(2, &elicit.Request{Server: "broken", Origin: elicit.OriginInputRequest, Call: "tools/call migrate",
		Message: "Second: how many?", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)})
	if len(h.side) != 2 {
		t.Errorf("arrival while editing: side effects %v, want bell and OSC 9", h.side)
	}
	testkit.Golden(t, "two_pending_badge", h.screen())
	h.keys("<ctrl+b>")
	testkit.Golden(t, "two_pending_inbox", h.screen())
	h.keys("<down>", "<enter>")
	h.typeText("7")
	h.keys("<ctrl+s>")
	if diff := cmp.Diff(elicit.Response{Action: elicit.Accept, Content: map[string]any{"n": int64(7)}}, replied(t, second)); diff != "" {
		t.Errorf("second (-want +got):\n%s", diff)
	}
	noReply(t, first)
	// The first, set aside, waits in the inbox until opened, with its draft.
	if h.m.active != nil {
		t.Fatalf("request %d opened by itself after it was set aside", h.m.active.id)
	}
	h.keys("i", "<enter>")
	h.keys("<ctrl+s>")
	if diff := cmp.Diff(elicit.Response{Action: elicit.Accept, Content: map[string]any{"env": "prod"}}, replied(t, first)); diff != "" {
		t.Errorf("first (-want +got):\n%s", diff)
	}
}

func TestServerCancelled(t *testing.T) {
	h := started(t, Options{})
	reply := h.request(1, &elicit.Request{Server: "demo", Call: "tools/call deploy", Message: "Which env?",
		Schema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)})
	h.request(2, &elicit.Request{Server: "demo", Call: "tools/call slow", Message: "Still there?",
		Schema: json.RawMessage(`{"type":"object","properties":{}}`), Deadline: epoch.Add(-time.Second)})
	h.send(elicitGoneMsg{id: 1, why: "cancelled by the server"})
	noReply(t, reply)
	h.send(elicitGoneMsg{id: 2, why: "expired"})
	h.keys("i")
	got := h.screen()
	testkit.Golden(t, "server_cancelled", got)
	for _, want := range []string{"cancelled by the server", "expired", "Inbox: 0 pending"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

func logEntries() []wire.Entry {
	t0 := epoch
	return []wire.Entry{
		{Seq: 1, Time: t0, Server: "demo", Dir: wire.Out, Method: "initialize", ID: "1", Size: 180, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)},
		{Seq: 2, Time: t0, Server: "demo", Dir: wire.In, ID: "1", Size: 320, Latency: 12 * time.Millisecond, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{Seq: 3, Time: t0, Server: "broken", Dir: wire.Out, Method: "initialize", ID: "1", Size: 180},
		{Seq: 4, Time: t0, Server: "demo", Dir: wire.Stderr, Text: "listening on stdio"},
		{Seq: 5, Time: t0, Server: "demo", Dir: wire.Out, Method: "tools/call", ID: "2", Size: 95, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)},
		{Seq: 6, Time: t0, Server: "demo", Dir: wire.In, Method: "elicitation/create", ID: "7", Size: 400},
		{Seq: 7, Time: t0, Server: "demo", Dir: wire.In, ID: "2", Size: 60, Latency: 1500 * time.Millisecond},
	}
}

func TestLogFiltered(t *testing.T) {
	h := started(t, Options{})
	h.send(logEntriesMsg(logEntries()))
	h.keys("<tab>", "<tab>", "<tab>") // Log
	testkit.Golden(t, "log_all", h.screen())
	h.keys("/")
	h.typeText("server:demo method:tools")
	h.keys("<enter>")
	h.keys("<enter>") // expand the only match
	got := h.screen()
	testkit.Golden(t, "log_filtered", got)
	if !strings.Contains(got, `"name": "echo"`) || strings.Contains(got, "broken   out") {
		t.Errorf("filter or expansion wrong:\n%s", got)
	}
}

// TestLogFilterEditing: the filter is a text input: the cursor moves, words can be
// deleted, and the filter applies as it is typed.
func TestLogFilterEditing(t *testing.T) {
	h := started(t, Options{})
	h.send(logEntriesMsg(logEntries()))
	h.keys("<tab>", "<tab>", "<tab>", "/") // Log, then edit the filter
	h.typeText("tools")
	if s := h.screen(); !strings.Contains(s, "Log: 1/7") || !strings.Contains(s, "filter: tools▏") {
		t.Fatalf("filter not applied while typing:\n%s", s)
	}
	for range len("tools") {
		h.keys("<left>")
	}
	h.typeText("method:")
	if s := h.screen(); !strings.Contains(s, "filter: method:▏tools") || !strings.Contains(s, "Log: 1/7") {
		t.Fatalf("text not inserted at the cursor:\n%s", s)
	}
	h.keys("<ctrl+u>") // delete before the cursor
	h.keys("<enter>")
	if s := h.screen(); !strings.Contains(s, "filter: tools") || strings.Contains(s, "▏") {
		t.Errorf("after ctrl+u and enter, want filter \"tools\" and no cursor:\n%s", s)
	}
	h.keys("/", "<backspace>", "<enter>")
	if s := h.screen(); !strings.Contains(s, "filter: tool") || strings.Contains(s, "filter: tools") {
		t.Errorf("editing again did not start at the end of the filter:\n%s", s)
	}
	h.keys("/", "<esc>")
	if s := h.screen(); strings.Contains(s, "filter:") || !strings.Contains(s, "Log: 7/7") {
		t.Errorf("esc did not clear the filter:\n%s", s)
	}
}

func TestLogBounded(t *testing.T) {
	l := newLogPane(100, &styles{})
	for i := range 1000 {
		l.add([]wire.Entry{{Seq: uint64(i + 1), Server: "demo", Dir: wire.Out, Method: "ping"}})
	}
	if len(l.ring) != 100 || l.dropped != 900 || l.ring[0].Seq != 901 {
		t.Errorf("ring len %d dropped %d first %d, want 100 900 901", len(l.ring), l.dropped, l.ring[0].Seq)
	}
}

func TestServerExitAndReconnect(t *testing.T) {
	h := started(t, Options{})
	sess := h.m.servers.rows[0].sess.(*fakeSession)
	h.send(eventMsg{Server: "demo", Kind: "exit", Text: safe.Untrusted("exit status 1")})
	if s := h.screen(); !strings.Contains(s, "✗ demo") || !strings.Contains(s, "exit status 1") {
		t.Fatalf("exit not shown:\n%s", s)
	}
	h.keys("r") // the cursor is on demo
	if got := h.m.servers.rows[0].state; got != stateReady {
		t.Errorf("state after reconnect = %v, want ready", got)
	}
	sess.mu.Lock()
	closed := sess.closed
	sess.mu.Unlock()
	if !closed {
		t.Error("the old session was not closed")
	}
}

func TestPromptGet(t *testing.T) {
	h := started(t, Options{})
	h.keys("<tab>", "<enter>", "<enter>") // Prompts, greet, confirm (no arguments)
	if got := h.m.calls.selectedText(); got != "[user]\nhi" {
		t.Errorf("prompt result = %q", got)
	}
}

func TestJSONEditorFallback(t *testing.T) {
	var gotArgs map[string]any
	sess := demoSession()
	sess.tools = []*mcp.Tool{{Name: "configure", InputSchema: json.RawMessage(`{"type":"object","properties":{"cfg":{"type":"object","properties":{"a":{"type":"string"}}}}}`)}}
	sess.call = func(_ context.Context, _ string, args map[string]any) (*mcp.CallToolResult, error) {
		gotArgs = args
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
	h.run(h.m.Init())
	h.keys("<enter>")
	if s := h.screen(); !strings.Contains(s, "the schema is too rich for a form") {
		t.Fatalf("no JSON editor:\n%s", s)
	}
	h.keys("<ctrl+k>") // delete the skeleton, {}
	h.typeText(`{"cfg":{"a":"x"`)
	h.keys("<ctrl+s>")
	if s := h.screen(); !strings.Contains(s, "line 1, column 16: unexpected end of input") {
		t.Errorf("invalid JSON accepted, or no line and column:\n%s", s)
	}
	h.typeText(`}}`)
	h.keys("<ctrl+s>")
	if diff := cmp.Diff(map[string]any{"cfg": map[string]any{"a": "x"}}, gotArgs); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
}

func TestFullHelp(t *testing.T) {
	h := started(t, Options{})
	h.keys("?")
	got := h.screen()
	testkit.Golden(t, "full_help", got)
	if n := strings.Count(got, "\n"); n != 24 {
		t.Errorf("screen has %d lines, want 24", n)
	}
	for _, want := range []string{"reconnect", "set aside", "follow"} {
		if !strings.Contains(got, want) {
			t.Errorf("full help lacks %q", want)
		}
	}
}

// TestColorsDecidedAfterStart: the colour decision Run learns after the model is built
// (Options.Colors) reaches every pane, the status line included.
func TestColorsDecidedAfterStart(t *testing.T) {
	m := New(t.Context(), NewBridge(), Options{Servers: demoServers(), dial: connector(demoSession())})
	m.ticks = false
	colour := "\x1b[36m" // the status line's cyan
	if !strings.Contains(m.View().Content, colour) {
		t.Fatalf("the status line is not coloured to begin with: %q", m.View().Content)
	}
	m.setNoColor(true)
	lines := strings.Split(m.View().Content, "\n")
	// The help bar (the last line) keeps the help component's own colours.
	if v := strings.Join(lines[:len(lines)-1], "\n"); strings.Contains(v, "\x1b[3") {
		t.Errorf("colour left after setNoColor(true): %q", v)
	}
	if !m.screenSize().NoColor {
		t.Error("the screens opened later would still be coloured")
	}
}

// TestCrowdConnectsAfterFirstFrame: with more servers than CPUs, no server starts
// before the first frame (their processes would take the CPUs it needs); each is
// connected a moment later, and all of them are listed.
func TestCrowdConnectsAfterFirstFrame(t *testing.T) {
	n := runtime.NumCPU() + 1
	var servers []config.Server
	var sessions []*fakeSession
	for i := range n {
		s := demoSession()
		s.name = fmt.Sprintf("s%d", i)
		sessions = append(sessions, s)
		servers = append(servers, config.Server{Name: s.name, Command: "elicitty", Args: []string{"serve"}})
	}
	// Dials may happen only while the program runs the commands Init returned: one
	// made by Init itself, or by a goroutine it started, is counted as early.
	var dials, early atomic.Int32
	var running atomic.Bool
	dial := connector(sessions...)
	h := newHarness(t, Options{Servers: servers, dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, ev func(transport.Event)) (session, error) {
		dials.Add(1)
		if !running.Load() {
			early.Add(1)
		}
		return dial(ctx, srv, a, ev)
	}})
	if !h.m.crowded() {
		t.Fatalf("%d servers on %d CPUs are not a crowd", n, runtime.NumCPU())
	}
	init := h.m.Init()
	if d := dials.Load(); d != 0 {
		t.Fatalf("%d servers dialled before the first frame", d)
	}
	if v := h.m.View().Content; !strings.Contains(v, "s0") {
		t.Fatalf("the first frame does not list the servers:\n%s", v)
	}
	running.Store(true)
	h.run(init)
	running.Store(false)
	if e := early.Load(); e != 0 {
		t.Fatalf("%d servers dialled outside the commands Init returned", e)
	}
	if d := dials.Load(); d != int32(n) {
		t.Fatalf("%d of %d servers dialled after the first frame", d, n)
	}
	for i, r := range h.m.servers.rows {
		if r.sess == nil {
			t.Errorf("server %d (%s) is not connected", i, r.srv.Name)
		}
	}
}
