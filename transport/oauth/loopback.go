package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// loopback is the redirect listener of one sign-in: it accepts the callback that
// carries the expected state and ignores any other request.
type loopback struct {
	ln    net.Listener
	srv   *http.Server
	mu    sync.Mutex
	state string // guarded by mu
	once  sync.Once
	res   chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenLoopback binds 127.0.0.1:port (0 picks a free port).
func listenLoopback(port int) (*loopback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("redirect listener: %w", err)
	}
	l := &loopback{ln: ln, res: make(chan callbackResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, l.serve)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

func (l *loopback) expect(state string) {
	l.mu.Lock()
	l.state = state
	l.mu.Unlock()
}

func (l *loopback) port() int { return l.ln.Addr().(*net.TCPAddr).Port }

func redirectURL(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + callbackPath
}

func (l *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
}

func (l *loopback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l.mu.Lock()
	state := l.state
	l.mu.Unlock()
	if state == "" || q.Get("state") != state {
		http.Error(w, "unexpected sign-in callback (state does not match)", http.StatusBadRequest)
		return
	}
	var res callbackResult
	switch {
	case q.Get("error") != "":
		res.err = &Error{Step: StepAuthorization, Code: q.Get("error"), Description: q.Get("error_description")}
		http.Error(w, "Sign-in failed: "+q.Get("error")+". You can close this tab.", http.StatusOK)
	case q.Get("code") == "":
		http.Error(w, "sign-in callback without a code", http.StatusBadRequest)
		return
	default:
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "Signed in. You can close this tab and return to elicitty.")
	}
	l.once.Do(func() { l.res <- res })
}

// wait returns the callback's result, or an error when ctx ends or wait passes.
func (l *loopback) wait(ctx context.Context, wait time.Duration) (*auth.AuthorizationResult, error) {
	var timer <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timer = t.C
	}
	select {
	case r := <-l.res:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the sign-in redirect: %w", ctx.Err())
	case <-timer:
		return nil, fmt.Errorf("no sign-in redirect within %s: %w", wait, context.DeadlineExceeded)
	}
}

// stateOf returns the state parameter of an authorization URL.
func stateOf(authURL string) (string, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", fmt.Errorf("authorization URL: %w", err)
	}
	s := u.Query().Get("state")
	if s == "" {
		return "", errors.New("authorization URL has no state")
	}
	return s, nil
}
