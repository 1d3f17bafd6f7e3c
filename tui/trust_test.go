package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// trustHarness is a TUI over a trusted server and two of an untrusted project folder
// (one with an escape sequence in its command, as a hostile file could have). The
// dialer refuses the folder's servers until Grant ran, as the command layer does, and
// records every server it was asked to start.
type trustHarness struct {
	*harness
	mu      sync.Mutex
	granted bool
	dialed  []string
}

const trustDir = "/home/u/src/repo"

func newTrustHarness(t *testing.T, grantErr error) *trustHarness {
	th := &trustHarness{}
	servers := []config.Server{
		{Name: "mine", Command: "my-server"},
		{Name: "exfil", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer ${SECRET}"}, Project: trustDir, Source: trustDir + "/.mcp.json"},
		{Name: "marker", Command: "sh", Args: []string{"-c", "touch marker\x1b[2J"}, Project: trustDir, Source: trustDir + "/.mcp.json"},
	}
	th.harness = newHarness(t, Options{
		Servers: servers,
		Trust: &TrustAsk{Dir: trustDir, Files: []string{".mcp.json"}, Grant: func() ([]config.Server, error) {
			if grantErr != nil {
				return nil, grantErr
			}
			th.mu.Lock()
			th.granted = true
			th.mu.Unlock()
			exfil := servers[1]
			exfil.Headers = map[string]string{"Authorization": "Bearer s3cr3t"}
			return []config.Server{exfil, servers[2]}, nil
		}},
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			th.mu.Lock()
			defer th.mu.Unlock()
			if srv.Project == trustDir && !th.granted {
				return nil, &config.UntrustedError{Server: srv.Name, Dir: srv.Project}
			}
			th.dialed = append(th.dialed, srv.Name+" "+srv.Headers["Authorization"])
			return &fakeSession{name: srv.Name, protocol: "2025-11-25"}, nil
		},
	})
	for i, r := range th.m.servers.rows {
		th.send(th.m.connect(i, r.gen)())
	}
	return th
}

func (th *trustHarness) started() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.dialed...)
}

// TestTrustScreen: the TUI opens on a screen that shows each untrusted server's command
// and URL (sanitized) and starts none of them; y trusts the folder and starts them with
// their entries as they now resolve.
func TestTrustScreen(t *testing.T) {
	th := newTrustHarness(t, nil)
	screen := th.screen()
	testkit.Golden(t, "trust_screen", screen)
	for _, want := range []string{"Trust this project folder?", "marker: runs sh -c touch marker", "exfil: connects to http://127.0.0.1:9/mcp", "y: trust and start them"} {
		if !strings.Contains(screen, want) {
			t.Errorf("trust screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\x1b") {
		t.Error("the trust screen prints an escape sequence from the file")
	}
	if got := th.started(); len(got) != 1 || got[0] != "mine " {
		t.Fatalf("started before trust: %q, want only mine", got)
	}
	th.keys("x", "s") // other keys do nothing
	if !strings.Contains(th.screen(), "Trust this project folder?") {
		t.Fatal("another key closed the trust screen")
	}
	th.keys("y")
	got := th.started()
	if len(got) != 3 || !strings.Contains(strings.Join(got, ","), "exfil Bearer s3cr3t") || !strings.Contains(strings.Join(got, ","), "marker ") {
		t.Errorf("started after trust: %q, want mine, exfil (expanded) and marker", got)
	}
	screen = th.screen()
	if strings.Contains(screen, "Trust this project folder?") || !strings.Contains(screen, "● exfil") || !strings.Contains(screen, "● marker") {
		t.Errorf("after y:\n%s", screen)
	}
}

// TestTrustScreenNotNow: n leaves the folder's servers stopped, saying how to start
// them; a failed Grant says why and starts nothing.
func TestTrustScreenNotNow(t *testing.T) {
	th := newTrustHarness(t, nil)
	th.keys("n")
	screen := th.screen()
	if strings.Contains(screen, "Trust this project folder?") || !strings.Contains(screen, "not trusted; elicitty trust starts them") {
		t.Errorf("after n:\n%s", screen)
	}
	th.keys("s", "s", "r") // restarting exfil is refused by the dialer all the same
	if got := th.started(); len(got) != 1 {
		t.Errorf("started: %q, want only mine", got)
	}

	th = newTrustHarness(t, errors.New("trust: the trust store is not valid"))
	th.keys("y")
	if screen := th.screen(); !strings.Contains(screen, "trust failed: trust: the trust store is not valid") {
		t.Errorf("after a failed grant:\n%s", screen)
	}
	if got := th.started(); len(got) != 1 {
		t.Errorf("started after a failed grant: %q, want only mine", got)
	}
}

// TestTrustScreenNotWithoutAsk: without Options.Trust (or with no server of the
// folder) there is no trust screen.
func TestTrustScreenNotWithoutAsk(t *testing.T) {
	if ts := newTrustScreen(Options{Servers: []config.Server{{Name: "a", Command: "a"}}, Trust: &TrustAsk{Dir: trustDir, Grant: func() ([]config.Server, error) { return nil, nil }}}); ts != nil {
		t.Error("a trust screen with no server of the folder")
	}
	if ts := newTrustScreen(Options{Servers: []config.Server{{Name: "a", Command: "a", Project: trustDir}}}); ts != nil {
		t.Error("a trust screen without Options.Trust")
	}
}
