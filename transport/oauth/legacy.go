package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// legacyIssuer relaxes one check of authorization server metadata for servers of the
// 2025-03-26 spec, where the MCP server's own origin is the authorization server and
// its metadata lives at the root well-known URL. Some such servers mount their OAuth
// endpoints under a path and name that path in "issuer", which RFC 8414 issuer
// validation (go-sdk's) rejects. For that document only (the root
// oauth-authorization-server document of the MCP server's own origin, with an issuer
// of the same origin) the issuer is replaced by the origin. Metadata from any other
// URL or origin is passed through untouched and validated in full.
type legacyIssuer struct {
	base   http.RoundTripper
	origin string // scheme://host[:port] of the MCP server
	notef  func(format string, args ...any)
	// found is set once any well-known metadata document answered 200.
	found atomic.Bool
}

const rootASMetadataPath = "/.well-known/oauth-authorization-server"

// RoundTrip implements http.RoundTripper.
func (l *legacyIssuer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusOK && strings.Contains(req.URL.Path, "/.well-known/") {
		l.found.Store(true)
	}
	if err != nil || resp.StatusCode != http.StatusOK || req.Method != http.MethodGet ||
		req.URL.Path != rootASMetadataPath || originOf(req.URL.String()) != l.origin || l.origin == "" {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return resp, nil
	}
	iss, _ := doc["issuer"].(string)
	if iss == "" || iss == l.origin || originOf(iss) != l.origin {
		return resp, nil
	}
	doc["issuer"] = l.origin
	b, err := json.Marshal(doc)
	if err != nil {
		return resp, nil
	}
	if l.notef != nil {
		l.notef("authorization server metadata at %s names issuer %s; using the origin (2025-03-26 server)", l.origin, iss)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// originOf returns scheme://host of raw, or "" when it does not parse.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
