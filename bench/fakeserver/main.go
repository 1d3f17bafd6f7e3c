// Command fakeserver is a stdio MCP server that scales what the bench scripts measure:
//
//	fakeserver [-tools N] [-delay D] [-enum N] [-pending N] [-stderr N]
//
// -tools lists N tools (tool-0 ... tool-N-1, each with a small input schema, answered
// from a list built once: go-sdk's AddTool checks each tool's schema, which took the
// fake server most of a second for 10,000 tools, a cost of the server, not of the
// client measured); -delay
// waits D before answering anything (a slow server); -enum adds the tool "pick" whose
// elicitation chooses among N options; -pending adds the tool "flood" that sends N
// elicitations at once and waits for all of them; -stderr writes N lines on stderr
// first (they fill the client's log).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	tools := flag.Int("tools", 10, "number of tools to list")
	delay := flag.Duration("delay", 0, "wait this long before serving")
	enum := flag.Int("enum", 0, "options of the pick tool's enum (0: no pick tool)")
	pending := flag.Int("pending", 0, "elicitations the flood tool sends at once (0: no flood tool)")
	stderr := flag.Int("stderr", 0, "lines to write on stderr before serving")
	flag.Parse()
	if *stderr > 0 {
		w := bufio.NewWriter(os.Stderr)
		for i := range *stderr {
			fmt.Fprintf(w, "log line %d of %d: something happened\n", i+1, *stderr)
		}
		_ = w.Flush()
	}
	time.Sleep(*delay)
	s := mcp.NewServer(&mcp.Implementation{Name: "fakeserver", Version: "0.0.0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"text": map[string]any{"type": "string", "description": "Some text."},
		"n":    map[string]any{"type": "integer", "minimum": 0},
	}}
	many := make([]*mcp.Tool, *tools)
	for i := range many {
		many[i] = &mcp.Tool{Name: fmt.Sprintf("tool-%d", i), Description: fmt.Sprintf("Tool number %d of %d.", i, *tools), InputSchema: schema}
	}
	obj := map[string]any{"type": "object"}
	if *enum > 0 {
		opts := make([]string, *enum)
		for i := range opts {
			opts[i] = fmt.Sprintf("option-%d", i)
		}
		sch := map[string]any{"type": "object", "properties": map[string]any{
			"pick": map[string]any{"type": "string", "title": "Pick one", "enum": opts},
		}, "required": []string{"pick"}}
		many = append(many, &mcp.Tool{Name: "pick", Description: "Asks to pick one option.", InputSchema: obj})
		s.AddTool(&mcp.Tool{Name: "pick", Description: "Asks to pick one option.", InputSchema: obj},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Pick one", RequestedSchema: sch})
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
			})
	}
	if *pending > 0 {
		sch := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
		many = append(many, &mcp.Tool{Name: "flood", Description: "Sends many elicitations at once.", InputSchema: obj})
		s.AddTool(&mcp.Tool{Name: "flood", Description: "Sends many elicitations at once.", InputSchema: obj},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var wg sync.WaitGroup
				var mu sync.Mutex
				var actions []string
				for i := range *pending {
					wg.Go(func() {
						res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("Request %d", i), RequestedSchema: sch})
						mu.Lock()
						defer mu.Unlock()
						if err == nil {
							actions = append(actions, res.Action)
						}
					})
				}
				wg.Wait()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(actions, " ")}}}, nil
			})
	}
	s.AddReceivingMiddleware(manyTools(many))
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fakeserver:", err)
		os.Exit(1)
	}
}

// pageSize is the tools of one tools/list page, go-sdk's default.
const pageSize = mcp.DefaultPageSize

// manyTools answers tools/list from tools (pages of pageSize, the cursor is the index of
// the next tool) and tools/call of a tool-N with "ok"; every other request goes to the
// server (the pick and flood tools, which tools lists too, are registered with it).
func manyTools(tools []*mcp.Tool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch r := req.(type) {
			case *mcp.ListToolsRequest:
				from := 0
				if r.Params != nil && r.Params.Cursor != "" {
					n, err := strconv.Atoi(r.Params.Cursor)
					if err != nil || n < 0 || n > len(tools) {
						return nil, fmt.Errorf("invalid cursor %q", r.Params.Cursor)
					}
					from = n
				}
				to := min(from+pageSize, len(tools))
				res := &mcp.ListToolsResult{Tools: tools[from:to]}
				if to < len(tools) {
					res.NextCursor = strconv.Itoa(to)
				}
				return res, nil
			case *mcp.CallToolRequest:
				if r.Params != nil && strings.HasPrefix(r.Params.Name, "tool-") {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				}
			}
			return next(ctx, method, req)
		}
	}
}
