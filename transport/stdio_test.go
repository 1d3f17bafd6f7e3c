package transport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport/wire"
)

const serverModeEnv = "ELICITTY_TRANSPORT_TEST_SERVER"

// TestMain re-runs the test binary as a stdio MCP server when serverModeEnv is set.
func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(runFixtureServer(mode))
	}
	os.Exit(m.Run())
}

func runFixtureServer(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot start: missing API key")
		return 2
	case "modern-only":
		return runModernOnlyServer()
	case "demo":
		return runDemoStdio()
	case "enum":
		return runEnumStdio()
	case "serve":
	case "raw", "raw-initerr", "raw-initdeep":
		return runRawStdio(mode)
	default:
		return 1
	}
	fmt.Println("Fixture server v1 starting (a banner on stdout)")
	// JSON that is not JSON-RPC 2.0, as loggers (pino) and careless servers print.
	fmt.Println(`{"level":30,"time":1,"msg":"listening"}`)
	fmt.Println(`[1,2,3]`)
	fmt.Println(`{"jsonrpc":"1.0","id":1,"result":{}}`)
	fmt.Fprintln(os.Stderr, "hello from stderr")
	fx := &fixture{schema: mustRead("schema_ordered.json")} // cwd is testdata
	s := newTestServer(fx)
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "crash", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "fatal: crashing on purpose")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "ask-crash", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The client calls "crash" while this form is open.
		_, _ = req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Doomed", RequestedSchema: fx.schema})
		return textResult("unreachable"), nil
	})
	s.AddTool(&mcp.Tool{Name: "env", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		wd, _ := os.Getwd()
		return textResult(os.Getenv("FIXTURE_SECRET") + " " + filepath.Base(wd)), nil
	})
	s.AddTool(&mcp.Tool{Name: "chatty", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("debug: this line is not JSON")
		return textResult("still alive"), nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

func mustRead(name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return []byte(strings.TrimSpace(string(b)))
}

func stdioServer(t *testing.T, mode string) config.Server {
	return config.Server{
		Name:    "proc",
		Command: os.Args[0],
		Args:    []string{"-test.run=^$"},
		Env:     map[string]string{serverModeEnv: mode, "FIXTURE_SECRET": "s3cret"},
		Cwd:     "testdata",
	}
}

func TestStdioElicitationBannerAndStderr(t *testing.T) {
	log := wire.New(500)
	a := newAnswerer(accept(map[string]any{"zeta": "x"}))
	s, err := Connect(context.Background(), stdioServer(t, "serve"), Options{Answerer: a, Protocol: legacy, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.HasPrefix(got, "accept ") {
		t.Errorf("tool saw %q", got)
	}
	if got, want := string(a.requests()[0].Schema), string(orderedSchema(t)); got != want {
		t.Errorf("schema order lost over stdio:\n got %s\nwant %s", got, want)
	}
	// A non-JSON line mid-session is skipped too.
	res, _, err = s.CallTool(context.Background(), "chatty", nil)
	if err != nil {
		t.Fatalf("chatty server broke the session: %v", err)
	}
	if got := resultText(t, res); got != "still alive" {
		t.Errorf("chatty = %q", got)
	}
	res, _, err = s.CallTool(context.Background(), "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "s3cret testdata" {
		t.Errorf("env/cwd = %q", got)
	}
	skipped := findEntries(log, func(e wire.Entry) bool {
		return e.Dir == wire.Note && strings.Contains(e.Text, "skipped non-JSON") && strings.Contains(e.Text, "stdout line")
	})
	if len(skipped) != 5 {
		t.Errorf("skipped %d lines, want 5 (banner, pino, array, jsonrpc 1.0, debug)", len(skipped))
	}
	stderr := findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.Stderr && e.Text == "hello from stderr" })
	if len(stderr) != 1 {
		t.Errorf("stderr line not logged")
	}
	for _, e := range log.Snapshot() {
		if strings.Contains(e.Text, "s3cret") && e.Dir != wire.In {
			t.Errorf("secret env value in log entry %+v", e)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if s.proc.Exited() == nil {
		t.Error("process still running after Close")
	}
}

func TestStdioServerExitsAtOnce(t *testing.T) {
	_, err := Connect(context.Background(), stdioServer(t, "exit"), Options{Log: wire.New(10)})
	var ce *ConnError
	var ee *process.ExitError
	if !errors.As(err, &ce) || !errors.As(err, &ee) {
		t.Fatalf("err = %v, want a ConnError wrapping a process.ExitError", err)
	}
	if ee.Status != 2 || len(ee.Stderr) == 0 || ee.Stderr[len(ee.Stderr)-1] != "cannot start: missing API key" {
		t.Errorf("exit = %+v", ee)
	}
	if msg := err.Error(); !strings.Contains(msg, `server "proc"`) || !strings.Contains(msg, "status 2") || !strings.Contains(msg, "missing API key") {
		t.Errorf("message %q lacks server, status or stderr", msg)
	}
}

func TestStdioCrashMidCall(t *testing.T) {
	events := make(chan Event, 4)
	s, err := Connect(context.Background(), stdioServer(t, "serve"), Options{Log: wire.New(100), Protocol: legacy,
		OnEvent: func(e Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, _, err = s.CallTool(context.Background(), "crash", nil)
	if e := <-events; e.Kind != "exit" || !strings.Contains(e.Text.Line(), "status 3") {
		t.Errorf("event = %+v, want an exit event", e)
	}
	var ee *process.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want an ExitError", err)
	}
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Errorf("err = %v is not a ConnError", err)
	}
	if ee.Status != 3 || !strings.Contains(strings.Join(ee.Stderr, "\n"), "fatal: crashing on purpose") {
		t.Errorf("exit = %+v", ee)
	}
}

func TestStdioMissingCommand(t *testing.T) {
	_, err := Connect(context.Background(), config.Server{Name: "nope", Command: "./no-such-command-here"}, Options{})
	var ce *ConnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `server "nope"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestAnswererSeesStdioRequestOnce(t *testing.T) {
	// The same Answerer value serves every origin; make sure a stdio push is OriginPush.
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s, err := Connect(context.Background(), stdioServer(t, "serve"), Options{Answerer: a, Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "decline null" {
		t.Errorf("tool saw %q", got)
	}
	if r := a.requests(); len(r) != 1 || r[0].Origin != elicit.OriginPush || r[0].Server != "proc" {
		t.Errorf("requests = %+v", r)
	}
}

// TestStdioSilentServerTimesOut: a server that never answers initialize (here a shell
// wrapper whose child keeps the pipes open after the wrapper is gone) fails the connect
// with the timeout, within the shutdown graces, instead of hanging.
func TestStdioSilentServerTimesOut(t *testing.T) {
	testkit.External(t, "sh") // the server is a shell script
	srv := config.Server{Name: "silent", Command: "sh", Args: []string{"-c", "sleep 30 & wait"}, Timeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := Connect(context.Background(), srv, Options{Log: wire.New(10), Protocol: legacy})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), `server "silent": did not answer initialize`) {
			t.Fatalf("err = %v, want the initialize timeout of server \"silent\"", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Connect to a silent server did not return within 20s despite a 200ms timeout")
	}
}

// TestStdioCrashUnderOpenFormIsNotACancel: when the server dies while a form is open,
// the form ends, but nothing claims the server cancelled it; the exit is reported.
func TestStdioCrashUnderOpenFormIsNotACancel(t *testing.T) {
	events := make(chan Event, 8)
	var s *Session
	a := newAnswerer(func(ctx context.Context, r *elicit.Request) (elicit.Response, error) {
		go func() { _, _, _ = s.CallTool(context.Background(), "crash", nil) }()
		<-ctx.Done()
		return elicit.Response{}, ctx.Err()
	})
	var err error
	s, err = Connect(context.Background(), stdioServer(t, "serve"), Options{Answerer: a, Protocol: legacy, Log: wire.New(100),
		OnEvent: func(e Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err = s.CallTool(ctx, "ask-crash", nil)
	var ee *process.ExitError
	if !errors.As(err, &ee) || ee.Status != 3 {
		t.Errorf("err = %v, want the server's exit (status 3)", err)
	}
	for {
		select {
		case e := <-events:
			if e.Kind == "cancelled" {
				t.Fatalf("a crash was reported as a cancel: %+v", e)
			}
			if e.Kind == "exit" {
				return
			}
		case <-ctx.Done():
			t.Fatal("no exit event")
		}
	}
}
