//lint:file-ignore SA1019 the test servers use roots and logging as 2025 servers do.

package transport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitEvent returns the first event of kind on events, failing after 5 s.
func waitEvent(t *testing.T, events <-chan Event, kind EventKind) Event {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", kind)
		}
	}
}

func TestSubscriptionsListChangedAndLogging(t *testing.T) {
	subs := make(chan string, 4)
	srv := mcp.NewServer(&mcp.Implementation{Name: "notifier", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(_ context.Context, r *mcp.SubscribeRequest) error { subs <- "+" + r.Params.URI; return nil },
		UnsubscribeHandler: func(_ context.Context, r *mcp.UnsubscribeRequest) error { subs <- "-" + r.Params.URI; return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "demo://clock", Name: "clock"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "demo://clock", Text: "now"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "log", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range []mcp.LoggingLevel{"debug", "warning"} {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: l, Logger: "db", Data: map[string]any{"msg": "at " + string(l) + "\x1b[31m"}})
		}
		return textResult("logged"), nil
	})
	events := make(chan Event, 64)
	s := connectMem(t, srv, Options{Protocol: legacy, LogLevel: "info", OnEvent: func(ev Event) { events <- ev }})
	if !s.CanSubscribe() || !s.CanLog() {
		t.Fatalf("CanSubscribe %v, CanLog %v", s.CanSubscribe(), s.CanLog())
	}
	ctx := context.Background()
	if err := s.Subscribe(ctx, "demo://clock"); err != nil {
		t.Fatal(err)
	}
	if got := <-subs; got != "+demo://clock" {
		t.Errorf("server saw %q", got)
	}
	if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "demo://clock"}); err != nil {
		t.Fatal(err)
	}
	if ev := waitEvent(t, events, EventResourceUpdated); ev.ID != "demo://clock" {
		t.Errorf("resource-updated event %+v", ev)
	}
	if err := s.Unsubscribe(ctx, "demo://clock"); err != nil {
		t.Fatal(err)
	}
	if got := <-subs; got != "-demo://clock" {
		t.Errorf("server saw %q", got)
	}

	srv.AddTool(&mcp.Tool{Name: "added", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("hi"), nil
	})
	if ev := waitEvent(t, events, EventListChanged); ev.ID != ListTools {
		t.Errorf("list-changed event %+v", ev)
	}

	// LogLevel info was sent at connect: the debug message is filtered by the server.
	callText(t, s, "log")
	ev := waitEvent(t, events, EventLog)
	if ev.ID != "warning" || ev.Text.Line() != `warning [db] {"msg":"at warning\u001b[31m"}` {
		t.Errorf("log event %+v, text %q", ev, ev.Text.Line())
	}
	if strings.ContainsRune(ev.Text.Line(), 0x1b) {
		t.Errorf("log text not sanitized: %q", ev.Text.Line())
	}
	if err := s.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("SetLogLevel accepted an unknown level")
	}
}

func TestLogTextBounded(t *testing.T) {
	got := logText("info", "", strings.Repeat("x", 10000))
	if len(got) > maxLogText+len("…") || !strings.HasPrefix(got, "info xxx") {
		t.Errorf("logText = %d bytes", len(got))
	}
}
