package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// manyServers is a TUI over 32 servers at 80x24: every third fails with a long reason
// (whose end only the details show), every third never finishes connecting.
func manyServers(t *testing.T) *harness {
	t.Helper()
	var srvs []config.Server
	for i := range 32 {
		srvs = append(srvs, config.Server{Name: fmt.Sprintf("srv%02d", i), Command: "x"})
	}
	h := newHarness(t, Options{
		Servers: srvs,
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			var i int
			fmt.Sscanf(srv.Name, "srv%d", &i)
			switch i % 3 {
			case 0:
				return &fakeSession{name: srv.Name, protocol: "2025-11-25"}, nil
			case 1:
				return nil, &transport.ConnError{Server: srv.Name, Err: errors.New("server process exited with status 1; stderr: " +
					strings.Repeat("a long explanation ", 12) + "THE-END")}
			}
			<-ctx.Done() // still connecting
			return nil, ctx.Err()
		},
	})
	for i, r := range h.m.servers.rows {
		if i%3 == 2 {
			continue // its connectedMsg never comes
		}
		h.send(h.m.connect(i, r.gen)())
	}
	return h
}

// TestServersPaneManyServers: with more servers than rows, the pane keeps the frame,
// shows where the list continues, and scrolls so that the selected server shows.
func TestServersPaneManyServers(t *testing.T) {
	h := manyServers(t)
	testkit.Golden(t, "servers_many_top", h.screen())
	for range 31 { // every server, then srv30
		h.keys("s")
	}
	screen := h.screen()
	testkit.Golden(t, "servers_many_scrolled", screen)
	if lines := strings.Split(strings.TrimRight(screen, "\n"), "\n"); len(lines) != 24 {
		t.Errorf("the frame has %d lines, want 24", len(lines))
	}
	for _, want := range []string{"srv30", "↑", "more"} {
		if !strings.Contains(screen, want) {
			t.Errorf("scrolled screen lacks %q:\n%s", want, screen)
		}
	}
}

// TestServersPaneDetails: the full failure text is one key (e) away; any other key
// closes it.
func TestServersPaneDetails(t *testing.T) {
	h := manyServers(t)
	h.keys("s", "s") // srv00, then srv01, failed
	if strings.Contains(h.screen(), "THE-END") {
		t.Fatalf("the pane shows the whole reason; the test needs a longer one")
	}
	h.keys("e")
	screen := h.screen()
	for _, want := range []string{"Server srv01", "failed:", "THE-END"} {
		if !strings.Contains(screen, want) {
			t.Errorf("details lack %q:\n%s", want, screen)
		}
	}
	h.keys("<esc>")
	if strings.Contains(h.screen(), "THE-END") {
		t.Errorf("esc did not close the details:\n%s", h.screen())
	}
}

// TestServersPaneRestartingCount: r on a failed server shows "restarting (n)".
func TestServersPaneRestartingCount(t *testing.T) {
	h := manyServers(t)
	h.keys("s", "s") // srv00, then srv01, failed
	r := h.m.servers.restart(h.m.servers.cursor)
	if r == nil {
		t.Fatal("no row")
	}
	if got := h.screen(); !strings.Contains(got, "restarting (1)") {
		t.Errorf("screen lacks restarting (1):\n%s", got)
	}
}

// TestRestartLegacyReportsLostCalls: in a 2025 era, a call lost when its server
// crashed is not re-sent; restarting (r) starts a new session and says what was lost.
func TestRestartLegacyReportsLostCalls(t *testing.T) {
	dials := 0
	crash := &transport.ConnError{Server: "demo", Err: fmt.Errorf("tools/call t: %w", &process.ExitError{Status: 3})}
	h := newHarness(t, Options{
		Servers: []config.Server{{Name: "demo", Command: "x"}},
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			dials++
			s := &fakeSession{name: "demo", protocol: "2025-11-25"}
			if dials == 1 {
				s.call = func(context.Context, string, map[string]any) (*mcp.CallToolResult, error) { return nil, crash }
			}
			return s, nil
		},
	})
	h.run(h.m.Init())
	h.run(h.m.startCall(catTools, catItem{server: "demo", name: "t"}, nil))
	h.send(eventMsg(transport.Event{Server: "demo", Kind: "exit", Text: safe.Untrusted("server process exited with status 3")}))
	if got := h.screen(); !strings.Contains(got, "lost in the server's crash") || !strings.Contains(got, "failed") {
		t.Errorf("screen after the crash:\n%s", got)
	}
	h.keys("r")
	if dials != 2 {
		t.Fatalf("dialled %d times, want 2", dials)
	}
	if got := h.m.status; got != "demo restarted with a new session; 1 call(s) in flight were lost: tools/call t" {
		t.Errorf("status %q", got)
	}
	if len(h.m.servers.rows[0].resend) != 0 {
		t.Errorf("a 2025 call was queued for re-sending")
	}
}

// TestAutoRestartCapAndBackoff: restart: on-failure restarts a server that keeps
// crashing with a growing wait, and gives up after maxRestarts in a row, saying so.
func TestAutoRestartCapAndBackoff(t *testing.T) {
	dials := 0
	h := newHarness(t, Options{
		Servers: []config.Server{{Name: "demo", Command: "x", Restart: config.RestartOnFailure, MaxRestarts: 2}},
		dial: func(context.Context, config.Server, elicit.Answerer, func(transport.Event)) (session, error) {
			dials++
			return nil, &transport.ConnError{Server: "demo", Err: &process.ExitError{Status: 1}}
		},
	})
	// The harness follows the scheduled restarts (their backoff timers included).
	h.run(h.m.Init())
	if dials != 3 {
		t.Errorf("dialled %d times, want 3 (the start and 2 restarts)", dials)
	}
	r := h.m.servers.rows[0]
	if !strings.Contains(r.err, "gave up after 2 automatic restarts") {
		t.Errorf("failure text %q does not say it gave up", r.err)
	}
	if !strings.Contains(h.screen(), "failed") {
		t.Errorf("the pane does not show the failure:\n%s", h.screen())
	}
	if a, b, c := restartBackoff(1), restartBackoff(2), restartBackoff(10); !(a < b && c == 8*time.Second) {
		t.Errorf("backoff %v, %v, ..., %v: want growing up to 8s", a, b, c)
	}
}

// TestConnectErrorStatus: a server that did not answer initialize in time is named
// once on the status line, with the flag that allows it longer, as on the command line;
// any other connect error names it once too.
func TestConnectErrorStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&transport.HandshakeTimeoutError{After: time.Second}, "sh: did not answer initialize within 1s; allow it longer with --handshake-timeout"},
		{errors.New("dial tcp 127.0.0.1:9: connection refused"), "sh: dial tcp 127.0.0.1:9: connection refused"},
	} {
		dial := func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (session, error) {
			return nil, &transport.ConnError{Server: srv.Name, Err: tc.err}
		}
		h := newHarness(t, Options{Servers: []config.Server{{Name: "sh", Command: "sh"}}, dial: dial})
		h.run(h.m.Init())
		h.send(tea.WindowSizeMsg{Width: 120, Height: 24})
		s := h.screen()
		if !strings.Contains(s, tc.want) {
			t.Fatalf("the status line does not say %q:\n%s", tc.want, s)
		}
		if strings.Contains(s, `server "sh"`) {
			t.Fatalf("the status line names the server twice:\n%s", s)
		}
	}
}

// TestReadyStatusKeepsFailure: when a server fails before another becomes ready, the
// "ready" news on the status line goes on to say which failed and why, so the failure
// that came first is not hidden; with two failed it counts them.
func TestReadyStatusKeepsFailure(t *testing.T) {
	for _, tc := range []struct {
		servers []config.Server
		want    string
	}{
		{[]config.Server{{Name: "broken", URL: "http://127.0.0.1:9/mcp"}, {Name: "demo", Command: "elicitty"}},
			"demo ready · broken failed: dial tcp 127.0.0.1:9: connection refused"},
		{[]config.Server{{Name: "broken", URL: "http://127.0.0.1:9/mcp"}, {Name: "gone", Command: "nosuch"}, {Name: "demo", Command: "elicitty"}},
			"demo ready · 2 servers failed (✗ in the servers pane)"},
	} {
		h := newHarness(t, Options{Servers: tc.servers, dial: connector(demoSession())})
		h.send(tea.WindowSizeMsg{Width: 160, Height: 24})
		// Each connection attempt ends in server order: the failures first.
		h.run(h.m.Init())
		if h.m.status != tc.want {
			t.Errorf("status %q, want %q", h.m.status, tc.want)
		}
	}
}

// TestEmptyListSaysWhy: an empty list says why: "(nothing yet)" while a server
// connects, "(no server is ready)" when every server failed (not "nothing yet", as if
// it were still loading), and "(no resources)" when the ready servers offer none.
func TestEmptyListSaysWhy(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(demoSession())})
	if s := h.screen(); !strings.Contains(s, "(nothing yet)") {
		t.Errorf("while connecting the Tools list does not say nothing came yet:\n%s", s)
	}
	h.run(h.m.Init())
	h.keys("<tab>", "<tab>") // the Resources tab: the demo session has none
	if s := h.screen(); !strings.Contains(s, "(no resources)") {
		t.Errorf("the Resources list does not say no server offers any:\n%s", s)
	}

	failed := newHarness(t, Options{Servers: []config.Server{{Name: "broken", URL: "http://127.0.0.1:9/mcp"}}, dial: connector()})
	failed.run(failed.m.Init())
	if s := failed.screen(); !strings.Contains(s, "(no server is ready)") || strings.Contains(s, "(nothing yet)") {
		t.Errorf("with every server failed the Tools list does not say so:\n%s", s)
	}
}
