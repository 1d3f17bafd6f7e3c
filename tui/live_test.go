//lint:file-ignore SA1019 the fake session declares logging as 2025 servers do.

package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

// liveSession is a fake session with resources, subscriptions, logging and roots.
type liveSession struct {
	*fakeSession
	lmu       sync.Mutex
	lists     int      // Tools calls
	reads     []string // ReadResource URIs
	subs      []string // "+uri" / "-uri"
	levels    []string
	roots     []transport.Root
	rootsSets [][]string
	ticks     int
}

func newLiveSession() *liveSession {
	return &liveSession{fakeSession: demoSession(), roots: []transport.Root{{URI: "file:///home/ada/proj", Name: "proj"}}}
}

func (s *liveSession) Capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{Subscribe: true}, Logging: &mcp.LoggingCapabilities{}}
}
func (s *liveSession) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	s.lmu.Lock()
	s.lists++
	s.lmu.Unlock()
	return s.fakeSession.Tools(ctx)
}
func (s *liveSession) Resources(context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return []*mcp.Resource{{URI: "demo://readme", Description: "About"}, {URI: "demo://ticker", Description: "Changes every second"}}, nil, nil
}
func (s *liveSession) ReadResource(_ context.Context, uri string) (*mcp.ReadResourceResult, []transport.Round, error) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.reads = append(s.reads, uri)
	s.ticks++
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: fmt.Sprintf("tick %d", s.ticks)}}}, nil, nil
}
func (s *liveSession) CanSubscribe() bool { return true }
func (s *liveSession) Subscribe(_ context.Context, uri string) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.subs = append(s.subs, "+"+uri)
	return nil
}
func (s *liveSession) Unsubscribe(_ context.Context, uri string) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.subs = append(s.subs, "-"+uri)
	return nil
}
func (s *liveSession) CanLog() bool { return true }
func (s *liveSession) SetLogLevel(_ context.Context, level string) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.levels = append(s.levels, level)
	return nil
}
func (s *liveSession) RootsDeclared() bool { return true }
func (s *liveSession) Roots() []transport.Root {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return slices.Clone(s.roots)
}
func (s *liveSession) SetRoots(roots []string) error {
	rs, err := transport.RootsOf(roots)
	if err != nil {
		return err
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.roots = rs
	s.rootsSets = append(s.rootsSets, roots)
	return nil
}

// liveHarness is a harness over one liveSession named demo.
func liveHarness(t *testing.T) (*harness, *liveSession) {
	t.Helper()
	ls := newLiveSession()
	h := newHarness(t, Options{Servers: []config.Server{{Name: "demo", Command: "elicitty", Args: []string{"serve"}}},
		dial: func(context.Context, config.Server, elicit.Answerer, func(transport.Event)) (session, error) {
			return ls, nil
		}})
	h.run(h.m.Init())
	return h, ls
}

func TestRootsScreen(t *testing.T) {
	h, ls := liveHarness(t)
	h.keys("o")
	got := h.screen()
	testkit.Golden(t, "roots_screen", got)
	for _, want := range []string{"Roots of demo", "proj", "file:///home/ada/proj", "a add"} {
		if !strings.Contains(got, want) {
			t.Errorf("roots screen lacks %q:\n%s", want, got)
		}
	}
	h.keys("a")
	h.typeText("/srv/shared data")
	h.keys("<enter>")
	h.keys("<down>", "<up>", "d") // remove proj, the first
	want := [][]string{{"file:///home/ada/proj", "file:///srv/shared%20data"}, {"file:///srv/shared%20data"}}
	if diff := cmp.Diff(want, ls.rootsSets); diff != "" {
		t.Errorf("SetRoots calls (-want +got):\n%s", diff)
	}
	got = h.screen()
	testkit.Golden(t, "roots_screen_changed", got)
	if !strings.Contains(got, "file:///srv/shared%20data") || strings.Contains(got, "/home/ada/proj") {
		t.Errorf("roots screen after the changes:\n%s", got)
	}
	if !strings.Contains(got, "notifications/roots/list_changed sent") {
		t.Errorf("status does not say the server was told:\n%s", got)
	}
	// The server's entry keeps them for a restart.
	if diff := cmp.Diff([]string{"file:///srv/shared%20data"}, h.m.servers.rows[0].srv.Roots); diff != "" {
		t.Errorf("entry roots (-want +got):\n%s", diff)
	}
	h.keys("<esc>")
	if h.m.live.roots != nil || !strings.Contains(h.screen(), "Tools") {
		t.Error("esc did not close the roots screen")
	}
}

func TestRootsScreenWithoutRoots(t *testing.T) {
	h := newHarness(t, Options{Servers: []config.Server{{Name: "off", URL: "http://127.0.0.1:9/mcp", NoRoots: true}},
		dial: connector()})
	h.run(h.m.Init())
	h.keys("o", "a")
	got := h.screen()
	if !strings.Contains(got, "no roots are declared to this server") {
		t.Errorf("roots screen of a server without roots:\n%s", got)
	}
}

func TestSubscribeMarkAndReread(t *testing.T) {
	h, ls := liveHarness(t)
	h.keys("<tab>", "<tab>") // Resources
	h.keys("<down>", "u")    // demo://ticker
	if diff := cmp.Diff([]string{"+demo://ticker"}, ls.subs); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	if got := h.screen(); !strings.Contains(got, "+ demo://ticker") {
		t.Errorf("no subscribed mark:\n%s", got)
	}
	// Updated while another result is shown: marked, not read.
	h.send(eventMsg(transport.Event{Server: "demo", Kind: transport.EventResourceUpdated, ID: "demo://ticker", Text: safe.Untrusted("demo://ticker")}))
	got := h.screen()
	testkit.Golden(t, "resource_updated_mark", got)
	if !strings.Contains(got, "* demo://ticker") || len(ls.reads) != 0 {
		t.Errorf("updated mark missing or read unasked (reads %v):\n%s", ls.reads, got)
	}
	h.keys("<enter>") // read it: the mark goes
	if got := h.screen(); !strings.Contains(got, "tick 1") || strings.Contains(got, "* demo://ticker") {
		t.Errorf("after reading:\n%s", got)
	}
	// Updated while its result is shown: read again at once.
	h.send(eventMsg(transport.Event{Server: "demo", Kind: transport.EventResourceUpdated, ID: "demo://ticker"}))
	if got := h.screen(); !strings.Contains(got, "tick 2") {
		t.Errorf("the open resource was not read again:\n%s", got)
	}
	// Every update replaces the result: one entry, not one per update.
	for range 10 {
		h.send(eventMsg(transport.Event{Server: "demo", Kind: transport.EventResourceUpdated, ID: "demo://ticker"}))
	}
	if got := h.screen(); !strings.Contains(got, "tick 12") || !strings.Contains(got, "Result 1/1") || len(h.m.calls.calls) != 1 {
		t.Errorf("updates added Result entries (%d):\n%s", len(h.m.calls.calls), got)
	}
	h.keys("u")
	if diff := cmp.Diff([]string{"+demo://ticker", "-demo://ticker"}, ls.subs); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	if strings.Contains(h.screen(), "+ demo://ticker") {
		t.Error("the subscribed mark stayed after unsubscribing")
	}
}

func TestListChangedRefreshesOnce(t *testing.T) {
	h, ls := liveHarness(t)
	before := ls.lists
	// A burst: each event schedules a refresh; only the last one lists.
	var cmds []func()
	for range 3 {
		_, cmd := h.m.Update(eventMsg(transport.Event{Server: "demo", Kind: transport.EventListChanged, ID: transport.ListTools}))
		cmds = append(cmds, func() { h.run(cmd) })
	}
	for _, c := range cmds {
		c()
	}
	if got := ls.lists - before; got != 1 {
		t.Errorf("tools listed %d times after a burst of 3 list_changed, want 1", got)
	}
	if !strings.Contains(h.screen(), "lists changed, refreshed") {
		t.Errorf("status:\n%s", h.screen())
	}
}

func TestLogLevelCycles(t *testing.T) {
	h, ls := liveHarness(t)
	h.keys("v", "v")
	if diff := cmp.Diff([]string{"debug", "info"}, ls.levels); diff != "" {
		t.Errorf("levels set (-want +got):\n%s", diff)
	}
	if got := h.screen(); !strings.Contains(got, "demo: log level info") {
		t.Errorf("status:\n%s", got)
	}
}

func TestLogPaneShowsServerLogMessage(t *testing.T) {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
		"params": map[string]any{"level": "warning", "logger": "db", "data": "disk \x1b[31mfull\u202e"}})
	got := entryLine(wire.Entry{Server: "demo", Dir: wire.In, Method: "notifications/message", Raw: raw, Size: len(raw)})
	if !strings.Contains(got, "notifications/message warning [db] disk") || strings.ContainsAny(got, "\x1b\u202e") {
		t.Errorf("entryLine = %q", got)
	}
	long, _ := json.Marshal(map[string]any{"method": "notifications/message", "params": map[string]any{"level": "info", "data": map[string]any{"x": strings.Repeat("y", 5000)}}})
	if got := entryLine(wire.Entry{Dir: wire.In, Method: "notifications/message", Raw: long}); len(got) > 600 {
		t.Errorf("a long log message is not bounded: %d bytes", len(got))
	}
}
