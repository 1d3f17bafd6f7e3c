// Package oauthtest is a test fixture: an OAuth 2.1 authorization server and an MCP
// server protected by it, both on 127.0.0.1. The authorization endpoint approves at
// once (it redirects straight back with a code), so oauth.FollowBrowser can sign in.
package oauthtest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config shapes the fixture's behaviour.
type Config struct {
	// ScopesSupported goes into the protected resource metadata; nil omits it.
	ScopesSupported []string
	// ChallengeScope is the scope of the 401 challenge; "" omits it.
	ChallengeScope string
	// StepUp lists the scopes tools/call needs; a token without them gets 403
	// insufficient_scope asking for them. Nil: no step-up.
	StepUp []string
	// NeverEnough answers every tools/call with 403 insufficient_scope, whatever the
	// token's scopes (a server whose step-up never succeeds).
	NeverEnough bool
	// Lifetime is expires_in of issued tokens; zero means an hour.
	Lifetime time.Duration
	// FailRegistration makes dynamic registration fail with invalid_client_metadata.
	FailRegistration bool
	// FailRefresh makes the refresh_token grant fail with invalid_grant.
	FailRefresh bool
	// FailExchange makes the authorization_code grant fail with invalid_grant; its
	// error_description quotes the code it got (a server that echoes secrets).
	FailExchange bool

	// Clients are the confidential clients (client_id -> secret) that may use the
	// client_credentials grant (client_secret_basic) and the JWT bearer grant.
	Clients map[string]string
	// ClientKeys are the public keys of clients that authenticate with
	// private_key_jwt (client_id -> key).
	ClientKeys map[string]crypto.PublicKey
	// WorkloadToken is the assertion the JWT bearer grant accepts for workload
	// identity (no client authentication); "" refuses it.
	WorkloadToken string
	// IDToken is the ID token that the fixture's identity provider (IdPURL) exchanges
	// for an ID-JAG (RFC 8693) for IdPClient; the JAG is then accepted by the JWT
	// bearer grant from a client of Clients.
	IDToken, IdPClient string
	// DPoP makes the token endpoint require a DPoP proof and issue tokens bound to
	// its key; the MCP endpoint then wants the DPoP scheme and a proof per request.
	DPoP bool
	// DPoPNonce, with DPoP, is the nonce both servers demand (use_dpop_nonce).
	DPoPNonce string
}

// Server is a running fixture.
type Server struct {
	// URL is the MCP endpoint; Issuer is the authorization server's issuer.
	URL, Issuer string

	cfg Config
	rs  *httptest.Server
	as  *httptest.Server

	mu        sync.Mutex
	tokens    map[string]grant // access token -> grant
	refreshes map[string]grant // refresh token -> grant
	codes     map[string]codeGrant
	issued    []string // every token, refresh token, code and client secret handed out
	counts    Counts
	scopes    [][]string // scopes of each authorization request
	resources []string   // resource parameter of each authorization request
	jtis      []string   // DPoP proof ids seen
}

type grant struct {
	scopes []string
	expiry time.Time
	jkt    string // DPoP key thumbprint the token is bound to
}

// URLs of the fixture's identity provider.
func (s *Server) IdPURL() string { return s.Issuer + "/idp" }

type codeGrant struct {
	scopes    []string
	challenge string
}

// Counts are what the fixture has seen.
type Counts struct {
	Registrations, Authorizations, CodeGrants, Refreshes, Unauthorized, Forbidden int
	ClientCredentials, JWTBearer, TokenExchanges                                  int
	// DPoPRequests counts MCP requests with a valid proof; DPoPNonceChallenges the
	// use_dpop_nonce answers of both servers.
	DPoPRequests, DPoPNonceChallenges int
}

// New starts a fixture; it stops when the test ends.
func New(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := &Server{cfg: cfg, tokens: map[string]grant{}, refreshes: map[string]grant{}, codes: map[string]codeGrant{}}
	// Both servers start only once every field their handlers read is set.
	s.as = httptest.NewUnstartedServer(http.HandlerFunc(s.serveAS))
	s.Issuer = "http://" + s.as.Listener.Addr().String()
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "oauth-fixture", Version: "1"}, nil)
	mcp.AddTool(mcpSrv, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", s.servePRM)
	mux.Handle("/mcp", s.protect(h))
	s.rs = httptest.NewUnstartedServer(mux)
	s.URL = "http://" + s.rs.Listener.Addr().String() + "/mcp"
	s.as.Start()
	s.rs.Start()
	t.Cleanup(func() { s.rs.Close(); s.as.Close() })
	return s
}

// Counts returns what the fixture has seen so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Scopes returns the scope parameter of each authorization request.
func (s *Server) Scopes() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.scopes)
}

// Resources returns the resource parameter of each authorization request.
func (s *Server) Resources() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.resources)
}

// Secrets returns every access token, refresh token, code and client secret issued.
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

// RevokeAll makes every access token issued so far invalid.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// Issue mints an access token (and a refresh token) without a sign-in, e.g. to seed a
// token store.
func (s *Server) Issue(scopes []string, lifetime time.Duration) (access, refresh string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mint(scopes, lifetime)
}

func (s *Server) mint(scopes []string, lifetime time.Duration) (string, string) {
	g := grant{scopes: scopes, expiry: time.Now().Add(lifetime)}
	at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
	s.tokens[at] = g
	s.refreshes[rt] = g
	s.issued = append(s.issued, at, rt)
	return at, rt
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) servePRM(w http.ResponseWriter, _ *http.Request) {
	doc := map[string]any{"resource": s.URL, "authorization_servers": []string{s.Issuer}}
	if s.cfg.ScopesSupported != nil {
		doc["scopes_supported"] = s.cfg.ScopesSupported
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Server) challenge(w http.ResponseWriter, status int, errCode string, scope string) {
	parts := []string{fmt.Sprintf("resource_metadata=%q", s.rs.URL+"/.well-known/oauth-protected-resource/mcp")}
	if scope != "" {
		parts = append(parts, fmt.Sprintf("scope=%q", scope))
	}
	if errCode != "" {
		parts = append(parts, fmt.Sprintf("error=%q", errCode))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(parts, ", "))
	writeJSON(w, status, map[string]string{"error": errCode})
}

// protect checks the bearer token of every MCP request.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme := "Bearer "
		if s.cfg.DPoP {
			scheme = "DPoP "
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), scheme)
		var jkt string
		if s.cfg.DPoP && tok != "" {
			var msg string
			jkt, msg = s.checkProof(r, tok, s.URL)
			if msg == "use_dpop_nonce" {
				w.Header().Set("DPoP-Nonce", s.cfg.DPoPNonce)
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
				writeJSON(w, http.StatusUnauthorized, map[string]string{"error": msg})
				return
			}
		}
		s.mu.Lock()
		g, ok := s.tokens[tok]
		if ok && (time.Now().After(g.expiry) || g.jkt != jkt) {
			ok = false
		}
		if ok && jkt != "" {
			s.counts.DPoPRequests++
		}
		if !ok {
			s.counts.Unauthorized++
		}
		s.mu.Unlock()
		if !ok {
			s.challenge(w, http.StatusUnauthorized, "invalid_token", s.cfg.ChallengeScope)
			return
		}
		if r.Method == http.MethodPost && (s.cfg.StepUp != nil || s.cfg.NeverEnough) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &msg)
			need := s.cfg.StepUp
			if msg.Method == "tools/call" && (s.cfg.NeverEnough || !subset(need, g.scopes)) {
				s.mu.Lock()
				s.counts.Forbidden++
				s.mu.Unlock()
				scope := strings.Join(need, " ")
				if s.cfg.NeverEnough {
					scope = "admin"
				}
				s.challenge(w, http.StatusForbidden, "insufficient_scope", scope)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func (s *Server) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                s.Issuer,
			"authorization_endpoint":                s.Issuer + "/authorize",
			"token_endpoint":                        s.Issuer + "/token",
			"registration_endpoint":                 s.Issuer + "/register",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "private_key_jwt"},
		})
	case "/idp/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/idp":
		writeJSON(w, http.StatusOK, map[string]any{"issuer": s.IdPURL(), "token_endpoint": s.IdPURL() + "/token",
			"grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:token-exchange"}})
	case "/idp/token":
		s.idpToken(w, r)
	case "/register":
		s.mu.Lock()
		s.counts.Registrations++
		s.mu.Unlock()
		if s.cfg.FailRegistration {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "redirect URI not allowed"})
			return
		}
		var md map[string]any
		_ = json.NewDecoder(r.Body).Decode(&md)
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": "client-" + rand.Text(), "redirect_uris": md["redirect_uris"], "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		code := "code-" + rand.Text()
		s.mu.Lock()
		s.counts.Authorizations++
		scopes := strings.Fields(q.Get("scope"))
		s.scopes = append(s.scopes, scopes)
		s.resources = append(s.resources, q.Get("resource"))
		s.codes[code] = codeGrant{scopes: scopes, challenge: q.Get("code_challenge")}
		s.issued = append(s.issued, code)
		s.mu.Unlock()
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || back.Hostname() != "127.0.0.1" {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		bq := back.Query()
		bq.Set("code", code)
		bq.Set("state", q.Get("state"))
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case "/token":
		s.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	lifetime := s.cfg.Lifetime
	if lifetime == 0 {
		lifetime = time.Hour
	}
	var jkt string
	if s.cfg.DPoP {
		var msg string
		jkt, msg = s.checkProof(r, "", s.Issuer+"/token")
		if msg != "" {
			if msg == "use_dpop_nonce" {
				w.Header().Set("DPoP-Nonce", s.cfg.DPoPNonce)
			}
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": pick(msg == "use_dpop_nonce", msg, "invalid_dpop_proof"), "error_description": msg})
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var scopes []string
	switch r.PostForm.Get("grant_type") {
	case "client_credentials":
		s.counts.ClientCredentials++
		if !s.clientOK(r) {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		scopes = strings.Fields(r.PostForm.Get("scope"))
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		s.counts.JWTBearer++
		a := r.PostForm.Get("assertion")
		switch {
		case s.cfg.WorkloadToken != "" && a == s.cfg.WorkloadToken:
		case strings.HasPrefix(a, "jag-") && slices.Contains(s.issued, a) && s.clientOK(r):
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "assertion " + a + " refused"})
			return
		}
		scopes = strings.Fields(r.PostForm.Get("scope"))
	case "authorization_code":
		s.counts.CodeGrants++
		code := r.PostForm.Get("code")
		cg, ok := s.codes[code]
		delete(s.codes, code)
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if s.cfg.FailExchange || !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != cg.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "code " + code + " is not valid"})
			return
		}
		scopes = cg.scopes
	case "refresh_token":
		s.counts.Refreshes++
		g, ok := s.refreshes[r.PostForm.Get("refresh_token")]
		if s.cfg.FailRefresh || !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "refresh token expired"})
			return
		}
		scopes = g.scopes
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := s.mint(scopes, lifetime)
	typ := "Bearer"
	if jkt != "" {
		typ = "DPoP"
		g := s.tokens[at]
		g.jkt = jkt
		s.tokens[at] = g
		r := s.refreshes[rt]
		r.jkt = jkt
		s.refreshes[rt] = r
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "refresh_token": rt, "token_type": typ,
		"expires_in": int(lifetime / time.Second), "scope": strings.Join(scopes, " ")})
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// clientOK authenticates the client of a token request: client_secret_basic against
// Clients or private_key_jwt against ClientKeys. s.mu is held.
func (s *Server) clientOK(r *http.Request) bool {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		want, known := s.cfg.Clients[id]
		return known && secret == want
	}
	if r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return false
	}
	tok, err := jwt.ParseSigned(r.PostForm.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA})
	if err != nil {
		return false
	}
	var c jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		return false
	}
	key, known := s.cfg.ClientKeys[c.Issuer]
	if !known || tok.Claims(key, &c) != nil || c.Subject != c.Issuer {
		return false
	}
	return c.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{s.Issuer}, Time: time.Now()}, time.Minute) == nil
}

// idpToken is the identity provider's token endpoint: RFC 8693 token exchange of
// IDToken for an ID-JAG.
func (s *Server) idpToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts.TokenExchanges++
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || f.Get("client_id") != s.cfg.IdPClient ||
		f.Get("subject_token") != s.cfg.IDToken || s.cfg.IDToken == "" ||
		f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
		f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
		f.Get("audience") != s.Issuer || f.Get("resource") != s.URL {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "exchange refused"})
		return
	}
	jag := "jag-" + rand.Text()
	s.issued = append(s.issued, jag)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": jag, "token_type": "N_A",
		"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "expires_in": 300})
}

// checkProof verifies the DPoP proof of r (RFC 9449 §4.3) for the access token tok
// ("" on token requests) and returns its key's thumbprint, or what is wrong:
// "use_dpop_nonce" when the nonce is missing or stale.
func (s *Server) checkProof(r *http.Request, tok, htu string) (string, string) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		return "", "want exactly one DPoP header"
	}
	sig, err := jose.ParseSignedCompact(proofs[0], []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA})
	if err != nil || len(sig.Signatures) != 1 {
		return "", "malformed proof"
	}
	h := sig.Signatures[0].Protected
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", "bad proof header"
	}
	payload, err := sig.Verify(h.JSONWebKey)
	if err != nil {
		return "", "bad proof signature"
	}
	var c struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   int64  `json:"iat"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
	if json.Unmarshal(payload, &c) != nil || c.JTI == "" || c.HTM != r.Method || c.HTU != htu || time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute {
		return "", "bad proof claims"
	}
	if tok != "" {
		sum := sha256.Sum256([]byte(tok))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", "bad ath"
		}
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", "bad jwk"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.jtis, c.JTI) {
		return "", "replayed proof"
	}
	s.jtis = append(s.jtis, c.JTI)
	if s.cfg.DPoPNonce != "" && c.Nonce != s.cfg.DPoPNonce {
		s.counts.DPoPNonceChallenges++
		return "", "use_dpop_nonce"
	}
	return base64.RawURLEncoding.EncodeToString(tp), ""
}
