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
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
