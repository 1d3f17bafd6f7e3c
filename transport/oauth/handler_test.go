package oauth_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

// countingBrowser follows the redirects like a browser that approves at once and
// counts the sign-ins it was sent to.
type countingBrowser struct {
	n    atomic.Int32
	urls chan string
}

func (b *countingBrowser) SignIn(ctx context.Context, s oauth.SignIn) error {
	b.n.Add(1)
	if b.urls != nil {
		b.urls <- s.URL
	}
	return oauth.FollowBrowser{}.SignIn(ctx, s)
}

type session struct {
	cs    *mcp.ClientSession
	h     *oauth.Handler
	b     *countingBrowser
	notes *bytes.Buffer
}

// connect signs in (as needed) and initializes a session with the fixture.
func connect(t *testing.T, srv *oauthtest.Server, opts oauth.Options) (*session, error) {
	t.Helper()
	b := &countingBrowser{}
	notes := &bytes.Buffer{}
	opts.Server = "fixture"
	opts.Resource = srv.URL
	if opts.Browser == nil {
		opts.Browser = b
	}
	opts.Notef = func(format string, args ...any) {
		notes.WriteString(strings.TrimSpace(sprintf(format, args...)) + "\n")
	}
	h, err := oauth.NewHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	hc := &http.Client{Transport: h.Transport(http.DefaultTransport)}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, OAuthHandler: h, DisableStandaloneSSE: true, HTTPClient: hc}, nil)
	s := &session{cs: cs, h: h, b: b, notes: notes}
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return s, err
}

func (s *session) echo(t *testing.T, text string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func TestSignInThenCall(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{ScopesSupported: []string{"read"}})
	s, err := connect(t, srv, oauth.Options{})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	got, err := s.echo(t, "hi")
	if err != nil || got != "echo: hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	if n := s.b.n.Load(); n != 1 {
		t.Errorf("browser sign-ins = %d, want 1", n)
	}
	if diff := cmp.Diff([]string{srv.URL}, srv.Resources()); diff != "" {
		t.Errorf("resource parameter (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"read"}}, srv.Scopes()); diff != "" {
		t.Errorf("requested scopes (-want +got):\n%s", diff)
	}
}

// seed stores a token minted by the fixture that the client sees as expiring at
// expiry (the server accepts it for an hour).
func seed(t *testing.T, srv *oauthtest.Server, expiry time.Time) *oauth.Store {
	t.Helper()
	store := oauth.NewStore(filepath.Join(t.TempDir(), "oauth-tokens.json"))
	at, rt := srv.Issue(nil, time.Hour)
	err := store.Save(oauth.Entry{Server: "fixture", Resource: srv.URL, ClientID: "seeded",
		TokenURL: srv.Issuer + "/token", AuthStyle: oauth2.AuthStyleInParams, AccessToken: at, RefreshToken: rt, TokenType: "Bearer", Expiry: expiry})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func TestRefreshBeforeExpiry(t *testing.T) {
	// The stored token expires in 5 s: oauth2 refreshes 10 s early, so the first
	// request refreshes it instead of signing in again.
	srv := oauthtest.New(t, oauthtest.Config{})
	store := seed(t, srv, time.Now().Add(5*time.Second))
	s, err := connect(t, srv, oauth.Options{Store: store})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := s.echo(t, "a"); err != nil {
		t.Fatalf("echo: %v", err)
	}
	c := srv.Counts()
	if c.Refreshes != 1 || c.Authorizations != 0 || s.b.n.Load() != 0 {
		t.Errorf("refreshes = %d, authorizations = %d, browser = %d; want 1, 0, 0", c.Refreshes, c.Authorizations, s.b.n.Load())
	}
	e, _, err := store.Load("fixture", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if time.Until(e.Expiry) < 30*time.Minute {
		t.Errorf("stored expiry %v is not the refreshed token's", e.Expiry)
	}
}

func TestExpiredTokenWithRefusedRefreshSignsInOnce(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{FailRefresh: true})
	store := seed(t, srv, time.Now().Add(-time.Minute))
	s, err := connect(t, srv, oauth.Options{Store: store})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := s.echo(t, "a"); err != nil {
		t.Fatalf("echo after refused refresh: %v", err)
	}
	c := srv.Counts()
	if c.Refreshes != 1 {
		t.Errorf("refreshes = %d, want 1\n%s", c.Refreshes, s.notes)
	}
	if n := s.b.n.Load(); n != 1 {
		t.Errorf("browser sign-ins = %d, want 1", n)
	}
	if !strings.Contains(s.notes.String(), "refresh failed (sign-in to fixture failed at refresh: invalid_grant") {
		t.Errorf("notes do not name the failed refresh:\n%s", s.notes)
	}
}

func TestRevokedTokenSignsInOnceNotInALoop(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	s, err := connect(t, srv, oauth.Options{})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	srv.RevokeAll()
	if _, err := s.echo(t, "a"); err != nil {
		t.Fatalf("echo after revocation: %v", err)
	}
	if n := s.b.n.Load(); n != 2 {
		t.Errorf("browser sign-ins = %d, want 2", n)
	}
	// A server that refuses every token: the sign-ins stop at MaxFlows.
	srv.RevokeAll()
	for range 5 {
		srv.RevokeAll()
		_, _ = s.echo(t, "b")
	}
	if n := s.b.n.Load(); n > oauth.DefaultMaxFlows {
		t.Errorf("browser sign-ins = %d, want at most %d", n, oauth.DefaultMaxFlows)
	}
}

func TestStepUp(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{ChallengeScope: "read", StepUp: []string{"read", "write"}})
	s, err := connect(t, srv, oauth.Options{})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got, err := s.echo(t, "up"); err != nil || got != "echo: up" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	scopes := srv.Scopes()
	for _, s := range scopes {
		slices.Sort(s)
	}
	if diff := cmp.Diff([][]string{{"read"}, {"read", "write"}}, scopes); diff != "" {
		t.Errorf("requested scopes (-want +got):\n%s", diff)
	}
	if c := srv.Counts(); c.Forbidden != 1 {
		t.Errorf("403s = %d, want 1", c.Forbidden)
	}
}

func TestStepUpThatNeverSucceedsStops(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{ChallengeScope: "admin", NeverEnough: true})
	s, err := connect(t, srv, oauth.Options{})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	_, err = s.echo(t, "x")
	if err == nil {
		t.Fatal("echo succeeded; want the step-up refusal")
	}
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Step != oauth.StepStepUp || ae.Code != "insufficient_scope" {
		t.Fatalf("error = %v; want an *oauth.Error at step-up with insufficient_scope", err)
	}
	if n := s.b.n.Load(); n != 1 {
		t.Errorf("browser sign-ins = %d, want 1 (no sign-in for a scope already granted)", n)
	}
}

func TestFailingRegistration(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{FailRegistration: true})
	_, err := connect(t, srv, oauth.Options{})
	if err == nil {
		t.Fatal("connect succeeded; want a registration error")
	}
	var ae *oauth.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an *oauth.Error", err)
	}
	if diff := cmp.Diff([]string{"registration", "invalid_client_metadata"}, []string{string(ae.Step), ae.Code}); diff != "" {
		t.Errorf("step and code (-want +got):\n%s", diff)
	}
	want := "sign-in to fixture failed at registration: invalid_client_metadata (redirect URI not allowed)"
	if ae.Error() != want {
		t.Errorf("message = %q, want %q", ae.Error(), want)
	}
	if c := srv.Counts(); c.Registrations != 1 || c.Authorizations != 0 {
		t.Errorf("counts = %+v; want 1 registration and no authorization", c)
	}
}

func TestPreRegisteredClientSkipsRegistration(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	if _, err := connect(t, srv, oauth.Options{ClientID: "pre", ClientSecret: "pre-secret-value"}); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if c := srv.Counts(); c.Registrations != 0 || c.CodeGrants != 1 {
		t.Errorf("counts = %+v; want no registration and one code grant", c)
	}
}

func TestTokenExchangeErrorIsScrubbed(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{FailExchange: true})
	_, err := connect(t, srv, oauth.Options{})
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Step != oauth.StepTokenExchange || ae.Code != "invalid_grant" {
		t.Fatalf("error = %v; want an *oauth.Error at token exchange with invalid_grant", err)
	}
	for _, sec := range srv.Secrets() {
		if strings.Contains(err.Error(), sec) {
			t.Errorf("error message carries a secret issued by the server: %s", err)
		}
	}
	if !strings.Contains(err.Error(), "<redacted>") {
		t.Errorf("error = %q; want the echoed code redacted", err)
	}
}

func TestStoredTokenIsReusedAndRefreshed(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	path := filepath.Join(t.TempDir(), "state", "elicitty", "oauth-tokens.json")
	store := oauth.NewStore(path)
	first, err := connect(t, srv, oauth.Options{Store: store})
	if err != nil {
		t.Fatalf("first connect: %v", err)
	}
	first.cs.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("token store not written: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("token store mode = %v, want 0600", perm)
	}
	second, err := connect(t, srv, oauth.Options{Store: store})
	if err != nil {
		t.Fatalf("second connect: %v", err)
	}
	if _, err := second.echo(t, "again"); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if n := second.b.n.Load(); n != 0 {
		t.Errorf("second session signed in %d times; want 0 (stored token)", n)
	}
	// An expired stored token without a usable refresh: one new sign-in.
	e, ok, err := store.Load("fixture", srv.URL)
	if err != nil || !ok {
		t.Fatalf("load: %v, %v", ok, err)
	}
	e.Expiry = time.Now().Add(-time.Hour)
	e.RefreshToken = ""
	if err := store.Save(e); err != nil {
		t.Fatal(err)
	}
	third, err := connect(t, srv, oauth.Options{Store: store})
	if err != nil {
		t.Fatalf("third connect: %v", err)
	}
	if n := third.b.n.Load(); n != 1 {
		t.Errorf("third session signed in %d times; want 1", n)
	}
	if n, err := store.Delete("fixture", ""); err != nil || n != 1 {
		t.Errorf("delete = %d, %v; want 1 entry removed", n, err)
	}
}

func TestCancelledBrowserStep(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	_, err := connect(t, srv, oauth.Options{Browser: oauth.BrowserFunc(func(context.Context, oauth.SignIn) error { return oauth.ErrCancelled })})
	if !errors.Is(err, oauth.ErrCancelled) {
		t.Fatalf("error = %v; want ErrCancelled", err)
	}
	_, err = connect(t, srv, oauth.Options{Browser: oauth.NoWaitBrowser{}})
	if !errors.Is(err, oauth.ErrNoWait) {
		t.Fatalf("error = %v; want ErrNoWait", err)
	}
}

func TestBrowserStepIsPaused(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	var paused atomic.Int32
	var sawPaused atomic.Bool
	b := oauth.BrowserFunc(func(ctx context.Context, s oauth.SignIn) error {
		sawPaused.Store(paused.Load() == 1)
		return oauth.FollowBrowser{}.SignIn(ctx, s)
	})
	_, err := connect(t, srv, oauth.Options{Browser: b, Pause: func() func() {
		paused.Add(1)
		return func() { paused.Add(-1) }
	}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if !sawPaused.Load() || paused.Load() != 0 {
		t.Errorf("paused during the browser step = %v, still paused after = %d; want true, 0", sawPaused.Load(), paused.Load())
	}
}

func TestUnauthorizedWithoutMetadataHints(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	h, err := oauth.NewHandler(oauth.Options{Server: "plain", Resource: ts.URL + "/mcp", Browser: oauth.FollowBrowser{}})
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Step != oauth.StepRegistration {
		t.Fatalf("error = %v; want an *oauth.Error at registration", err)
	}
	if want := "publishes no OAuth metadata"; !strings.Contains(ae.Error(), want) {
		t.Errorf("error %q lacks the hint %q", ae.Error(), want)
	}
}
