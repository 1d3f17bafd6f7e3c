package demo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the demo server's version in its serverInfo.
const Version = "0.1.0"

// Options configures a Server. A nil *Options means the defaults.
type Options struct {
	// ConsentAddr is the loopback address the consent page listener binds,
	// such as "127.0.0.1:0" (the default: a free port on 127.0.0.1).
	ConsentAddr string
	// Logf, if set, receives one line per notable event (consent served or
	// approved, listener addresses). Nil discards them.
	Logf func(format string, args ...any)
}

// Server is the built-in demo MCP server together with the loopback
// listener that serves its consent pages. Make one with New and release it
// with Close. Its methods are safe for concurrent use.
type Server struct {
	mcp      *mcp.Server
	logf     func(format string, args ...any)
	stateKey []byte // signs requestState

	consents    consents
	consentSrv  *http.Server
	consentBase string // "http://127.0.0.1:PORT"

	http http.Handler

	notes notifier // the ticker resource and the tools added at run time
}

// New builds the demo server and starts its consent page listener on
// 127.0.0.1 (or the loopback address in opts.ConsentAddr).
func New(opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ConsentAddr == "" {
		o.ConsentAddr = "127.0.0.1:0"
	}
	s := &Server{logf: o.Logf, stateKey: []byte(rand.Text() + rand.Text())}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	consentAddr, err := loopback(o.ConsentAddr)
	if err != nil {
		return nil, fmt.Errorf("consent listener: %w", err)
	}
	ln, err := net.Listen("tcp", consentAddr)
	if err != nil {
		return nil, fmt.Errorf("consent listener: %w", err)
	}
	s.consentBase = "http://" + ln.Addr().String()
	s.consentSrv = &http.Server{Handler: s.consentHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.consentSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("demo: consent listener: %v", err)
		}
	}()
	s.logf("demo: consent pages on %s/consent/", s.consentBase)

	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "elicitty-demo", Title: "elicitty demo server", Version: Version},
		&mcp.ServerOptions{Instructions: instructions, CompletionHandler: complete, SubscribeHandler: s.subscribe, UnsubscribeHandler: s.unsubscribe})
	s.addTools()
	s.addPrompts()
	s.addResources()
	s.mcp.AddReceivingMiddleware(readmeMiddleware)
	s.http = s.newHTTPHandler()
	return s, nil
}

const instructions = "The elicitty demo server: every tool exists to show one way a server asks the user " +
	"for input (forms with every field kind, chained forms, URL-mode consent, -32042, and the " +
	"2026-07-28 multi round-trip input requests). Nothing it does leaves this machine."

// MCP returns the underlying go-sdk server, for in-process connections.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ConsentURL returns the address of the consent page for the flow id.
func (s *Server) ConsentURL(id string) string { return s.consentBase + "/consent/" + id }

// ServeStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC) until the client disconnects or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPHandler returns the MCP endpoint over HTTP. Requests whose
// Mcp-Protocol-Version header is 2026-07-28 or later are served statelessly
// (the 2026-07-28 era); all others by the stateful Streamable HTTP handler of
// the 2025-11-25 era. Paths under /sse serve the deprecated HTTP+SSE
// transport (2024-11-05); every other path is the Streamable HTTP endpoint.
func (s *Server) HTTPHandler() http.Handler { return s.http }

func (s *Server) newHTTPHandler() http.Handler {
	get := func(*http.Request) *mcp.Server { return s.mcp }
	stateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: time.Hour})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	sse := mcp.NewSSEHandler(get, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/sse" || strings.HasPrefix(r.URL.Path, "/sse/"):
			sse.ServeHTTP(w, r)
		case r.Header.Get("Mcp-Protocol-Version") >= modernVersion:
			stateless.ServeHTTP(w, r)
		default:
			stateful.ServeHTTP(w, r)
		}
	})
}

// ServeHTTP serves HTTPHandler on addr, which must be a loopback address,
// until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, addr string) error {
	addr, err := loopback(addr)
	if err != nil {
		return fmt.Errorf("serve demo: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve demo: %w", err)
	}
	srv := &http.Server{Handler: s.http, ReadHeaderTimeout: 10 * time.Second}
	s.logf("demo: MCP endpoint http://%s/mcp (legacy SSE: http://%s/sse)", ln.Addr(), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve demo: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil {
			srv.Close()
		}
		return nil
	}
}

// closeGrace bounds how long Close waits for consent pages being served.
const closeGrace = 2 * time.Second

// Close stops the consent page listener. A page being served finishes first (within
// closeGrace): the approval takes effect, and is logged, after its page went out, so
// that the browser gets the page even when the client ends the server at once.
func (s *Server) Close() error {
	s.stopTicker()
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := s.consentSrv.Shutdown(ctx); err != nil {
		return s.consentSrv.Close()
	}
	return nil
}

// loopback returns addr if its host is a loopback IP literal, with
// "localhost" read as 127.0.0.1 (without asking a resolver); any other
// host is refused.
func loopback(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("address %q is not a loopback address (use 127.0.0.1:PORT)", addr)
	}
	return net.JoinHostPort(host, port), nil
}
