package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestHeadersStayWithTheirHost: a server whose URL answers 307 to another host (another
// port of 127.0.0.1 is another origin) still works, but the configured headers (an API
// key, a static Authorization) reach only the host the config names; HeadersOnRedirect
// lets them follow.
func TestHeadersStayWithTheirHost(t *testing.T) {
	for _, follow := range []bool{false, true} {
		elsewhere, rec := startHTTP(t, &fixture{}, nil)
		var redirected atomic.Int64
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != "k-secret-value" || r.Header.Get("Authorization") != "Bearer static-secret" {
				t.Errorf("the configured host got %s %s without its headers", r.Method, r.URL)
			}
			redirected.Add(1)
			http.Redirect(w, r, elsewhere, http.StatusTemporaryRedirect)
		}))
		t.Cleanup(front.Close)
		srv := httpServer(front.URL + "/mcp")
		srv.Headers["Authorization"] = "Bearer static-secret"
		s, err := Connect(context.Background(), srv, Options{Protocol: legacy, HeadersOnRedirect: follow})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "hi"}); err != nil {
			t.Errorf("call through the redirect: %v", err)
		}
		s.Close()
		if redirected.Load() == 0 {
			t.Fatal("the front server redirected nothing")
		}
		rec.mu.Lock()
		for _, q := range rec.reqs {
			got := q.header.Get("X-Api-Key") != "" || q.header.Get("Authorization") != ""
			if got != follow {
				t.Errorf("HeadersOnRedirect %v: %s at the other host carried X-Api-Key %q, Authorization %q",
					follow, q.method, q.header.Get("X-Api-Key"), q.header.Get("Authorization"))
			}
		}
		if len(rec.reqs) == 0 {
			t.Error("the other host got no request")
		}
		rec.mu.Unlock()
	}
}
