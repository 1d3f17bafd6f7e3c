package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// maxNonces bounds the DPoP nonces kept (one per origin).
const maxNonces = 64

// dpop holds a client's DPoP key (RFC 9449), the nonces servers asked for and the
// access tokens bound to the key. The key lives in memory only: tokens bound to it are
// not stored between runs.
type dpop struct {
	signer jose.Signer

	mu     sync.Mutex
	nonces map[string]string // origin -> last nonce it sent
	bound  map[string]bool   // access tokens issued as DPoP tokens
}

func newDPoP() (*dpop, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("dpop key: %w", err)
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		return nil, fmt.Errorf("dpop key: %w", err)
	}
	return &dpop{signer: signer, nonces: map[string]string{}, bound: map[string]bool{}}, nil
}

// proof returns a fresh DPoP proof for one request; accessToken is "" on token
// requests.
func (d *dpop) proof(method string, u *url.URL, accessToken string) (string, error) {
	htu := *u
	htu.RawQuery, htu.Fragment, htu.User = "", "", nil
	claims := map[string]any{
		"jti": rand.Text(),
		"htm": method,
		"htu": htu.String(),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	d.mu.Lock()
	if n := d.nonces[originOf(u.String())]; n != "" {
		claims["nonce"] = n
	}
	d.mu.Unlock()
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := d.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("dpop proof: %w", err)
	}
	return jws.CompactSerialize()
}

// noteNonce keeps the nonce a response carries; it reports whether there was one.
func (d *dpop) noteNonce(u *url.URL, resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" || len(n) > 1024 {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.nonces) >= maxNonces {
		clear(d.nonces)
	}
	d.nonces[originOf(u.String())] = n
	return true
}

func (d *dpop) bind(t *oauth2.Token) {
	if d == nil || t == nil || !strings.EqualFold(t.Type(), "DPoP") {
		return
	}
	d.mu.Lock()
	d.bound[t.AccessToken] = true
	d.mu.Unlock()
}

func (d *dpop) isBound(tok string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bound[tok]
}

// noteBound records a DPoP-bound token; h.mu is held.
func (h *Handler) noteBound(t *oauth2.Token) { h.dpop.bind(t) }

// resend sends req again with a body read from GetBody.
func resend(base http.RoundTripper, req *http.Request, set func(*http.Request) error) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	if err := set(r); err != nil {
		return nil, err
	}
	return base.RoundTrip(r)
}

// tokenTransport adds a DPoP proof to token requests (form posts with a
// grant_type) and retries once with the nonce an authorization server asks for.
type tokenTransport struct {
	base http.RoundTripper
	d    *dpop
}

// RoundTrip implements http.RoundTripper.
func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || ct != "application/x-www-form-urlencoded" || req.Body == nil {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	form, _ := url.ParseQuery(string(body))
	if form.Get("grant_type") == "" || form.Get("grant_type") == grantTypeTokenExchange {
		return t.base.RoundTrip(req) // not a request for a token of this client's
	}
	set := func(r *http.Request) error {
		p, err := t.d.proof(http.MethodPost, r.URL, "")
		if err != nil {
			return err
		}
		r.Header.Set("DPoP", p)
		return nil
	}
	resp, err := resend(t.base, req, set)
	if err != nil {
		return nil, err
	}
	if t.d.noteNonce(req.URL, resp) && resp.StatusCode == http.StatusBadRequest && asksNonce(resp) {
		resp.Body.Close()
		return resend(t.base, req, set)
	}
	return resp, nil
}

// asksNonce reports whether a 400 token response is a use_dpop_nonce error; it leaves
// the body readable.
func asksNonce(resp *http.Response) bool {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce"
}

// resourceTransport presents DPoP-bound tokens with the DPoP scheme and a fresh
// proof on every request to the MCP server, and retries a request once with the
// nonce the server asks for.
type resourceTransport struct {
	base http.RoundTripper
	d    *dpop
}

// RoundTrip implements http.RoundTripper.
func (t *resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok || !t.d.isBound(tok) {
		return t.base.RoundTrip(req)
	}
	if req.Body != nil && req.GetBody == nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	set := func(r *http.Request) error {
		p, err := t.d.proof(r.Method, r.URL, tok)
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", "DPoP "+tok)
		r.Header.Set("DPoP", p)
		return nil
	}
	resp, err := resend(t.base, req, set)
	if err != nil {
		return nil, err
	}
	if t.d.noteNonce(req.URL, resp) && resp.StatusCode == http.StatusUnauthorized && challengeAsksNonce(resp) {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return resend(t.base, req, set)
	}
	return resp, nil
}

func challengeAsksNonce(resp *http.Response) bool {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// Transport wraps the MCP requests' RoundTripper: with DPoP on, bound tokens go with
// the DPoP scheme and a proof; otherwise base is returned unchanged.
func (h *Handler) Transport(base http.RoundTripper) http.RoundTripper {
	if h.dpop == nil {
		return base
	}
	return &resourceTransport{base: base, d: h.dpop}
}
