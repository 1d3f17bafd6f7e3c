package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
)

// chanOpener reports every URL it is asked to open on a channel.
type chanOpener chan string

func (o chanOpener) Open(_ context.Context, u string) error { o <- u; return nil }

// serveLoopback serves srv over Streamable HTTP on 127.0.0.1 for the test.
func serveLoopback(t *testing.T, srv *mcp.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL
}

// runProgram runs m in a teatest program attached to b; the program is stopped and the
// sessions closed when the test ends, also when it fails (a live SSE stream would
// otherwise keep the test server from closing).
func runProgram(t *testing.T, m *Model, b *Bridge) *teatest.TestModel {
	t.Helper()
	return runProgramSized(t, m, b, 80, 24)
}

// runProgramSized is runProgram in a w×h terminal.
func runProgramSized(t *testing.T, m *Model, b *Bridge, w, h int) *teatest.TestModel {
	t.Helper()
	m.ticks = false
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(w, h))
	b.Attach(tm.GetProgram())
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		m.closeAll()
	})
	return tm
}

// TestProgramURLRequiredRetryNow runs a -32042 flow through the real transport: the
// consent screen, the flow listed in the inbox, "retry now" (Session.RetryNow), and the
// retried call's result.
func TestProgramURLRequiredRetryNow(t *testing.T) {
	var calls atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "linker", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "link", Description: "Needs a linked account"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if calls.Add(1) == 1 {
				return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e-9",
					Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc"}})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("linked after %d calls", calls.Load())}}}, nil, nil
		})
	url := serveLoopback(t, srv)
	opened := make(chanOpener, 4)
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "linker", Kind: config.KindHTTP, URL: url, Protocol: "2025-11-25"}},
		Opener:  opened,
		NoColor: true,
	})
	tm := runProgram(t, m, b)
	waitScreen(t, tm, "Needs a linked account")
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Link your calendar.")
	tm.Send(testkit.Key("o"))
	if u := <-opened; u != "https://auth.example.com/link?s=abc" {
		t.Errorf("opened %q", u)
	}
	// The waiting screen follows the opener's return: a key sent before it lands on
	// the consent screen, which has no use for i.
	waitScreen(t, tm, "Waiting for the step in your browser")
	tm.Send(testkit.Key("i"))
	waitScreen(t, tm, "waiting for call #1")
	tm.Send(testkit.Key("n"))
	tm.Send(testkit.Key("<tab>")) // Inbox -> Tools
	waitScreen(t, tm, "linked after 2 calls")
	tm.Send(testkit.Key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probed).Model
	if len(fm.inbox.flows) != 0 {
		t.Errorf("flows after the retry: %+v", fm.inbox.flows)
	}
}

// TestProgramTimeoutPausedWhileFormOpen: while a form is open for a legacy pushed
// request, the originating call's own timeout (config Server.Timeout, --timeout) does
// not run; the user takes several times the timeout to answer and the call succeeds.
func TestProgramTimeoutPausedWhileFormOpen(t *testing.T) {
	// Long enough for the call to reach the form, and the answer its result, on a
	// loaded machine (150 ms was not, under -race beside a full run).
	const timeout = 2 * time.Second
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Asks a name"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %v (%s)", r.Content["name"], r.Action)}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	url := serveLoopback(t, srv)
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "asker", Kind: config.KindHTTP, URL: url, Protocol: "2025-11-25", Timeout: timeout}},
		NoColor: true,
	})
	tm := runProgram(t, m, b)
	waitScreen(t, tm, "Asks a name")
	// Control: without a form open, the timeout does fire.
	tm.Send(testkit.Key("<down>"))
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "timed out")
	tm.Send(testkit.Key("<up>"))
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Your name?")
	// The human thinks for several times the call's timeout. The timer is the subject
	// of the test, not a synchronisation.
	<-time.After(3 * timeout)
	for _, r := range "ada" {
		tm.Send(testkit.Key(string(r)))
	}
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, `"name": "ada"`)
	tm.Send(testkit.Key("a"))
	waitScreen(t, tm, "hello ada (accept)")
	tm.Send(testkit.Key("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestProgramURLRequiredCancel: c on the waiting screen of a -32042 flow asks, and c
// again cancels its call.
func TestProgramURLRequiredCancel(t *testing.T) {
	var calls atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "linker", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "link", Description: "Needs a linked account"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			calls.Add(1)
			return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e-9",
				Message: "Link your calendar.", URL: "https://auth.example.com/link?s=abc"}})
		})
	url := serveLoopback(t, srv)
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "linker", Kind: config.KindHTTP, URL: url, Protocol: "2025-11-25"}},
		Opener:  make(chanOpener, 4),
		NoColor: true,
	})
	tm := runProgram(t, m, b)
	waitScreen(t, tm, "Needs a linked account")
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Link your calendar.")
	tm.Send(testkit.Key("o"))
	// The waiting screen replaces the consent screen where the user is.
	waitScreen(t, tm, "Waiting for the step in your browser")
	waitScreen(t, tm, "r retry now")
	tm.Send(testkit.Key("c"))
	waitScreen(t, tm, "Cancel the call?")
	tm.Send(testkit.Key("c"))
	waitScreen(t, tm, "cancelled by you")
	if n := calls.Load(); n != 1 {
		t.Errorf("server got %d calls, want 1 (a cancelled call is not retried)", n)
	}
}
