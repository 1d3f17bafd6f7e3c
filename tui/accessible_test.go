package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
)

func TestAccessibleLineMode(t *testing.T) {
	var asker elicit.Answerer
	sess := demoSession()
	sess.tools = append(sess.tools, &mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)})
	echo := sess.call
	sess.call = func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		if name != "signup" {
			return echo(ctx, name, args)
		}
		r, err := asker.Answer(ctx, &elicit.Request{Server: "demo", Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("welcome %v (%s)", r.Content["name"], r.Action)}}}, nil
	}
	opts := Options{Servers: demoServers(), Accessible: true,
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, ev func(transport.Event)) (session, error) {
			asker = a
			return connector(sess)(ctx, srv, a, ev)
		}}
	opts.defaults()
	in := iotest.OneByteReader(strings.NewReader("tools\ncall demo echo {\"text\":\"hi\"}\ncall demo signup\na\nada\na\nquit\n"))
	var out bytes.Buffer
	if err := runAccessible(t.Context(), opts, in, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"demo ready, protocol 2025-11-25", "broken failed", "demo echo: Echo text back", "echo: hi", "Your name?", "welcome ada (accept)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
