package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

// seenRequest is what the test HTTP server recorded of one request.
type seenRequest struct {
	method string
	header http.Header
	body   string
}

type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
}

func (r *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		r.reqs = append(r.reqs, seenRequest{req.Method, req.Header.Clone(), string(body)})
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

func (r *recorder) find(substr string) []seenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []seenRequest
	for _, q := range r.reqs {
		if strings.Contains(q.body, substr) {
			out = append(out, q)
		}
	}
	return out
}

func startHTTP(t *testing.T, fx *fixture, wrap func(http.Handler) http.Handler) (string, *recorder) {
	return startHTTPOpts(t, fx, wrap, nil)
}

func startHTTPOpts(t *testing.T, fx *fixture, wrap func(http.Handler) http.Handler, opts *mcp.StreamableHTTPOptions) (string, *recorder) {
	t.Helper()
	srv := newTestServer(fx)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	rec := &recorder{}
	var handler http.Handler = rec.wrap(h)
	if wrap != nil {
		handler = wrap(handler)
	}
	ts := httptest.NewServer(handler) // 127.0.0.1 only
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", rec
}

func httpServer(url string) config.Server {
	return config.Server{Name: "web", URL: url, Headers: map[string]string{"X-Api-Key": "k-secret-value"}}
}

func TestHTTPElicitationOnPOSTStreamWithHeaders(t *testing.T) {
	url, rec := startHTTP(t, &fixture{schema: orderedSchema(t)}, nil)
	log := wire.New(500)
	a := newAnswerer(accept(map[string]any{"zeta": "z"}))
	s, err := Connect(context.Background(), httpServer(url), Options{Answerer: a, Protocol: legacy, Log: log, URLMode: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.HasPrefix(got, "accept ") {
		t.Errorf("tool saw %q", got)
	}
	if got, want := string(a.requests()[0].Schema), string(orderedSchema(t)); got != want {
		t.Errorf("schema order lost over HTTP:\n got %s\nwant %s", got, want)
	}
	if a.requests()[0].Call != "tools/call ask" {
		t.Errorf("Call = %q", a.requests()[0].Call)
	}
	for _, q := range rec.find(`"method":"tools/call"`) {
		if q.header.Get("X-Api-Key") != "k-secret-value" {
			t.Errorf("custom header missing on %s", q.body)
		}
	}
	for _, e := range log.Snapshot() {
		if strings.Contains(string(e.Raw)+e.Text, "k-secret-value") {
			t.Errorf("header value logged: %+v", e)
		}
	}
	if n := len(findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.In && e.Method == "elicitation/create" })); n != 1 {
		t.Errorf("logged %d incoming elicitations", n)
	}
	if n := len(findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.In && e.Method == "tools/call" && e.Latency > 0 })); n != 1 {
		t.Errorf("logged %d tools/call responses with latency", n)
	}
}

func TestHTTPElicitationOnGETStream(t *testing.T) {
	fx := &fixture{schema: orderedSchema(t), async: make(chan string, 1)}
	url, _ := startHTTP(t, fx, nil)
	a := newAnswerer(accept(map[string]any{"zeta": "later"}))
	s, err := Connect(context.Background(), httpServer(url), Options{Answerer: a, Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(context.Background(), "ask-async", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-fx.async:
		if got != "accept" {
			t.Errorf("server got %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("elicitation on the GET stream never answered")
	}
	if got, want := string(a.requests()[0].Schema), string(orderedSchema(t)); got != want {
		t.Errorf("schema order lost on GET stream:\n got %s\nwant %s", got, want)
	}
}

func TestHTTPModernHeaders(t *testing.T) {
	// go-sdk serves 2026-07-28 only from a stateless handler.
	url, rec := startHTTPOpts(t, &fixture{}, nil, &mcp.StreamableHTTPOptions{Stateless: true})
	s, err := Connect(context.Background(), httpServer(url), Options{Protocol: modern})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Protocol() != "2026-07-28" {
		t.Fatalf("Protocol() = %q", s.Protocol())
	}
	if _, _, err := s.CallTool(context.Background(), "region", map[string]any{"region": "eu west ü", "count": 3}); err != nil {
		t.Fatal(err)
	}
	calls := rec.find(`"method":"tools/call"`)
	if len(calls) != 1 {
		t.Fatalf("%d tools/call requests", len(calls))
	}
	h := calls[0].header
	for k, want := range map[string]string{
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "region",
		"Mcp-Param-Count":      "3",
		"X-Api-Key":            "k-secret-value",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := h.Get("Mcp-Param-Region"); !strings.HasPrefix(got, "=?base64?") {
		t.Errorf("Mcp-Param-Region = %q, want base64 form for non-ASCII", got)
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	for _, code := range []int{401, 500} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "nope", code)
			}))
			defer ts.Close()
			_, err := Connect(context.Background(), httpServer(ts.URL+"/mcp?token=abc"), Options{Log: wire.New(50)})
			var ce *ConnError
			var he *HTTPError
			if !errors.As(err, &ce) || !errors.As(err, &he) || he.Status != code {
				t.Fatalf("err = %v, want a ConnError with HTTP %d", err, code)
			}
			msg := err.Error()
			if !strings.Contains(msg, `server "web"`) || !strings.Contains(msg, http.StatusText(code)) || strings.Contains(msg, "token=abc") {
				t.Errorf("message %q", msg)
			}
		})
	}
}

func TestHTTPFallbackToLegacySSE(t *testing.T) {
	srv := newTestServer(&fixture{schema: orderedSchema(t)})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	a := newAnswerer(accept(map[string]any{"zeta": "sse"}))
	s, err := Connect(context.Background(), httpServer(ts.URL), Options{Answerer: a, Log: wire.New(200)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Kind() != config.KindSSE {
		t.Errorf("Kind() = %q, want sse", s.Kind())
	}
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.HasPrefix(got, "accept") {
		t.Errorf("tool saw %q", got)
	}
	if got, want := string(a.requests()[0].Schema), string(orderedSchema(t)); got != want {
		t.Errorf("schema order lost over SSE")
	}
}

func TestHTTPDiscoverTimeoutFallsBack(t *testing.T) {
	hang := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"server/discover"`)) {
				<-r.Context().Done()
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		})
	}
	url, _ := startHTTP(t, &fixture{}, hang)
	start := time.Now()
	s, err := Connect(context.Background(), httpServer(url), Options{DiscoverTimeout: 100 * time.Millisecond, Log: wire.New(100)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Protocol() != legacy {
		t.Errorf("Protocol() = %q, want %q", s.Protocol(), legacy)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Connect took %s", d)
	}
	if _, err := s.Tools(context.Background()); err != nil {
		t.Errorf("Tools after fallback: %v", err)
	}
}

func TestHTTPViolationsReachServer(t *testing.T) {
	url, rec := startHTTP(t, &fixture{schema: orderedSchema(t)}, nil)
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, &elicit.ViolationsError{Violations: []elicit.Violation{{Path: "/zeta", Keyword: "required", Message: "required"}}}
	})
	s, err := Connect(context.Background(), httpServer(url), Options{Answerer: a, Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(context.Background(), "ask", nil); err == nil {
		t.Fatal("call succeeded despite invalid content")
	}
	posted := rec.find(`"code":-32602`)
	if len(posted) != 1 || !strings.Contains(posted[0].body, `"data":{"errors":[{"path":"/zeta","keyword":"required","message":"required"}]}`) {
		t.Errorf("server got %+v", posted)
	}
}

func TestHTTPLegacySSELogsEachMessageOnce(t *testing.T) {
	srv := newTestServer(&fixture{})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	log := wire.New(200)
	sv := httpServer(ts.URL)
	sv.Kind = config.KindSSE
	s, err := Connect(context.Background(), sv, Options{Log: log, Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []wire.Dir{wire.Out, wire.In} {
		if n := len(findEntries(log, func(e wire.Entry) bool { return e.Dir == dir && e.Method == "tools/call" })); n != 1 {
			t.Errorf("%s tools/call logged %d times", dir, n)
		}
	}
}

func TestHeaderValue(t *testing.T) {
	tests := []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`"us-west1"`, "us-west1", true},
		{`""`, "", true},
		{`42`, "42", true},
		{`3.14`, "3.14", true},
		{`-7`, "-7", true},
		{`true`, "true", true},
		{`false`, "false", true},
		{`null`, "", false},
		{`{"a":1}`, "", false},
		{`"Zürich"`, "=?base64?WsO8cmljaA==?=", true},
		{`" padded "`, "=?base64?IHBhZGRlZCA=?=", true},
		{`"line\nbreak"`, "=?base64?bGluZQpicmVhaw==?=", true},
		{`"=?base64?abc?="`, "=?base64?PT9iYXNlNjQ/YWJjPz0=?=", true},
	}
	for _, tt := range tests {
		got, ok := headerValue(json.RawMessage(tt.raw))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("headerValue(%s) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestToolWithInvalidHeaderListedNotCalled(t *testing.T) {
	// go-sdk refuses to mirror any header of a tool with a "number" annotated property
	// (its own server even panics on such a tool); our RoundTripper fills them in.
	var mu sync.Mutex
	var call http.Header
	url := startRawHTTP(t, func(w http.ResponseWriter, r *http.Request, m rawMsg) {
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"price","inputSchema":{"type":"object","properties":{
				"amount":{"type":"number","x-mcp-header":"Amount"},"note":{"type":"string","x-mcp-header":"Note"},
				"plain":{"type":"string"},"gone":{"type":"string","x-mcp-header":"Gone"}}}}]}}`, m.ID)
		case "tools/call":
			mu.Lock()
			call = r.Header.Clone()
			mu.Unlock()
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	s, err := Connect(context.Background(), httpServer(url), Options{Protocol: modern})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.Tools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Name != "price" {
		t.Errorf("Tools() = %v, %v; want the price tool go-sdk drops", tools, err)
	}
	// SEP-2243: an x-mcp-header on a number is invalid, so the tool is shown but not called.
	_, _, err = s.CallTool(context.Background(), "price", map[string]any{"amount": 9.5, "note": "", "plain": "x", "gone": nil})
	var he *ToolHeaderError
	if !errors.As(err, &he) || he.Tool != "price" || !strings.Contains(he.Problem, `"amount"`) {
		t.Fatalf("CallTool(price) = %v, want a ToolHeaderError naming amount", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if call != nil {
		t.Errorf("the server received a tools/call for a tool with an invalid annotation: %v", call)
	}
}

// TestHTTPReinitializesAfter404: a server that restarted answers 404 to the old
// Mcp-Session-Id; the client starts a new session once, retries the call and says so.
func TestHTTPReinitializesAfter404(t *testing.T) {
	mk := func() http.Handler {
		srv := newTestServer(&fixture{})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	var cur atomic.Pointer[http.Handler]
	h := mk()
	cur.Store(&h)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*cur.Load()).ServeHTTP(w, r) }))
	defer ts.Close()
	events := make(chan Event, 16)
	log := wire.New(200)
	s, err := Connect(context.Background(), config.Server{Name: "web", URL: ts.URL + "/mcp"}, Options{Protocol: legacy, Log: log,
		OnEvent: func(e Event) { events <- e }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "one"}); err != nil {
		t.Fatal(err)
	}
	restarted := mk() // a new process: it knows no session
	cur.Store(&restarted)
	res, _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "two"})
	if err != nil {
		t.Fatalf("call after the restart: %v", err)
	}
	if got := resultText(t, res); got != "two" {
		t.Errorf("result %q", got)
	}
	var told bool
	for len(events) > 0 {
		if e := <-events; e.Kind == EventReconnected {
			told = true
		}
	}
	if !told {
		t.Error("the user was not told about the new session")
	}
}

// TestHTTPLegacyEndpointEventOnPOST: a legacy HTTP+SSE server that answers the
// Streamable HTTP initialize POST with a new stream opening with its endpoint event is
// recognised as legacy and reached over HTTP+SSE.
func TestHTTPLegacyEndpointEventOnPOST(t *testing.T) {
	srv := newTestServer(&fixture{})
	legacyH := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "event: endpoint\ndata: /?sessionid=nope\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		legacyH.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Connect(ctx, config.Server{Name: "old", URL: ts.URL, HandshakeTimeout: 10 * time.Second}, Options{Log: wire.New(200), Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Kind() != config.KindSSE {
		t.Errorf("Kind() = %q, want sse", s.Kind())
	}
	res, _, err := s.CallTool(ctx, "echo", map[string]any{"text": "old"})
	if err != nil || resultText(t, res) != "old" {
		t.Fatalf("call over legacy SSE: %v", err)
	}
}

// TestSSEOnlyServerWithDefaults: a legacy HTTP+SSE server that drops every message but a
// 2025-era initialize (as mcpkit's SSE transport does with a 2026-07-28 offer) is
// reached with default options. The initialize carries the capabilities of the era it
// offers, tasks included, and the era's reason says that Streamable HTTP was refused,
// not initialize.
func TestSSEOnlyServerWithDefaults(t *testing.T) {
	srv := newTestServer(&fixture{})
	legacyH := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") != "" {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if bytes.Contains(body, []byte(`"2026-07-28"`)) || bytes.Contains(body, []byte(`"server/discover"`)) {
				w.WriteHeader(http.StatusAccepted) // taken, never answered
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		legacyH.ServeHTTP(w, r)
	}))
	defer ts.Close()
	log := wire.New(200)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Connect(ctx, config.Server{Name: "old", URL: ts.URL, HandshakeTimeout: 10 * time.Second}, Options{Log: log, URLMode: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Kind() != config.KindSSE || s.Protocol() != legacy {
		t.Errorf("kind %q, protocol %q; want sse, %s", s.Kind(), s.Protocol(), legacy)
	}
	if r := s.Era().Reason; !strings.Contains(r, "Streamable HTTP was refused (HTTP 400)") || strings.Contains(r, "refused initialize") {
		t.Errorf("era reason %q", r)
	}
	var inits []string
	for _, e := range log.Snapshot() {
		if e.Method == "initialize" && e.Dir == wire.Out {
			inits = append(inits, string(e.Raw))
		}
	}
	if len(inits) == 0 || !strings.Contains(inits[len(inits)-1], `"tasks":{`) || strings.Contains(inits[len(inits)-1], "2026-07-28") {
		t.Errorf("initialize sent over SSE: %q", inits)
	}
	res, _, err := s.CallTool(ctx, "echo", map[string]any{"text": "old"})
	if err != nil || resultText(t, res) != "old" {
		t.Fatalf("call over legacy SSE: %v", err)
	}
}
