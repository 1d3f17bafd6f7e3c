package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/elicitty/elicitty/config"
)

// DefaultMaxFlows bounds the sign-ins one Handler runs: a server that keeps refusing
// fresh tokens gets an error, not an endless series of browser tabs.
const DefaultMaxFlows = 3

// DefaultWait bounds the wait for the browser's redirect when Options.Wait is zero.
const DefaultWait = 5 * time.Minute

// Options configures a Handler.
type Options struct {
	// Server is the catalog name of the MCP server (shown to the user, part of the
	// store key). Resource is its URL, the other part of the key; the transport fills
	// both when they are empty.
	Server, Resource string
	// Store keeps tokens between runs (a *Store file or a *Keyring); nil keeps them
	// in memory only. A store that cannot be read fails NewHandler, and a token that
	// cannot be stored fails the request that got it: neither is silent.
	Store TokenStore
	// Browser sends the user to the sign-in page. Required.
	Browser Browser
	// ClientID and ClientSecret are pre-registered credentials (config). ClientSecret
	// may be empty for a public client.
	ClientID, ClientSecret string
	// ClientMetadataURL is an https URL of a client ID metadata document, used as the
	// client_id when the authorization server supports such documents.
	ClientMetadataURL string
	// ClientName is the client_name for dynamic registration; "" means "elicitty".
	ClientName string
	// Scopes are requested in addition to those the server asks for.
	Scopes []string
	// RedirectPort fixes the loopback port (for clients registered with one redirect
	// URI); zero picks a free port.
	RedirectPort int
	// Wait bounds the wait for the redirect after the browser step; zero means
	// DefaultWait.
	Wait time.Duration
	// MaxFlows bounds the sign-ins; zero means DefaultMaxFlows.
	MaxFlows int
	// HTTPClient makes the discovery, registration and token requests; nil means a
	// plain client.
	HTTPClient *http.Client
	// Notef, when set, receives progress remarks (never a token or secret).
	Notef func(format string, args ...any)
	// Pause, when set, is called as the browser step begins; the function it returns
	// is called when the redirect has arrived (or the wait ended). The transport uses
	// it to stop request timeouts while the user signs in.
	Pause func() (resume func())

	// Grant is how tokens are obtained; "" means config.GrantAuthorizationCode. The other
	// grants need no Browser and store nothing: they run again when needed.
	Grant config.Grant
	// PrivateKeyPEM, when set, signs an RFC 7523 client assertion (private_key_jwt)
	// instead of sending ClientSecret (grants other than the authorization code).
	PrivateKeyPEM []byte
	// IdentityToken returns the identity token that GrantJWTBearer presents (the
	// workload's token) or GrantTokenExchange exchanges (the ID token); it is called
	// each time a token is needed.
	IdentityToken func(ctx context.Context) (string, error)
	// IdP is the identity provider of GrantTokenExchange.
	IdP *IdP
	// DPoP binds tokens to a key of this handler (RFC 9449). Bound tokens are not
	// stored: the key lives in memory only.
	DPoP bool
}

// Handler is an auth.OAuthHandler that signs in with the authorization code flow. It
// is safe for concurrent use: one sign-in runs at a time, and requests that failed
// while it ran retry with its token instead of starting another.
type Handler struct {
	opts   Options
	client *http.Client
	watch  *legacyIssuer

	flow sync.Mutex // held during Authorize

	mu        sync.Mutex
	inner     *auth.AuthorizationCodeHandler
	stored    oauth2.TokenSource // from the store, until the first sign-in
	port      int
	flows     int
	requested []string // scopes requested by earlier sign-ins
	last      string   // the access token last handed out; "" when none is valid
	ln        *loopback
	secrets   []string
	refresh   *Error             // the last failed refresh, reported if the sign-in after it fails
	storeErr  *Error             // the last token that could not be stored
	failed    *Error             // a failed sign-in is not started again by this handler
	machine   oauth2.TokenSource // the grant's tokens (grants without a browser)
	key       *signingKey        // from Options.PrivateKeyPEM
	dpop      *dpop              // with Options.DPoP
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns a Handler; a usable token in the store is used until the server
// refuses it.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Browser == nil && !opts.machineGrant() {
		return nil, fmt.Errorf("oauth: no Browser")
	}
	if opts.MaxFlows <= 0 {
		opts.MaxFlows = DefaultMaxFlows
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.ClientName == "" {
		opts.ClientName = "elicitty"
	}
	h := &Handler{opts: opts, port: opts.RedirectPort}
	h.watch = &legacyIssuer{origin: originOf(opts.Resource), notef: h.notef}
	client := &http.Client{Timeout: 30 * time.Second}
	if opts.HTTPClient != nil {
		c := *opts.HTTPClient
		client = &c
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	h.watch.base = base
	client.Transport = h.watch
	h.client = client
	h.addSecret(opts.ClientSecret)
	if opts.IdP != nil {
		h.addSecret(opts.IdP.ClientSecret)
	}
	if len(opts.PrivateKeyPEM) > 0 {
		k, err := parsePrivateKey(opts.PrivateKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("oauth: private key: %w", err)
		}
		h.key = k
	}
	if opts.DPoP {
		d, err := newDPoP()
		if err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		h.dpop = d
		client.Transport = &tokenTransport{base: h.watch, d: d}
	}
	if opts.machineGrant() || opts.DPoP {
		// Nothing to load: these tokens are obtained again (or bound to a key that
		// did not outlive its run).
		h.opts.Store = (*Store)(nil)
		return h, nil
	}
	if opts.Store == nil {
		opts.Store = (*Store)(nil)
		h.opts.Store = opts.Store
	}
	if e, ok, err := opts.Store.Load(opts.Server, opts.Resource); err != nil {
		// Signing in again would only lose the new token the same way.
		return nil, &Error{Server: opts.Server, Step: StepStore, Err: err,
			Hint: "fix or remove the token store; ELICITTY_TOKEN_STORE=file or =keyring picks the other store"}
	} else if ok {
		h.addSecret(e.AccessToken, e.RefreshToken, e.ClientSecret)
		cfg := &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret,
			Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
		h.stored = h.wrap(cfg, e.token())
		h.notef("using the stored token (%s)", e)
	}
	return h, nil
}

// Flows returns how many sign-ins the handler has started.
func (h *Handler) Flows() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.flows
}

// Redact replaces every token and secret the handler knows in s by "<redacted>".
func (h *Handler) Redact(s string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return scrub(s, h.secrets)
}

func (h *Handler) notef(format string, args ...any) {
	if h.opts.Notef != nil {
		h.opts.Notef("oauth: "+format, args...)
	}
}

func (h *Handler) addSecret(ss ...string) {
	for _, s := range ss {
		if s != "" && !slices.Contains(h.secrets, s) {
			h.secrets = append(h.secrets, s)
		}
	}
}

// TokenSource implements auth.OAuthHandler.
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	inner, stored, machine, serr := h.inner, h.stored, h.machine, h.storeErr
	h.mu.Unlock()
	if h.opts.machineGrant() {
		return machine, nil
	}
	if serr != nil {
		// The failure may have happened on a notification nobody reports; every
		// request says it until a token is stored.
		return nil, serr
	}
	if inner != nil {
		return inner.TokenSource(ctx)
	}
	return stored, nil
}

// Authorize implements auth.OAuthHandler: it runs a sign-in for a 401, or a step-up
// sign-in for a 403 insufficient_scope, and then the transport retries the request
// once.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.flow.Lock()
	defer h.flow.Unlock()
	if h.opts.machineGrant() {
		return h.authorizeMachine(ctx, req, resp)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	code, want := challengeError(challenges), challengeScopes(challenges)

	h.mu.Lock()
	last, flows, failed := h.last, h.flows, h.failed
	requested := slices.Clone(h.requested)
	h.mu.Unlock()
	drain := func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
	if resp.StatusCode == http.StatusForbidden && code != "insufficient_scope" {
		drain() // not a scope problem: the retried request fails as the server says
		return nil
	}
	if resp.StatusCode == http.StatusUnauthorized && last != "" && req.Header.Get("Authorization") != "Bearer "+last {
		drain() // another request's sign-in finished while this one waited
		return nil
	}
	if resp.StatusCode == http.StatusForbidden && len(want) > 0 && subset(want, requested) {
		drain()
		return &Error{Server: h.opts.Server, Step: StepStepUp, Code: code,
			Description: fmt.Sprintf("the server still refuses after a sign-in with scope %q", strings.Join(want, " "))}
	}
	if failed != nil {
		drain()
		return failed
	}
	if flows >= h.opts.MaxFlows {
		drain()
		return &Error{Server: h.opts.Server, Step: StepAuthorization, Code: code,
			Err: fmt.Errorf("gave up after %d sign-ins", flows)}
	}

	port := h.port
	ln, err := listenLoopback(port)
	if err != nil {
		drain()
		return &Error{Server: h.opts.Server, Step: StepAuthorization, Err: err}
	}
	defer ln.close()
	h.mu.Lock()
	h.flows++
	h.ln = ln
	if h.port == 0 {
		h.port = ln.port()
	}
	if h.inner == nil {
		inner, err := auth.NewAuthorizationCodeHandler(h.config(redirectURL(h.port)))
		if err != nil {
			h.mu.Unlock()
			drain()
			return &Error{Server: h.opts.Server, Step: StepRegistration, Err: err}
		}
		h.inner = inner
	}
	inner := h.inner
	h.mu.Unlock()

	what := "sign-in"
	if resp.StatusCode == http.StatusForbidden {
		what = "step-up sign-in"
	}
	h.notef("%s started (HTTP %d on %s %s)", what, resp.StatusCode, req.Method, cleanURL(req.URL))
	if err := inner.Authorize(ctx, req, resp); err != nil {
		h.mu.Lock()
		secrets, refresh := slices.Clone(h.secrets), h.refresh
		h.mu.Unlock()
		e := classify(h.opts.Server, err, secrets)
		if e.Server == "" {
			e.Server = h.opts.Server
		}
		if refresh != nil && e.Hint == "" {
			code := refresh.Code
			if code == "" {
				code = "no error code"
			}
			e.Hint = "signing in again because the token refresh failed: " + code
		}
		if !h.watch.found.Load() && (e.Step == StepRegistration || e.Step == StepDiscovery) {
			e.Hint = "the server answered " + resp.Status + " but publishes no OAuth metadata; if it wants an API key, set it in the server's headers"
		}
		h.notef("%s failed at %s", what, e.Step)
		h.mu.Lock()
		h.failed = e
		h.mu.Unlock()
		return e
	}
	h.mu.Lock()
	serr := h.storeErr
	h.mu.Unlock()
	if serr != nil {
		h.notef("%s finished, but the token could not be stored", what)
		return serr
	}
	h.notef("%s finished", what)
	return nil
}

// config builds go-sdk's handler configuration for one redirect URL.
func (h *Handler) config(redirect string) *auth.AuthorizationCodeHandlerConfig {
	o := h.opts
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: h.fetch,
		Client:                   h.client,
		RequestRefreshToken:      true,
		InitialTokenSource:       h.stored,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			h.save(c, t)
			return h.wrap(c, t), nil
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              o.ClientName,
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		},
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	}
	if len(o.Scopes) > 0 {
		extra := slices.Clone(o.Scopes)
		cfg.ScopeFilter = func(discovered []string) []string {
			out := slices.Clone(discovered)
			for _, s := range extra {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return cfg
}

// fetch is the AuthorizationCodeFetcher: the browser step, then the redirect.
func (h *Handler) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	state, err := stateOf(args.URL)
	if err != nil {
		return nil, &Error{Server: h.opts.Server, Step: StepAuthorization, Err: err}
	}
	h.mu.Lock()
	ln := h.ln
	if u, err := url.Parse(args.URL); err == nil {
		for _, s := range strings.Fields(u.Query().Get("scope")) {
			if !slices.Contains(h.requested, s) {
				h.requested = append(h.requested, s)
			}
		}
	}
	h.mu.Unlock()
	ln.expect(state)
	redirect := redirectURL(ln.port())
	if h.opts.Pause != nil {
		defer h.opts.Pause()()
	}
	if err := h.opts.Browser.SignIn(ctx, SignIn{Server: h.opts.Server, URL: args.URL, RedirectURL: redirect}); err != nil {
		return nil, &Error{Server: h.opts.Server, Step: StepAuthorization, Err: err}
	}
	res, err := ln.wait(ctx, h.opts.Wait)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Server = h.opts.Server
			return nil, e
		}
		return nil, &Error{Server: h.opts.Server, Step: StepAuthorization, Err: err}
	}
	h.mu.Lock()
	h.addSecret(res.Code)
	h.mu.Unlock()
	return res, nil
}

// save stores a token with the client it was issued to.
func (h *Handler) save(c *oauth2.Config, t *oauth2.Token) {
	h.mu.Lock()
	h.addSecret(t.AccessToken, t.RefreshToken, c.ClientSecret)
	h.last = t.AccessToken
	h.refresh = nil
	h.noteBound(t)
	h.mu.Unlock()
	err := h.opts.Store.Save(Entry{
		Server: h.opts.Server, Resource: h.opts.Resource,
		ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle,
		AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.Type(), Expiry: t.Expiry,
		Saved: time.Now().UTC(),
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.storeErr = &Error{Server: h.opts.Server, Step: StepStore, Err: err, secrets: slices.Clone(h.secrets),
			Hint: "the sign-in worked but would be lost; fix the token store, or ELICITTY_TOKEN_STORE=file or =keyring picks the other store"}
		h.notef("could not store the token: %v", scrub(err.Error(), h.secrets))
		return
	}
	h.storeErr = nil
}

// wrap returns a token source that refreshes through c, stores each new token, and
// turns a failed refresh into "no token" so that the server's 401 starts one sign-in.
func (h *Handler) wrap(c *oauth2.Config, t *oauth2.Token) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
	return &storingSource{h: h, cfg: c, inner: c.TokenSource(ctx, t), last: t.AccessToken}
}

type storingSource struct {
	h     *Handler
	cfg   *oauth2.Config
	inner oauth2.TokenSource
	mu    sync.Mutex
	last  string
	dead  bool // a refresh failed: never tried again
}

// Token implements oauth2.TokenSource.
func (s *storingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	dead := s.dead
	s.mu.Unlock()
	if dead {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
	}
	t, err := s.inner.Token()
	h := s.h
	if err != nil {
		s.mu.Lock()
		s.dead = true
		s.mu.Unlock()
		h.mu.Lock()
		e := classify(h.opts.Server, err, h.secrets)
		e.Step = StepRefresh
		h.refresh = e
		h.last = ""
		h.mu.Unlock()
		h.notef("token refresh failed (%s); the next request signs in again", e.Error())
		if _, derr := h.opts.Store.Delete(h.opts.Server, h.opts.Resource); derr != nil {
			h.notef("token store: %v", derr)
		}
		// invalid_grant makes go-sdk send the request without a token; the server's
		// 401 then runs one sign-in.
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
	}
	s.mu.Lock()
	changed := t.AccessToken != s.last
	s.last = t.AccessToken
	s.mu.Unlock()
	if changed {
		h.notef("token refreshed")
		h.save(s.cfg, t)
		h.mu.Lock()
		serr := h.storeErr
		h.mu.Unlock()
		if serr != nil {
			return nil, serr
		}
	} else {
		h.mu.Lock()
		h.last = t.AccessToken
		h.mu.Unlock()
	}
	return t, nil
}

func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}

func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

func cleanURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.Fragment = ""
	return c.String()
}
