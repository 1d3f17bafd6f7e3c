package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
)

// TestHTTPUpstream: a host without elicitation → proxy → a go-sdk Streamable HTTP
// server whose tool asks a form: the proxy answers it, every request carries the
// configured header, and the session is deleted when the host leaves.
func TestHTTPUpstream(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "http-fake", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["name"].(string)}}}, nil, nil
	})
	var mu sync.Mutex
	var methods []string
	missing := 0
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method)
		if r.Header.Get("X-Team") != "blue" {
			missing++
		}
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	up, err := DialHTTP(context.Background(), config.Server{Name: "web", URL: ts.URL, Headers: map[string]string{"X-Team": "blue"}}, transport.RelayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ans := &script{form: elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}}
	p := New(up, Options{Server: "web", Answerer: ans})
	hostInR, hostInW := io.Pipe()
	hostOutR, hostOutW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background(), hostInR, hostOutW); hostOutW.Close() }()
	h := &harness{t: t, hostW: hostInW, hostR: lines(hostOutR)}
	h.host(initNoElicit)
	if got := h.hostGot(); !strings.Contains(got, `"http-fake"`) {
		t.Fatalf("host got %s", got)
	}
	h.host(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	got := decode(t, h.hostGot())
	if text := fields(got, "result", "content"); text == nil || !strings.Contains(fmt.Sprint(text), "accept Ada") {
		t.Errorf("host got %v", got)
	}
	hostInW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if missing > 0 {
		t.Errorf("%d of %d requests lacked the configured header", missing, len(methods))
	}
	if len(methods) == 0 || methods[len(methods)-1] != http.MethodDelete {
		t.Errorf("HTTP methods %v, want the session deleted last", methods)
	}
	if r := ans.requests(); len(r) != 1 || r[0].ServerInfo != "http-fake" || r[0].Tool != "ask" {
		t.Errorf("asked %+v", r)
	}
}
