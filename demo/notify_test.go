//lint:file-ignore SA1019 the demo shows roots and logging, deprecated in 2026-07-28 (SEP-2577).

package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestListRootsBothEras(t *testing.T) {
	each(t, func(t *testing.T, era string, l link) {
		s, _ := newDemo(t)
		c := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, nil) // go-sdk declares roots by default
		c.AddRoots(&mcp.Root{URI: "file:///home/u/proj", Name: "proj"}, &mcp.Root{URI: "file:///srv", Name: "srv"})
		cs := connectClient(t, s, era, l, c)
		if got := text(call(t, cs, "list_roots", map[string]any{})); got != "file:///home/u/proj\nfile:///srv" {
			t.Errorf("list_roots = %q", got)
		}
		none := connect(t, s, era, l, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		res := call(t, none, "list_roots", map[string]any{})
		if !res.IsError || !strings.Contains(text(res), "no roots capability") {
			t.Errorf("list_roots without roots = %q (isError %v)", text(res), res.IsError)
		}
	})
}

func TestAddToolLogsAndTicker(t *testing.T) {
	s, _ := newDemo(t)
	changed := make(chan struct{}, 4)
	updated := make(chan string, 16)
	logs := make(chan string, 16)
	cs := connect(t, s, legacy, viaHTTP, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			logs <- string(r.Params.Level)
		},
	})
	ctx := testCtx(t)
	if got := text(call(t, cs, "add_tool", map[string]any{})); got != "added added_1" {
		t.Errorf("add_tool = %q", got)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed after add_tool")
	}
	if got := text(call(t, cs, "added_1", map[string]any{})); got != "added_1 was added at run time" {
		t.Errorf("added_1 = %q", got)
	}

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "log_messages", map[string]any{})
	var got []string
	for len(got) < 4 {
		select {
		case l := <-logs:
			got = append(got, l)
		case <-ctx.Done():
			t.Fatalf("log messages at error and above: got %v", got)
		}
	}
	if strings.Join(got, " ") != "error critical alert emergency" {
		t.Errorf("levels sent = %v", got)
	}

	read := func() string {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: TickerURI})
		if err != nil {
			t.Fatal(err)
		}
		return rr.Contents[0].Text
	}
	before := read()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: TickerURI}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updated:
		if u != TickerURI {
			t.Errorf("updated %q", u)
		}
	case <-time.After(5 * tickEvery):
		t.Fatal("no notifications/resources/updated for the ticker")
	}
	if after := read(); after == before {
		t.Errorf("the ticker did not change: %q", after)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: TickerURI}); err != nil {
		t.Fatal(err)
	}
}
