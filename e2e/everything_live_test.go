package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/transport"
)

// TestEverythingRoots: server-everything offers get-roots-list only to a client that
// declares roots, and lists what elicitty declares (the working directory and --root).
func TestEverythingRoots(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wdURI, err := transport.RootURI(wd)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("call", "get-roots-list", "--root", "/srv/shared"))
			if r.code != 0 {
				t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			for _, want := range []string{"(2 total)", "URI: file:///srv/shared", "URI: " + wdURI} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("get-roots-list output lacks %q:\n%s", want, r.stdout)
				}
			}
			r = runArgv(t, target("tools", "--no-roots"))
			if r.code != 0 || strings.Contains(r.stdout, "get-roots-list") || !strings.Contains(r.stdout, "get-sum") {
				t.Errorf("tools --no-roots: exit %d, get-roots-list offered or list missing:\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestEverythingWatchSubscribes: watch subscribes (server-everything logs each
// subscribe at info, which --log-level info lets through) and prints the resource.
func TestEverythingWatchSubscribes(t *testing.T) {
	const uri = "demo://resource/static/document/features.md"
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("watch", uri, "--log-level", "info", "--for", "500ms"))
			if r.code != 0 {
				t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "== "+uri) || !strings.Contains(r.stdout, "Everything Server") {
				t.Errorf("watch did not print the resource:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, "log info Received Subscribe Resource request for URI: "+uri) {
				t.Errorf("the server's log of the subscribe is missing from stderr:\n%s", r.stderr)
			}
		})
	}
}

// TestEverythingUpdatesAndLogging runs server-everything's simulated resource updates
// and random-level logging over stdio: the session reports notifications/resources/updated
// for a subscribed resource, and log messages at or above the level set.
func TestEverythingUpdatesAndLogging(t *testing.T) {
	js := everythingJS(t)
	if testing.Short() {
		t.Skip("waits for server-everything's 5 s update interval")
	}
	events := make(chan transport.Event, 256)
	opts := transport.ForServer(config.Server{Name: "everything", LogLevel: "debug"}, elicit.AnswererFunc(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Cancel}, nil
	}))
	opts.OnEvent = func(ev transport.Event) {
		select {
		case events <- ev:
		default:
		}
	}
	opts.Procs = process.NewProcs()
	defer opts.Procs.Stop(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := transport.Connect(ctx, config.Server{Name: "everything", Command: "node", Args: []string{js, "stdio"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.CanSubscribe() || !s.CanLog() {
		t.Fatalf("server-everything: CanSubscribe %v, CanLog %v", s.CanSubscribe(), s.CanLog())
	}
	const uri = "demo://resource/static/document/features.md"
	if err := s.Subscribe(ctx, uri); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"toggle-subscriber-updates", "toggle-simulated-logging"} {
		if _, _, err := s.CallTool(ctx, tool, nil); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	var updated, logged bool
	for !updated || !logged {
		select {
		case ev := <-events:
			switch ev.Kind {
			case transport.EventResourceUpdated:
				updated = updated || ev.ID == uri
			case transport.EventLog:
				logged = true
				if !config.ValidLogLevel(ev.ID) || strings.ContainsRune(ev.Text.Line(), 0x1b) {
					t.Errorf("log event %q: %q", ev.ID, ev.Text.Line())
				}
			}
		case <-ctx.Done():
			t.Fatalf("updated %v, logged %v before the deadline", updated, logged)
		}
	}
}
