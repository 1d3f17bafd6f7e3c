package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport/wire"
)

func connectMemTimeout(t *testing.T, fx *fixture, timeout time.Duration, a elicit.Answerer) *Session {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := newTestServer(fx).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	s, err := Connect(context.Background(), config.Server{Name: "mem", Timeout: timeout},
		Options{Answerer: a, Protocol: legacy, Log: wire.New(100), transport: ct})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestTimeoutFiresOnSilentServer(t *testing.T) {
	s := connectMemTimeout(t, &fixture{}, 100*time.Millisecond, nil)
	_, _, err := s.CallTool(context.Background(), "hang", nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "tools/call hang") {
		t.Fatalf("err = %v, want a timeout naming the call", err)
	}
}

func TestTimeoutPausesWhilePromptOpen(t *testing.T) {
	// The user takes 3x the timeout to answer; the call must still succeed.
	a := newAnswerer(func(ctx context.Context, r *elicit.Request) (elicit.Response, error) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return elicit.Response{}, ctx.Err()
		}
		return elicit.Response{Action: elicit.Accept, Content: map[string]any{"zeta": "slow"}}, nil
	})
	s := connectMemTimeout(t, &fixture{schema: orderedSchema(t)}, 100*time.Millisecond, a)
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatalf("call timed out under an open prompt: %v", err)
	}
	if got := resultText(t, res); !strings.HasPrefix(got, "accept") {
		t.Errorf("tool saw %q", got)
	}
}

func TestHTTPErrorMidSession(t *testing.T) {
	fail := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				http.Error(w, "database on fire", http.StatusInternalServerError)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		})
	}
	url, _ := startHTTP(t, &fixture{}, fail)
	s, err := Connect(context.Background(), httpServer(url), Options{Protocol: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, _, err = s.CallTool(context.Background(), "echo", nil)
	var ce *ConnError
	var he *HTTPError
	if !errors.As(err, &ce) || !errors.As(err, &he) || he.Status != 500 {
		t.Fatalf("err = %v, want a ConnError with HTTP 500", err)
	}
	t.Logf("error line: %v", err)
}

func TestHTTPUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there any more
	_, err := Connect(context.Background(), httpServer(url+"/mcp?key=secret"), Options{})
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, `server "web": cannot reach http://127.0.0.1:`) || strings.Contains(msg, "secret") {
		t.Errorf("message %q", msg)
	}
	t.Log(msg)
}

// TestHTTPSilentServerTimesOut: an HTTP server that accepts the connection but never
// answers initialize fails the connect at the server's timeout instead of hanging.
func TestHTTPSilentServerTimesOut(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); ts.Close() })
	srv := httpServer(ts.URL + "/mcp")
	srv.Timeout = 300 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		_, err := Connect(context.Background(), srv, Options{Protocol: legacy})
		done <- err
	}()
	select {
	case err := <-done:
		var ce *ConnError
		if !errors.As(err, &ce) || !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "initialize") {
			t.Fatalf("err = %v, want a ConnError with the initialize timeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Connect to a silent HTTP server did not return within 20s despite a 300ms timeout")
	}
}

func TestTimeoutIsIdleTimeResetByProgress(t *testing.T) {
	// 400 ms of work with progress every 50 ms under a 150 ms idle timeout.
	s := connectMemTimeout(t, &fixture{}, 150*time.Millisecond, nil)
	res, _, err := s.CallTool(context.Background(), "slow-progress", nil)
	if err != nil {
		t.Fatalf("a call reporting progress timed out: %v", err)
	}
	if got := resultText(t, res); got != "done" {
		t.Errorf("result %q", got)
	}
	// Without progress the same budget still ends a silent call.
	if _, _, err := s.CallTool(context.Background(), "hang", nil); !errors.Is(err, ErrTimeout) {
		t.Errorf("silent call: err = %v, want a timeout", err)
	}
}

// TestForeignProgressDoesNotStretchTimeout: progress that carries a token other than
// the request's own (a made-up one, or another request's) does not restart its
// timeout; its own does.
func TestForeignProgressDoesNotStretchTimeout(t *testing.T) {
	const d = time.Second
	for _, tt := range []struct {
		token string
		want  time.Duration
	}{
		{"not-yours", d},
		{"mine", progressBudget * d},
	} {
		synctest.Test(t, func(t *testing.T) {
			s := &Session{}
			s.prompt.init()
			start := time.Now()
			ctx, cancel := s.boundedContext(context.Background(), d, "mine")
			defer cancel()
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				for ctx.Err() == nil {
					time.Sleep(d / 4) // fake time: a server reporting progress 4 times a timeout
					s.prompt.poke(tt.token)
				}
			}()
			<-ctx.Done()
			if got := time.Since(start); got != tt.want {
				t.Errorf("progress for %q: the request timed out after %s, want %s", tt.token, got, tt.want)
			}
			<-stopped
		})
	}
}

func TestDefaultBoundsApply(t *testing.T) {
	s := connectMem(t, newTestServer(&fixture{}), Options{Protocol: legacy})
	if s.server.Timeout != DefaultTimeout || s.server.HandshakeTimeout != DefaultHandshakeTimeout {
		t.Errorf("timeout %s, handshake %s: defaults not applied", s.server.Timeout, s.server.HandshakeTimeout)
	}
}

// TestHTTPHandshakeBounded: a server that never sends response headers (slowloris), or
// opens an SSE stream on initialize and never answers in it, fails the connect at the
// handshake timeout.
func TestHTTPHandshakeBounded(t *testing.T) {
	// stop releases a handler, so its server can close.
	for name, mk := range map[string]func(stop chan struct{}) http.HandlerFunc{
		"no headers": func(stop chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-stop:
				}
			}
		},
		"endless SSE": func(stop chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				for {
					if _, err := io.WriteString(w, ": still here\n\n"); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
						return
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			stop := make(chan struct{})
			ts := httptest.NewServer(mk(stop))
			defer ts.Close()
			defer close(stop)
			srv := config.Server{Name: "slow", URL: ts.URL + "/mcp", HandshakeTimeout: 300 * time.Millisecond}
			start := time.Now()
			_, err := Connect(context.Background(), srv, Options{Protocol: legacy, Log: wire.New(10)})
			var ce *ConnError
			if !errors.Is(err, ErrTimeout) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "initialize") {
				t.Errorf("err = %v, want an initialize timeout", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("connect took %s", d)
			}
		})
	}
}

// TestStdioHandshakeBoundedByDefault: with no request timeout configured, a stdio
// server that never answers initialize fails at the handshake timeout.
func TestStdioHandshakeBounded(t *testing.T) {
	testkit.External(t, "sh") // the server is a shell script
	srv := config.Server{Name: "silent", Command: "sh", Args: []string{"-c", "exec sleep 30"}, HandshakeTimeout: 200 * time.Millisecond}
	_, err := Connect(context.Background(), srv, Options{Log: wire.New(10), Protocol: legacy})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "initialize") {
		t.Fatalf("err = %v, want the initialize timeout", err)
	}
}

func TestURLWaitLineSaysWhatAndHow(t *testing.T) {
	fx := &fixture{}
	events := make(chan Event, 8)
	a := newAnswerer(accept(nil)) // accepted, but the server never completes it
	s := connectMem(t, newTestServer(fx), Options{Answerer: a, Protocol: legacy, URLMode: true, URLWait: 200 * time.Millisecond,
		OnEvent: func(e Event) { events <- e }})
	_, _, err := s.CallTool(context.Background(), "linked", nil)
	if !errors.Is(err, elicit.ErrUnanswered) || !strings.Contains(err.Error(), "not completed within 200ms") {
		t.Fatalf("err = %v", err)
	}
	var lines []string
	for len(events) > 0 {
		if e := <-events; e.Kind == "url-wait" {
			lines = append(lines, e.Text.Line())
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "up to 200ms") || !strings.Contains(lines[0], "lnk-1") || !strings.Contains(lines[0], "retry: now") {
		t.Errorf("url-wait lines = %q", lines)
	}
}

// TestStdioContentLengthFramingHinted: a server framing messages as LSP does (Content-
// Length headers) never answers a newline-delimited initialize; the handshake fails as
// soon as its first header shows, saying why, instead of running out its timeout.
func TestStdioContentLengthFramingHinted(t *testing.T) {
	testkit.External(t, "sh") // the server is a shell script
	srv := config.Server{Name: "lsp", Command: "sh", Args: []string{"-c", `printf 'Content-Length: 52\r\n\r\n{"jsonrpc":"2.0","method":"window/logMessage"}'; exec sleep 30`},
		HandshakeTimeout: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Connect(ctx, srv, Options{Log: wire.New(10), Protocol: legacy})
	if !errors.Is(err, ErrFraming) || errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "Content-Length headers") {
		t.Fatalf("err = %v, want the framing named at once", err)
	}
}

// TestHandshakeTimeoutOfPackageRunners: a server started through a package runner gets
// room to download; the timeout error says what ran out and matches ErrTimeout.
func TestHandshakeTimeoutOfPackageRunners(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		args   []string
		runner string
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-everything"}, "npx"},
		{"/usr/local/bin/uvx", []string{"mcp-server-fetch"}, "uvx"},
		{"pnpm", []string{"dlx", "x"}, "pnpm dlx"},
		{"bunx", nil, "bunx"},
		{"npm", []string{"exec", "x"}, "npm exec"},
		{"pipx", []string{"run", "x"}, "pipx run"},
		{"npm", []string{"start"}, ""},
		{"node", []string{"server.js"}, ""},
	} {
		srv := config.Server{Name: "s", Command: tc.cmd, Args: tc.args}
		if got := PackageRunner(srv); got != tc.runner {
			t.Errorf("PackageRunner(%s %v) = %q, want %q", tc.cmd, tc.args, got, tc.runner)
		}
		want := DefaultHandshakeTimeout
		if tc.runner != "" {
			want = RunnerHandshakeTimeout
		}
		if got := DefaultHandshakeBound(srv); got != want {
			t.Errorf("DefaultHandshakeBound(%s %v) = %s, want %s", tc.cmd, tc.args, got, want)
		}
	}
	if got := DefaultHandshakeBound(config.Server{Command: "npx", Timeout: 10 * time.Second}); got != 10*time.Second {
		t.Errorf("a shorter --timeout bounds the handshake too: %s", got)
	}
	testkit.External(t, "sh") // the rest starts a server that is a shell script
	srv := config.Server{Name: "mute", Command: "sh", Args: []string{"-c", "exec sleep 30"}, HandshakeTimeout: 200 * time.Millisecond}
	_, err := Connect(context.Background(), srv, Options{Log: wire.New(10), Protocol: legacy})
	var he *HandshakeTimeoutError
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &he) || he.After != 200*time.Millisecond || !strings.Contains(err.Error(), "did not answer initialize within 200ms") {
		t.Fatalf("err = %v", err)
	}
}

// TestUndeclaredURLRefusalIsReported: refusing a URL-mode request because URL mode was
// not declared is reported, not only logged.
func TestUndeclaredURLRefusalIsReported(t *testing.T) {
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) {
			return
		}
		switch {
		case m.Method == "tools/call":
			rs.send(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"url","message":"Link","url":"https://a.example/x","elicitationId":"x"}}`)
			rs.reply(m.ID, `{"content":[{"type":"text","text":"ok"}]}`)
		}
	})
	events := make(chan Event, 8)
	s := connectRaw(t, tr, Options{Answerer: newAnswerer(accept(nil)), OnEvent: func(e Event) { events <- e }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := s.CallTool(ctx, "t", nil); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case e := <-events:
			if e.Kind == EventRefused && strings.Contains(e.Text.Line(), "URL mode is not declared") {
				return
			}
		case <-ctx.Done():
			t.Fatal("no refusal reported")
		}
	}
}

// TestEndlessProgressIsBounded: progress keeps a request alive, but not forever: after
// progressBudget timeouts of progress without a result, the request times out.
func TestEndlessProgressIsBounded(t *testing.T) {
	const d = 40 * time.Millisecond
	s := &Session{}
	s.prompt.init()
	ctx, cancel := s.boundedContext(context.Background(), d, "t-1")
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(d / 4)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.prompt.poke("t-1")
			case <-stop:
				return
			}
		}
	}()
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), ErrTimeout) {
			t.Fatalf("cause = %v, want a timeout", context.Cause(ctx))
		}
	case <-time.After(20 * progressBudget * d):
		t.Fatal("endless progress kept the request alive")
	}
}
