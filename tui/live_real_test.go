//lint:file-ignore SA1019 the test server uses roots and logging as 2025 servers do.

package tui

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport/wire"
)

// TestRealNotifications runs the change notifications end to end over Streamable
// HTTP: a tool that adds a tool (the list refreshes), a subscribed resource that
// changes (re-read), a server log message (Log tab), and roots listed by the server
// before and after the roots screen changed them.
func TestRealNotifications(t *testing.T) {
	var tick atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	obj := map[string]any{"type": "object"}
	srv.AddResource(&mcp.Resource{URI: "live://counter", Name: "counter"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "live://counter", Text: fmt.Sprintf("count=%d", tick.Load())}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "bump", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tick.Add(1)
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "live", Data: "bumped"})
		_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "live://counter"})
		srv.AddTool(&mcp.Tool{Name: "zz_added", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "bumped"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "roots", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots: " + strings.Join(uris, " ")}}}, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)

	log := wire.New(1000)
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "live", Kind: config.KindHTTP, URL: hs.URL, Protocol: "2025-11-25",
			Roots: []string{"file:///srv/first"}, LogLevel: "info"}},
		Log: log, LogEvery: 10 * time.Millisecond, NoColor: true,
	})
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() {
		// Runs before hs.Close, also when the test fails: the sessions' streams end.
		_ = tm.Quit()
		m.closeAll()
		hs.CloseClientConnections()
	})
	b.Attach(tm.GetProgram())
	waitScreen(t, tm, "roots")
	tm.Send(testkit.Key("<down>"))
	tm.Send(testkit.Key("<enter>")) // roots
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "roots: file:///srv/first")

	tm.Send(testkit.Key("o"))
	waitScreen(t, tm, "Roots of live")
	tm.Send(testkit.Key("a"))
	for _, r := range "file:///srv/second" {
		tm.Send(testkit.Key(string(r)))
	}
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "notifications/roots/list_changed sent")
	tm.Send(testkit.Key("<esc>"))
	tm.Send(testkit.Key("<enter>")) // roots again
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "roots: file:///srv/first file:///srv/second")

	tm.Send(testkit.Key("<tab>"))
	tm.Send(testkit.Key("<tab>")) // Resources
	waitScreen(t, tm, "live://counter")
	tm.Send(testkit.Key("u"))
	waitScreen(t, tm, "+ live://counter")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "count=0")
	tm.Send(testkit.Key("<shift+tab>"))
	tm.Send(testkit.Key("<shift+tab>")) // Tools
	tm.Send(testkit.Key("<up>"))
	tm.Send(testkit.Key("<enter>")) // bump: logs, updates the counter, adds a tool
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "zz_added")   // the list refreshed on list_changed
	tm.Send(testkit.Key("<tab>"))
	tm.Send(testkit.Key("<tab>"))
	waitScreen(t, tm, "* live://counter") // updated while bump's result is shown
	tm.Send(testkit.Key("<tab>"))         // Log
	waitScreen(t, tm, "notifications/message warning [live] bumped")
	tm.Send(testkit.Key("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
