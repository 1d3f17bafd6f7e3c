package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport/wire"
)

// TestRealTransport runs the whole chain: a go-sdk server on loopback whose tool
// elicits, transport.Connect (the default Connect), the elicit engine, the Bridge, the
// program and tui/form's form, and the wire log in the Log tab.
func TestRealTransport(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Ask a name and greet"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %v (%s)", r.Content["name"], r.Action)}}}, nil, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs.Listener = ln
	hs.Start()
	defer hs.Close()

	log := wire.New(1000)
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers:  []config.Server{{Name: "asker", Kind: config.KindHTTP, URL: hs.URL, Protocol: "2025-11-25"}},
		Log:      log,
		LogEvery: 10 * time.Millisecond,
		NoColor:  true,
	})
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(80, 24))
	b.Attach(tm.GetProgram())
	waitScreen(t, tm, "greet")
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once: the server asks
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Your name?")
	for _, r := range "ada" {
		tm.Send(testkit.Key(string(r)))
	}
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, `"name": "ada"`)
	tm.Send(testkit.Key("a"))
	waitScreen(t, tm, "hello ada (accept)")
	tm.Send(testkit.Key("<tab>"))
	tm.Send(testkit.Key("<tab>"))
	tm.Send(testkit.Key("<tab>")) // Log
	waitScreen(t, tm, "elicitation/create")
	tm.Send(testkit.Key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probed).Model
	fm.closeAll()
}
