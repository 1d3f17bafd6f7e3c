package tui

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestCancelRunningCall: x on a running call cancels it; the server is told
// (notifications/cancelled ends its handler's context) and the result says so.
func TestCancelRunningCall(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			started, told := make(chan struct{}), make(chan struct{})
			srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					close(started)
					select {
					case <-ctx.Done():
						close(told)
						return nil, ctx.Err()
					case <-time.After(30 * time.Second):
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil
					}
				})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
			hs.Listener = ln
			hs.Start()
			t.Cleanup(hs.Close)
			b := NewBridge()
			m := New(t.Context(), b, Options{
				Servers: []config.Server{{Name: "slow", Kind: config.KindHTTP, URL: hs.URL, Protocol: "2025-11-25"}},
				NoColor: true,
			})
			tm := runProgramSized(t, m, b, size.w, size.h)
			waitScreen(t, tm, "slow       wait")
			tm.Send(testkit.Key("<enter>")) // no arguments: called at once
			tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
			got := screenOf(t, tm, "running… (x cancels)")
			if !strings.Contains(got, "1 in flight") {
				t.Errorf("the call is not shown in flight:\n%s", got)
			}
			select { // a call cancelled before it is sent never reaches the server
			case <-started:
			case <-time.After(5 * time.Second):
				t.Fatal("the call never reached the server")
			}
			tm.Send(testkit.Key("x"))
			select {
			case <-told:
			case <-time.After(5 * time.Second):
				t.Fatalf("the server was not told the call is cancelled:\n%s", screenOf(t, tm, ""))
			}
			waitScreen(t, tm, "cancelled by you")
			// Cancelled by the user is not a failure: no "error", no "failed".
			got = screenOf(t, tm, "tools/call wait · cancelled")
			if strings.Contains(got, "context canceled") {
				t.Errorf("Go's words reach the user:\n%s", got)
			}
			if strings.Contains(got, "error") || strings.Contains(got, "failed") {
				t.Errorf("a call the user cancelled reads as failed:\n%s", got)
			}
			if !strings.Contains(got, "tools/call wait cancelled") {
				t.Errorf("the status line does not say the call was cancelled:\n%s", got)
			}
		})
	}
}
