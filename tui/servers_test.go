package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
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
	golden(t, "servers_many_top", h.screen())
	for range 30 {
		h.keys("s")
	}
	screen := h.screen()
	golden(t, "servers_many_scrolled", screen)
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
	h.keys("s") // srv01, failed
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
	h.keys("esc")
	if strings.Contains(h.screen(), "THE-END") {
		t.Errorf("esc did not close the details:\n%s", h.screen())
	}
}

// TestServersPaneRestartingCount: r on a failed server shows "restarting (n)".
func TestServersPaneRestartingCount(t *testing.T) {
	h := manyServers(t)
	h.keys("s") // srv01, failed
	_, r := h.m.servers.reconnect()
	if r == nil {
		t.Fatal("no row")
	}
	if got := h.screen(); !strings.Contains(got, "restarting (1)") {
		t.Errorf("screen lacks restarting (1):\n%s", got)
	}
}
