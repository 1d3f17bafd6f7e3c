package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

func TestBridgeSignIn(t *testing.T) {
	si := oauth.SignIn{Server: "api", URL: "https://auth.example.com/authorize?client_id=x", RedirectURL: "http://127.0.0.1:5555/callback"}
	t.Run("not started", func(t *testing.T) {
		b := NewBridge()
		b.attach(func(tea.Msg) { t.Error("a sign-in nobody started reached the program") })
		if err := b.SignIn(t.Context(), si); !errors.Is(err, oauth.ErrNoWait) {
			t.Errorf("err = %v, want ErrNoWait", err)
		}
	})
	for _, tc := range []struct {
		action elicit.Action
		want   error
	}{
		{elicit.Accept, nil},
		{elicit.Decline, oauth.ErrCancelled},
		{elicit.Cancel, oauth.ErrCancelled},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			b := NewBridge()
			asked := make(chan elicitRequestMsg, 1)
			b.attach(func(msg tea.Msg) {
				if m, ok := msg.(elicitRequestMsg); ok {
					asked <- m
				}
			})
			b.allowSignIn("api")
			done := make(chan error, 1)
			go func() { done <- b.SignIn(t.Context(), si) }()
			m := <-asked
			want := &elicit.Request{Server: "api", Mode: elicit.ModeURL, Call: oauth.SignInCall, URL: si.URL,
				Message: "api asks you to sign in. After you sign in, the browser returns to http://127.0.0.1:5555/callback."}
			if diff := cmp.Diff(want, m.req); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			m.reply <- elicit.Response{Action: tc.action}
			if err := <-done; !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestServersPaneSignInNeeded(t *testing.T) {
	var mu sync.Mutex // the two servers are dialled at once
	dials := map[string]int{}
	dialled := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return dials[name]
	}
	h := newHarness(t, Options{
		Servers: []config.Server{{Name: "demo", Command: "elicitty"}, {Name: "api", URL: "https://api.example.com/mcp"}},
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			mu.Lock()
			dials[srv.Name]++
			mu.Unlock()
			if srv.Name == "demo" {
				return demoSession(), nil
			}
			return nil, &transport.ConnError{Server: srv.Name, Err: &oauth.Error{Server: srv.Name, Step: oauth.StepAuthorization, Err: oauth.ErrNoWait}}
		},
	})
	h.run(h.m.Init())
	h.keys("s", "s") // demo, then api
	testkit.Golden(t, "signin_needed", h.screen())
	h.keys("l")
	if dialled("api") != 2 {
		t.Errorf("api dialled %d times, want 2 (start, sign in)", dialled("api"))
	}
	if !h.m.bridge.signIn["api"] || h.m.bridge.signIn["demo"] {
		t.Errorf("sign-in allowed for %v, want api only", h.m.bridge.signIn)
	}
	h.keys("s", "l") // every server again, demo selected: a stdio server
	if dialled("demo") != 1 || !strings.Contains(h.m.status, "stdio") {
		t.Errorf("sign-in on a stdio server: dials %d, status %q", dialled("demo"), h.m.status)
	}
}

// followOpener plays the browser: it follows the authorization URL's redirects down to
// the loopback callback (the fixture's authorization server approves at once).
type followOpener struct{ opened chan string }

func (o followOpener) Open(ctx context.Context, u string) error {
	o.opened <- u
	return oauth.FollowBrowser{}.SignIn(ctx, oauth.SignIn{URL: u})
}

// TestProgramSignIn runs the sign-in end to end as cmd_tui wires it: the server needs
// a sign-in, the servers pane says so, l starts it, the sign-in page is shown on the
// consent screen, Open follows it, and the server connects.
func TestProgramSignIn(t *testing.T) {
	fx := oauthtest.New(t, oauthtest.Config{})
	opened := followOpener{make(chan string, 2)}
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "api", Kind: config.KindHTTP, URL: fx.URL}},
		Connect: func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (*transport.Session, error) {
			br, _ := a.(oauth.Browser)
			return transport.Connect(ctx, srv, transport.Options{Answerer: elicit.NewEngine(a, nil), OnEvent: onEvent,
				OAuth: &oauth.Options{Browser: br, Wait: 10 * time.Second}})
		},
		Opener:  opened,
		NoColor: true,
	})
	tm := runProgram(t, m, b)
	waitScreen(t, tm, "sign-in needed")
	tm.Send(testkit.Key("l"))
	waitScreen(t, tm, "asks you to sign in")
	tm.Send(testkit.Key("o"))
	if u := <-opened.opened; !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "code_challenge=") {
		t.Errorf("opened %q, want the fixture's authorization URL", u)
	}
	waitScreen(t, tm, "echoes text")
	if c := fx.Counts(); c.Authorizations != 1 {
		t.Errorf("fixture counts %+v, want one authorization", c)
	}
}
