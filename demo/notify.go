//lint:file-ignore SA1019 the demo shows roots and logging, deprecated in 2026-07-28 (SEP-2577) but alive in the 2025 eras.

package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TickerURI is the demo resource that changes every tickEvery while someone is
// subscribed to it.
const TickerURI = "demo://ticker"

// tickEvery is how often demo://ticker changes.
const tickEvery = time.Second

// notifier is the state of the demo's change notifications: the ticker and the tools
// added at run time.
type notifier struct {
	mu    sync.Mutex
	ticks int
	subs  int           // subscriptions to the ticker, across sessions
	stop  chan struct{} // closed by Close; nil until the ticker starts
	added int           // tools added by add_tool
}

// subscribe is the demo's resources/subscribe: only demo://ticker changes, and the
// ticker runs while anyone is subscribed.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != TickerURI {
		return nil // nothing else ever changes; subscribing is harmless
	}
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	n.subs++
	if n.stop == nil {
		n.stop = make(chan struct{})
		go s.tick(n.stop)
	}
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI != TickerURI {
		return nil
	}
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	n.subs = max(0, n.subs-1)
	return nil
}

// tick advances demo://ticker every tickEvery and tells its subscribers, until stop.
func (s *Server) tick(stop <-chan struct{}) {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		n := &s.notes
		n.mu.Lock()
		active := n.subs > 0
		if active {
			n.ticks++
		}
		n.mu.Unlock()
		if active {
			_ = s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: TickerURI})
		}
	}
}

// stopTicker ends the ticker goroutine, if it runs.
func (s *Server) stopTicker() {
	n := &s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stop != nil {
		close(n.stop)
		n.stop = nil
	}
}

// addNotifyTools registers what shows change notifications, logging and roots: the
// ticker resource and the add_tool, log_messages and list_roots tools.
func (s *Server) addNotifyTools() {
	s.mcp.AddResource(&mcp.Resource{
		URI: TickerURI, Name: "ticker", Title: "A resource that changes", MIMEType: "text/plain",
		Description: "Changes every second while you are subscribed to it (resources/subscribe); " +
			"each change sends notifications/resources/updated.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		s.notes.mu.Lock()
		n := s.notes.ticks
		s.notes.mu.Unlock()
		if req.Session != nil {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "demo", Data: fmt.Sprintf("read %s at tick %d", TickerURI, n)})
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain",
			Text: fmt.Sprintf("tick %d", n)}}}, nil
	})

	s.mcp.AddTool(&mcp.Tool{
		Name: "add_tool", Title: "Add a tool",
		Description: "Adds a new tool (added_1, added_2, ...) to this server, which then sends " +
			"notifications/tools/list_changed: the client's tool list refreshes.",
		InputSchema: map[string]any{"type": "object"},
		Annotations: changes(),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.notes.mu.Lock()
		s.notes.added++
		name := fmt.Sprintf("added_%d", s.notes.added)
		s.notes.mu.Unlock()
		s.mcp.AddTool(&mcp.Tool{Name: name, Description: "Added at run time by add_tool.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly()},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult(name+" was added at run time", nil), nil
			})
		return textResult("added "+name, map[string]any{"tool": name}), nil
	})

	s.mcp.AddTool(&mcp.Tool{
		Name: "log_messages", Title: "Send log messages",
		Description: "Sends one notifications/message at each level, debug to emergency; the client " +
			"sees those at or above the level it set with logging/setLevel (none before it sets one).",
		InputSchema: map[string]any{"type": "object"},
		Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		levels := []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
		for _, l := range levels {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: l, Logger: "demo", Data: "log_messages at level " + string(l)})
		}
		return textResult(fmt.Sprintf("sent %d log messages, one per level", len(levels)), nil), nil
	})

	s.mcp.AddTool(&mcp.Tool{
		Name: "list_roots", Title: "List your roots",
		Description: "Asks the client for its roots (roots/list; an input request in 2026-07-28) and " +
			"returns them, one URI per line.",
		InputSchema: map[string]any{"type": "object"},
		Annotations: readOnly(),
	}, s.listRoots)
}

// listRoots is the list_roots tool.
func (s *Server) listRoots(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var roots []*mcp.Root
	if isModern(req.Session) {
		caps := req.ClientCapabilities()
		if caps == nil || caps.RootsV2 == nil {
			return toolError(fmt.Errorf("the client declares no roots capability")), nil
		}
		got, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}, RequestState: "roots"}, nil
		}
		roots = got.Roots
	} else {
		ip := req.Session.InitializeParams()
		if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
			return toolError(fmt.Errorf("the client declares no roots capability")), nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return toolError(fmt.Errorf("roots/list: %w", err)), nil
		}
		roots = res.Roots
	}
	var lines []string
	for _, r := range roots {
		lines = append(lines, r.URI)
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = "(no roots)"
	}
	return textResult(text, map[string]any{"roots": roots}), nil
}
