package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

const legacy = "2025-11-25"

// modern pins the 2026-07-28 era (an unpinned session prefers legacy when offered).
const modern = "2026-07-28"

// orderedSchema is a requestedSchema whose property order (zeta, alpha, mid) differs
// from sorted order, so a lost order shows.
func orderedSchema(t testing.TB) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("testdata/schema_ordered.json")
	if err != nil {
		t.Fatal(err)
	}
	return json.RawMessage(bytes.TrimSpace(b))
}

// fixture is what the test server's tools do.
type fixture struct {
	schema json.RawMessage
	// urlApproved gates the "linked" tool (-32042 until approved).
	mu          sync.Mutex
	urlApproved bool
	urlCalls    int
	alwaysURL   bool
	ss          *mcp.ServerSession
	async       chan string // results of ask-async
}

// approve marks the link done and tells the client, as a consent page would.
func (fx *fixture) approve(id string) error {
	fx.mu.Lock()
	fx.urlApproved = true
	ss := fx.ss
	fx.mu.Unlock()
	return ss.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: id})
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newTestServer returns a go-sdk server with the fixture tools:
//   - ask: elicits the ordered form and returns "action content-json" or "error: ...".
//   - ask-short: elicits with a 200 ms deadline (the server cancels its own request).
//   - linked: -32042 until the fixture is approved, then "linked".
//   - echo: returns its "text" argument.
func newTestServer(fx *fixture) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Deploy where?", RequestedSchema: fx.schema})
		if err != nil {
			return textResult("error: " + err.Error()), nil
		}
		c, _ := json.Marshal(res.Content)
		return textResult(res.Action + " " + string(c)), nil
	})
	s.AddTool(&mcp.Tool{Name: "ask-short", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ectx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: "Quick!", RequestedSchema: fx.schema})
		if err != nil {
			return textResult("gave up"), nil
		}
		return textResult("answered"), nil
	})
	s.AddTool(&mcp.Tool{Name: "linked", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fx.mu.Lock()
		ok := fx.urlApproved && !fx.alwaysURL
		fx.urlCalls++
		fx.ss = req.Session
		fx.mu.Unlock()
		if ok {
			return textResult("linked"), nil
		}
		return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
			Mode: "url", Message: "Link your account", URL: "https://auth.example.com/link?s=1", ElicitationID: "lnk-1",
		}})
	})
	s.AddTool(&mcp.Tool{Name: "ask-async", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Not tied to the call: over Streamable HTTP it travels on the standalone GET stream.
		go func() {
			res, err := req.Session.Elicit(context.Background(), &mcp.ElicitParams{Message: "Later", RequestedSchema: fx.schema})
			if err != nil {
				fx.async <- "error: " + err.Error()
				return
			}
			fx.async <- res.Action
		}()
		return textResult("started"), nil
	})
	s.AddTool(&mcp.Tool{Name: "region", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		"count":  map[string]any{"type": "integer", "x-mcp-header": "Count"},
	}}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("ok"), nil
	})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		if tok == nil {
			return textResult("no token"), nil
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
		return textResult(fmt.Sprint(tok)), nil
	})
	s.AddTool(&mcp.Tool{Name: "slow-progress", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Busy for 8 x 50 ms, reporting progress each time.
		tok := req.Params.GetProgressToken()
		for i := range 8 {
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: 8})
		}
		return textResult("done"), nil
	})
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return textResult(args.Text), nil
	})
	return s
}

// answerer records requests and answers with fn.
type answerer struct {
	mu   sync.Mutex
	reqs []*elicit.Request
	seen chan *elicit.Request
	fn   func(ctx context.Context, r *elicit.Request) (elicit.Response, error)
}

func newAnswerer(fn func(ctx context.Context, r *elicit.Request) (elicit.Response, error)) *answerer {
	return &answerer{fn: fn, seen: make(chan *elicit.Request, 64)}
}

func (a *answerer) Answer(ctx context.Context, r *elicit.Request) (elicit.Response, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r)
	a.mu.Unlock()
	select {
	case a.seen <- r:
	default:
	}
	return a.fn(ctx, r)
}

func (a *answerer) requests() []*elicit.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*elicit.Request(nil), a.reqs...)
}

func accept(content map[string]any) func(context.Context, *elicit.Request) (elicit.Response, error) {
	return func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Content: content}, nil
	}
}

// connectMem connects to srv over in-memory transports.
func connectMem(t *testing.T, srv *mcp.Server, opts Options) *Session {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	if opts.Log == nil {
		opts.Log = wire.New(1000)
	}
	opts.transport = ct
	s, err := Connect(ctx, config.Server{Name: "mem"}, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func resultText(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) == 0 {
		t.Fatalf("empty result %+v", r)
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", r.Content[0])
	}
	return tc.Text
}

// findEntries returns the log entries matching pred.
func findEntries(l *wire.Log, pred func(wire.Entry) bool) []wire.Entry {
	var out []wire.Entry
	for _, e := range l.Snapshot() {
		if pred(e) {
			out = append(out, e)
		}
	}
	return out
}
