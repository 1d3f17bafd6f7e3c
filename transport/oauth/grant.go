package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/elicitty/elicitty/config"
)

// The steps of the grants that need no browser.
const (
	StepIdentityToken Step = "identity token"
	StepIdPExchange   Step = "identity provider token exchange"
	StepToken         Step = "token request"
)

// OAuth 2.0 URNs of the grants.
const (
	grantTypeJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTypeTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken       = "urn:ietf:params:oauth:token-type:id_token"
	assertionTypeJWTBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// maxTokenResponse bounds what a token endpoint may send.
const maxTokenResponse = 1 << 20

// IdP is the identity provider of config.GrantTokenExchange.
type IdP struct {
	// Issuer is the provider's issuer URL; its metadata names the token endpoint
	// unless TokenEndpoint is set.
	Issuer, TokenEndpoint string
	// ClientID and ClientSecret are the client's registration at the provider.
	ClientID, ClientSecret string
}

// machineGrant reports whether the handler's grant needs no browser.
func (o *Options) machineGrant() bool {
	return o.Grant != "" && o.Grant != config.GrantAuthorizationCode
}

// endpoint is what discovery found about the authorization server.
type endpoint struct {
	issuer, tokenURL, resource string
	methods                    []string // token_endpoint_auth_methods_supported
	scopes                     []string // to request
}

// client is how a token request authenticates the client.
type client struct {
	id, secret string
	key        *signingKey
}

// authorizeMachine runs the handler's grant for a 401 (or a 403 insufficient_scope).
func (h *Handler) authorizeMachine(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	code := challengeError(challenges)
	h.mu.Lock()
	last, flows, failed := h.last, h.flows, h.failed
	h.mu.Unlock()
	switch {
	case resp.StatusCode == http.StatusForbidden && code != "insufficient_scope":
		return nil
	case resp.StatusCode == http.StatusUnauthorized && last != "" && !strings.HasSuffix(req.Header.Get("Authorization"), " "+last):
		return nil // another request got a token while this one waited
	case failed != nil:
		return failed // a refused grant is not tried again (SEP-1933: no retries)
	case flows >= h.opts.MaxFlows:
		return &Error{Server: h.opts.Server, Step: StepToken, Code: code, Err: fmt.Errorf("gave up after %d token requests", flows)}
	}
	h.mu.Lock()
	h.flows++
	h.mu.Unlock()
	h.notef("%s grant started (HTTP %d on %s %s)", h.opts.Grant, resp.StatusCode, req.Method, cleanURL(req.URL))
	ep, err := h.discover(ctx, challenges)
	if err == nil {
		var tok *oauth2.Token
		src := &grantSource{h: h, ep: ep}
		if tok, err = src.fetch(ctx); err == nil {
			h.mu.Lock()
			h.machine = oauth2.ReuseTokenSource(tok, src)
			h.mu.Unlock()
			h.notef("%s grant finished", h.opts.Grant)
			return nil
		}
	}
	h.mu.Lock()
	e := classify(h.opts.Server, err, h.secrets)
	e.Server = h.opts.Server
	e.secrets = slices.Clone(h.secrets)
	h.failed = e
	h.mu.Unlock()
	h.notef("%s grant failed at %s", h.opts.Grant, e.Step)
	return e
}

// discover finds the authorization server of the resource (RFC 9728, RFC 8414).
func (h *Handler) discover(ctx context.Context, challenges []oauthex.Challenge) (*endpoint, error) {
	resource := h.opts.Resource
	var prm *oauthex.ProtectedResourceMetadata
	var candidates []string
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			candidates = append(candidates, u)
			break
		}
	}
	if u, err := url.Parse(resource); err == nil {
		p := *u
		p.RawQuery, p.Fragment = "", ""
		p.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
		candidates = append(candidates, p.String())
		p.Path = "/.well-known/oauth-protected-resource"
		candidates = append(candidates, p.String())
	}
	for _, c := range candidates {
		if m, err := oauthex.GetProtectedResourceMetadata(ctx, c, resource, h.client); err == nil && m != nil && len(m.AuthorizationServers) > 0 {
			prm = m
			break
		}
	}
	if prm == nil {
		return nil, &Error{Server: h.opts.Server, Step: StepDiscovery, Err: errors.New("the server publishes no protected resource metadata naming an authorization server")}
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.client)
	if err != nil {
		return nil, &Error{Server: h.opts.Server, Step: StepDiscovery, Err: fmt.Errorf("authorization server metadata: %w", err)}
	}
	ep := &endpoint{resource: prm.Resource}
	if asm == nil {
		ep.issuer = prm.AuthorizationServers[0]
		ep.tokenURL = strings.TrimRight(ep.issuer, "/") + "/token"
	} else {
		ep.issuer, ep.tokenURL, ep.methods = asm.Issuer, asm.TokenEndpoint, asm.TokenEndpointAuthMethodsSupported
	}
	if ep.resource == "" {
		ep.resource = resource
	}
	ep.scopes = challengeScopes(challenges)
	if len(ep.scopes) == 0 {
		ep.scopes = slices.Clone(prm.ScopesSupported)
	}
	for _, s := range h.opts.Scopes {
		if !slices.Contains(ep.scopes, s) {
			ep.scopes = append(ep.scopes, s)
		}
	}
	return ep, nil
}

// grantSource runs the handler's grant each time a fresh token is needed.
type grantSource struct {
	h  *Handler
	ep *endpoint
}

// Token implements oauth2.TokenSource.
func (s *grantSource) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tok, err := s.fetch(ctx)
	if err != nil {
		s.h.notef("token renewal failed: %s", s.h.Redact(err.Error()))
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
	}
	return tok, nil
}

func (s *grantSource) fetch(ctx context.Context) (*oauth2.Token, error) {
	h, ep, o := s.h, s.ep, s.h.opts
	form := url.Values{}
	if len(ep.scopes) > 0 {
		form.Set("scope", strings.Join(ep.scopes, " "))
	}
	form.Set("resource", ep.resource)
	me := client{id: o.ClientID, secret: o.ClientSecret, key: h.key}
	switch o.Grant {
	case config.GrantClientCredentials:
		form.Set("grant_type", "client_credentials")
	case config.GrantJWTBearer:
		tok, err := h.identityToken(ctx)
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", grantTypeJWTBearer)
		form.Set("assertion", tok)
	case config.GrantTokenExchange:
		jag, err := h.exchangeAtIdP(ctx, ep)
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", grantTypeJWTBearer)
		form.Set("assertion", jag)
	default:
		return nil, fmt.Errorf("unknown grant %q", o.Grant)
	}
	tok, _, err := h.tokenRequest(ctx, ep.tokenURL, ep.issuer, ep.methods, me, form, StepToken)
	return tok, err
}

// identityToken reads the identity token the grant presents, afresh each time.
func (h *Handler) identityToken(ctx context.Context) (string, error) {
	if h.opts.IdentityToken == nil {
		return "", &Error{Server: h.opts.Server, Step: StepIdentityToken, Err: errors.New("no identity token source configured")}
	}
	tok, err := h.opts.IdentityToken(ctx)
	tok = strings.TrimSpace(tok)
	if err == nil && tok == "" {
		err = errors.New("the identity token is empty")
	}
	if err != nil {
		return "", &Error{Server: h.opts.Server, Step: StepIdentityToken, Err: err}
	}
	h.mu.Lock()
	h.addSecret(tok)
	h.mu.Unlock()
	return tok, nil
}

// exchangeAtIdP exchanges the ID token for an identity assertion authorization grant
// (ID-JAG) for the server's authorization server (RFC 8693, SEP-990).
func (h *Handler) exchangeAtIdP(ctx context.Context, ep *endpoint) (string, error) {
	idp := h.opts.IdP
	if idp == nil {
		return "", &Error{Server: h.opts.Server, Step: StepIdPExchange, Err: errors.New("no identity provider configured")}
	}
	idToken, err := h.identityToken(ctx)
	if err != nil {
		return "", err
	}
	tokenURL, issuer := idp.TokenEndpoint, idp.Issuer
	var methods []string
	if tokenURL == "" {
		m, err := h.idpMetadata(ctx, idp.Issuer)
		if err != nil {
			return "", &Error{Server: h.opts.Server, Step: StepIdPExchange, Err: fmt.Errorf("identity provider metadata: %w", err)}
		}
		tokenURL, issuer, methods = m.TokenEndpoint, m.Issuer, m.Methods
	}
	if issuer == "" {
		issuer = tokenURL
	}
	form := url.Values{
		"grant_type":           {grantTypeTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {ep.issuer},
		"resource":             {ep.resource},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(ep.scopes) > 0 {
		form.Set("scope", strings.Join(ep.scopes, " "))
	}
	tok, issued, err := h.tokenRequest(ctx, tokenURL, issuer, methods, client{id: idp.ClientID, secret: idp.ClientSecret}, form, StepIdPExchange)
	if err != nil {
		return "", err
	}
	if issued != "" && issued != tokenTypeIDJAG {
		return "", &Error{Server: h.opts.Server, Step: StepIdPExchange, Err: fmt.Errorf("the identity provider issued a token of type %q, not an ID-JAG", issued)}
	}
	return tok.AccessToken, nil
}

// idpMeta is what a token exchange needs of an identity provider's metadata.
type idpMeta struct {
	Issuer        string   `json:"issuer"`
	TokenEndpoint string   `json:"token_endpoint"`
	Methods       []string `json:"token_endpoint_auth_methods_supported"`
}

// idpMetadata reads an identity provider's OpenID or OAuth metadata (RFC 8414 and
// OpenID Connect Discovery URLs); its issuer must be the configured one. Unlike an MCP
// authorization server, an identity provider need not support PKCE here.
func (h *Handler) idpMetadata(ctx context.Context, issuer string) (*idpMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, errors.New("the issuer is not a URL")
	}
	path := strings.Trim(u.Path, "/")
	var urls []string
	for _, wk := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		c := *u
		if path == "" {
			c.Path = wk
		} else {
			c.Path = "/" + path + wk
			d := *u
			d.Path = wk + "/" + path
			urls = append(urls, d.String())
		}
		urls = append(urls, c.String())
	}
	for _, mu := range urls {
		rq, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			continue
		}
		rq.Header.Set("Accept", "application/json")
		resp, err := h.client.Do(rq)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			continue
		}
		var m idpMeta
		if json.Unmarshal(body, &m) != nil || m.TokenEndpoint == "" {
			continue
		}
		if strings.TrimRight(m.Issuer, "/") != strings.TrimRight(issuer, "/") {
			return nil, errors.New("the metadata names another issuer")
		}
		if t, err := url.Parse(m.TokenEndpoint); err != nil || (t.Scheme != "https" && t.Scheme != "http") {
			return nil, errors.New("the metadata's token_endpoint is not an http(s) URL")
		}
		return &m, nil
	}
	return nil, errors.New("no metadata with a token_endpoint found")
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5, RFC 8693 §2.2).
type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int64  `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	Scope            string `json:"scope"`
	IssuedTokenType  string `json:"issued_token_type"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// tokenRequest posts form to a token endpoint, authenticating as c by the first
// method the server supports: private_key_jwt when c has a key, client_secret_basic
// (or client_secret_post) when it has a secret, else client_id alone.
func (h *Handler) tokenRequest(ctx context.Context, tokenURL, issuer string, methods []string, c client, form url.Values, step Step) (*oauth2.Token, string, error) {
	fail := func(err error) (*oauth2.Token, string, error) {
		return nil, "", &Error{Server: h.opts.Server, Step: step, Err: err}
	}
	h.mu.Lock()
	h.addSecret(c.secret)
	h.mu.Unlock()
	basic := false
	switch {
	case c.key != nil:
		a, err := c.key.clientAssertion(c.id, issuer)
		if err != nil {
			return fail(err)
		}
		form.Set("client_assertion_type", assertionTypeJWTBearer)
		form.Set("client_assertion", a)
	case c.secret != "" && (len(methods) == 0 || slices.Contains(methods, "client_secret_basic") || !slices.Contains(methods, "client_secret_post")):
		basic = true
	case c.secret != "":
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case c.id != "":
		form.Set("client_id", c.id)
	}
	rq, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return fail(fmt.Errorf("token endpoint: %w", err))
	}
	rq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rq.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: both parts form-encoded before base64.
		raw := url.QueryEscape(c.id) + ":" + url.QueryEscape(c.secret)
		rq.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(raw)))
	}
	resp, err := h.client.Do(rq)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil {
		return fail(fmt.Errorf("reading the token response: %w", err))
	}
	if len(body) > maxTokenResponse {
		return fail(errors.New("the token response is too large"))
	}
	var tr tokenResponse
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	jsonErr := json.Unmarshal(body, &tr)
	if resp.StatusCode != http.StatusOK {
		if jsonErr == nil && tr.Error != "" {
			return nil, "", &Error{Server: h.opts.Server, Step: step, Code: tr.Error, Description: tr.ErrorDescription}
		}
		return nil, "", &Error{Server: h.opts.Server, Step: step, Code: "HTTP " + fmt.Sprint(resp.StatusCode)}
	}
	if jsonErr != nil || tr.AccessToken == "" {
		return fail(fmt.Errorf("the token response (%s) holds no access_token", ct))
	}
	tok := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken}
	if tr.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	h.mu.Lock()
	h.addSecret(tr.AccessToken, tr.RefreshToken)
	if step == StepToken {
		h.last = tr.AccessToken
		h.noteBound(tok)
	}
	h.mu.Unlock()
	return tok, tr.IssuedTokenType, nil
}
