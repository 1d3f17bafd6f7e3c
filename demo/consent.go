package demo

import (
	"bytes"
	"context"
	"crypto/rand"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// consent is one URL-mode flow waiting for approval on the consent page.
// Its zero value is not usable; make one with consents.create.
type consent struct {
	id      string
	message string
	done    chan struct{} // closed on approval
	once    sync.Once
	// onApprove, if set, runs once, after done is closed.
	onApprove func(*consent)
}

// approved reports whether the consent page was approved.
func (c *consent) approved() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// consents is the table of consent flows, by id and, for needs_link, by
// session. It is safe for concurrent use.
type consents struct {
	mu        sync.Mutex
	byID      map[string]*consent
	bySession map[*mcp.ServerSession]*consent
}

// maxSessionLinks bounds the needs_link table. When it is full it starts
// over, which at worst makes a long-forgotten session link again.
const maxSessionLinks = 4096

// create registers a new consent flow with a fresh random id. onApprove,
// if not nil, runs once in the goroutine that approves it.
func (cs *consents) create(message string, onApprove func(*consent)) *consent {
	c := &consent{id: rand.Text(), message: message, done: make(chan struct{}), onApprove: onApprove}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byID == nil {
		cs.byID = map[string]*consent{}
	}
	cs.byID[c.id] = c
	return c
}

// get returns the flow with the given id.
func (cs *consents) get(id string) (*consent, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byID[id]
	return c, ok
}

// forSession returns the needs_link flow of ss, creating it with mk.
func (cs *consents) forSession(ss *mcp.ServerSession, mk func() *consent) *consent {
	cs.mu.Lock()
	c, ok := cs.bySession[ss]
	cs.mu.Unlock()
	if ok {
		return c
	}
	c = mk()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if prev, ok := cs.bySession[ss]; ok {
		return prev
	}
	if cs.bySession == nil || len(cs.bySession) >= maxSessionLinks {
		cs.bySession = map[*mcp.ServerSession]*consent{}
	}
	cs.bySession[ss] = c
	return c
}

// approve marks the flow with the given id approved. It reports false for an
// unknown id. Approving twice is harmless.
func (cs *consents) approve(id string) bool {
	c, ok := cs.get(id)
	if !ok {
		return false
	}
	c.once.Do(func() {
		close(c.done)
		if c.onApprove != nil {
			c.onApprove(c)
		}
	})
	return true
}

// wait blocks until c is approved or ctx ends.
func (c *consent) wait(ctx context.Context) error {
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// validID reports whether id has the shape rand.Text produces (base32,
// 26 characters), so nothing else is ever looked up or echoed.
func validID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// consentPage is the consent page. It is plain HTML with no script, so that
// it works in any browser, headless Chromium included; the approve button
// has id="approve". It is parsed on first use, not while every command starts.
var consentPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("consent").Parse(consentHTML))
})

const consentHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>elicitty demo: consent</title>
<style>body{font-family:sans-serif;max-width:36em;margin:3em auto;padding:0 1em;line-height:1.4}button{font-size:1.1em;padding:.5em 1.5em}</style>
</head>
<body>
<h1>elicitty demo server</h1>
{{if .Approved}}<p id="status">Approved. You can close this tab and return to your terminal.</p>
{{else}}<p id="message">{{.Message}}</p>
<p>This page stands in for a real out-of-band step such as an OAuth consent screen. Approving tells the demo server that the step is done.</p>
<form method="post" action="/consent/{{.ID}}/approve"><button id="approve" type="submit">Approve</button></form>
{{end}}</body>
</html>
`

// consentHandler serves the consent pages: GET /consent/{id} shows one,
// POST /consent/{id}/approve approves it. Unknown ids get 404.
func (s *Server) consentHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /consent/{id}", func(w http.ResponseWriter, r *http.Request) {
		c, ok := s.lookupConsent(r.PathValue("id"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.writeConsent(w, c, c.approved())
	})
	mux.HandleFunc("POST /consent/{id}/approve", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		c, ok := s.lookupConsent(id)
		if !ok {
			http.NotFound(w, r)
			return
		}
		// The approved page goes out whole before the approval takes effect:
		// approving completes the flow, and the client may then end this server (its
		// child) before a page written later reaches the browser.
		s.writeConsent(w, c, true)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		s.consents.approve(id)
		s.logf("demo: consent %s approved", id)
	})
	return loopbackHostOnly(http.NewCrossOriginProtection().Handler(mux))
}

func (s *Server) lookupConsent(id string) (*consent, bool) {
	if !validID(id) {
		return nil, false
	}
	return s.consents.get(id)
}

// writeConsent writes c's page, as approved or not, in one write with its length.
func (s *Server) writeConsent(w http.ResponseWriter, c *consent, approved bool) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	data := struct {
		ID, Message string
		Approved    bool
	}{c.id, c.message, approved}
	var page bytes.Buffer
	if err := consentPage().Execute(&page, data); err != nil {
		s.logf("demo: render consent page: %v", err)
	}
	h.Set("Content-Length", strconv.Itoa(page.Len()))
	_, _ = w.Write(page.Bytes())
}

// loopbackHostOnly refuses requests whose Host header names anything but a
// loopback address, against DNS rebinding.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "forbidden host", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
