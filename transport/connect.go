package transport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
)

// defaultDiscoverTimeout bounds server/discover (docs/protocol.md, "Negotiation").
const defaultDiscoverTimeout = 3 * time.Second

// defaultMaxRounds caps MRTR rounds (docs/protocol.md, "MRTR").
const defaultMaxRounds = 16

// Default bounds of the waits of a session; config.Server and flags override them.
const (
	// DefaultTimeout bounds a request's idle time: reset by each progress notification,
	// paused while a person answers a form.
	DefaultTimeout = 60 * time.Second
	// DefaultHandshakeTimeout bounds connecting and initialize.
	DefaultHandshakeTimeout = 30 * time.Second
	// RunnerHandshakeTimeout bounds connecting and initialize of a stdio server
	// started through a package runner (npx, uvx, ...), which may download it first.
	RunnerHandshakeTimeout = 120 * time.Second
	// DefaultURLWait bounds a headless wait for a URL-mode completion notification.
	DefaultURLWait = 2 * time.Minute
)

// Connect starts or reaches srv and negotiates a session. Without a pinned protocol it
// chooses the era as chooseEra describes. A failure is noted in the wire log too, so
// that the Log tab and a --log file say why the handshake they show went nowhere.
func Connect(ctx context.Context, srv config.Server, opts Options) (*Session, error) {
	s, err := connect(ctx, srv, opts)
	if err != nil && ctx.Err() == nil {
		why := err
		var ce *ConnError
		if errors.As(err, &ce) {
			why = ce.Err // the entry names the server already
		}
		opts.Log.Notef(srv.Name, "connect failed: %s", safe.Line(why.Error()))
	}
	return s, err
}

// connect is Connect without the note of a failure.
func connect(ctx context.Context, srv config.Server, opts Options) (*Session, error) {
	if opts.Protocol == "" && srv.Protocol != "" {
		opts.Protocol = srv.Protocol
		if opts.PinnedBy == "" {
			opts.PinnedBy = "the server's protocol: setting"
		}
	}
	if opts.Protocol != "" {
		if opts.PinnedBy == "" {
			opts.PinnedBy = "the caller"
		}
		s, err := dial(ctx, srv, opts, "")
		if err != nil {
			return nil, err
		}
		s.era = Era{Version: s.Protocol(), Reason: s.overSSE("pinned by " + opts.PinnedBy)}
		s.noteEra()
		return s, nil
	}
	return chooseEra(ctx, srv, opts)
}

// dial starts or reaches srv and negotiates a session; offer is the version proposed
// when opts.Protocol pins none.
func dial(ctx context.Context, srv config.Server, opts Options, offer string) (*Session, error) {
	if opts.DiscoverTimeout <= 0 {
		opts.DiscoverTimeout = defaultDiscoverTimeout
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = srv.MaxRounds
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = defaultMaxRounds
	}
	if srv.HandshakeTimeout <= 0 {
		srv.HandshakeTimeout = DefaultHandshakeBound(srv)
	}
	if srv.Timeout <= 0 {
		srv.Timeout = DefaultTimeout
	}
	if opts.Protocol == protocol.Version20250618 {
		opts.URLMode = false // URL mode arrived in 2025-11-25
	}
	if opts.ClientName == "" {
		opts.ClientName = "elicitty"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	s := &Session{
		server: srv,
		opts:   opts,
		tap:    newTap(srv.Name, opts.Log, opts.DiscoverTimeout),
		urls:   newPendingURLs(),
		calls:  map[*callTrack]struct{}{},
		kind:   srv.EffectiveKind(),
		offer:  offer,
	}
	s.prompt.init()
	s.tap.toolsList = s.noteToolsList
	s.tap.onRefused = func(reason string) {
		s.event(EventRefused, safe.Untrusted("refused a request unread: "+reason), "")
	}
	s.served = newTaskServe(s.sendTaskStatus)
	s.tap.clientTasks = s.clientTaskCaps()
	s.tap.fileInputs = opts.FileInputs
	if err := s.initRoots(); err != nil {
		return nil, &ConnError{Server: srv.Name, Err: err}
	}

	switch {
	case opts.transport != nil:
		s.kind = "memory"
		if err := s.connect(ctx, &tapTransport{inner: opts.transport, tap: s.tap}); err != nil {
			return nil, &ConnError{Server: srv.Name, Err: err}
		}
	case s.kind == config.KindStdio:
		p, lsp, t, err := startStdio(srv, opts.Log, opts.Procs, s.tap)
		if err != nil {
			return nil, &ConnError{Server: srv.Name, Err: err}
		}
		s.proc = p
		// The handshake is a request like any other: a server that never answers it
		// must not hang the command past its timeout.
		cctx, cancel := s.boundedContext(ctx, srv.HandshakeTimeout, "")
		// A server framing its messages as LSP does never answers a JSON line: the
		// handshake ends as soon as its first header shows.
		lctx, lcancel := context.WithCancelCause(cctx)
		go func() {
			select {
			case <-lsp:
				lcancel(ErrFraming)
			case <-lctx.Done():
			}
		}()
		err = s.connect(lctx, t)
		cause := context.Cause(cctx)
		framing := errors.Is(context.Cause(lctx), ErrFraming)
		lcancel(nil)
		cancel()
		if err != nil && framing {
			p.Shutdown(context.Background())
			return nil, &ConnError{Server: srv.Name, Err: fmt.Errorf("initialize: %w", ErrFraming)}
		}
		if err != nil && errors.Is(cause, ErrTimeout) {
			// We stopped it: its exit status would hide the reason.
			p.Shutdown(context.Background())
			return nil, &ConnError{Server: srv.Name, Err: &HandshakeTimeoutError{After: srv.HandshakeTimeout, Runner: PackageRunner(srv)}}
		}
		if err != nil && ctx.Err() != nil {
			// Interrupted: the server's end is our doing, not the reason.
			go p.Shutdown(context.Background())
			return nil, &ConnError{Server: srv.Name, Err: fmt.Errorf("initialize: %w", context.Cause(ctx))}
		}
		if err != nil {
			// The exit status is the cause only when the server ended on its own; once
			// we stop it, its status (often 0) would hide the real one.
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) {
				if ee := p.WaitExit(exitSettle); ee != nil {
					return nil, &ConnError{Server: srv.Name, Err: ee}
				}
			}
			p.Shutdown(context.Background())
			return nil, &ConnError{Server: srv.Name, Err: handshakeError(err)}
		}
		go func() {
			<-p.Done()
			if ee := p.Exited(); ee != nil {
				s.event(EventExit, safe.Untrusted(ee.Error()), "")
			}
		}()
	case s.kind == config.KindHTTP || s.kind == config.KindSSE:
		if err := s.connectHTTP(ctx); err != nil {
			return nil, err
		}
	default:
		return nil, &ConnError{Server: srv.Name, Err: fmt.Errorf("unknown transport %q", s.kind)}
	}
	if opts.Protocol != "" && s.Protocol() != opts.Protocol {
		// A pin is what the session speaks or an error: never a silent fallback (a
		// refused server/discover) nor a counter-offer accepted.
		got := safe.Block(safe.Cut(s.Protocol(), 40))
		_ = s.Close()
		return nil, &ConnError{Server: srv.Name, Err: &ProtocolMismatchError{Pinned: opts.Protocol, Offered: got}}
	}
	s.tap.log.Notef(srv.Name, "connected over %s, protocol %s", s.kind, s.Protocol())
	s.applyLogLevel(ctx)
	return s, nil
}

// ErrFraming reports a stdio server that frames its messages with Content-Length
// headers (LSP style): MCP over stdio is one JSON message per line.
var ErrFraming = errors.New("the server speaks a different framing: it sends Content-Length headers (LSP style), while MCP over stdio is one JSON message per line")

// HandshakeTimeoutError reports a server that did not finish connecting and
// initialize within its handshake timeout. It matches ErrTimeout.
type HandshakeTimeoutError struct {
	After  time.Duration
	Runner string // the package runner that starts the server (PackageRunner), if any
}

// Error implements error. It has no subject: it reads after ConnError's
// "server NAME: ".
func (e *HandshakeTimeoutError) Error() string {
	msg := "did not answer initialize within " + e.After.String()
	if e.Runner != "" {
		msg += " (" + e.Runner + " may still have been downloading it)"
	}
	return msg
}

// Is makes errors.Is(err, ErrTimeout) hold.
func (e *HandshakeTimeoutError) Is(target error) bool { return target == ErrTimeout }

// DefaultHandshakeBound is srv's handshake timeout when none is configured:
// DefaultHandshakeTimeout, RunnerHandshakeTimeout for a server started through a
// package runner (which may download it first), and never more than a shorter
// request timeout.
func DefaultHandshakeBound(srv config.Server) time.Duration {
	d := DefaultHandshakeTimeout
	if PackageRunner(srv) != "" {
		d = RunnerHandshakeTimeout
	}
	if srv.Timeout > 0 {
		d = min(srv.Timeout, d)
	}
	return d
}

// PackageRunner names the package runner that starts srv ("npx", "uvx", "pnpm dlx",
// "bunx", "npm exec", "pipx run", "yarn dlx", "uv tool run"), or "" when its command is
// none of them.
func PackageRunner(srv config.Server) string {
	if srv.EffectiveKind() != config.KindStdio || srv.Command == "" {
		return ""
	}
	name := srv.Command
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(name, ".cmd"), ".exe"))
	first := func(n int) string {
		if len(srv.Args) < n {
			return ""
		}
		return strings.Join(srv.Args[:n], " ")
	}
	switch {
	case name == "npx" || name == "uvx" || name == "bunx" || name == "pnpx":
		return name
	case (name == "pnpm" || name == "yarn") && first(1) == "dlx",
		name == "npm" && first(1) == "exec",
		name == "pipx" && first(1) == "run",
		name == "bun" && first(1) == "x":
		return name + " " + srv.Args[0]
	case name == "uv" && first(2) == "tool run":
		return "uv tool run"
	}
	return ""
}

// exitSettle is how long a failed handshake waits for the server process to end on its
// own, so that a crash is reported with its exit status and stderr.
const exitSettle = 500 * time.Millisecond

// handshakeError names why the handshake failed: a JSON-RPC error answering initialize
// keeps the server's text (sanitized), and a local one (a dropped response) its reason.
func handshakeError(err error) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return err
	}
	clean := &jsonrpc.Error{Code: rpc.Code, Message: safe.Block(safe.Cut(rpc.Message, 500))}
	if strings.HasPrefix(rpc.Message, "elicitty ") {
		return fmt.Errorf("initialize: %w", clean)
	}
	return fmt.Errorf("initialize refused by the server (code %d): %w", rpc.Code, clean)
}

// connectHTTP tries Streamable HTTP and falls back to legacy HTTP+SSE when initialize
// is refused with 400, 404 or 405 without a JSON-RPC body (docs/protocol.md, "Negotiation").
func (s *Session) connectHTTP(ctx context.Context) error {
	base := http.DefaultTransport
	if s.opts.HTTPClient != nil && s.opts.HTTPClient.Transport != nil {
		base = s.opts.HTTPClient.Transport
	}
	s.http = newHTTPTap(base, s.server, s.tap, s.opts.HeadersOnRedirect)
	s.http.discover = s.opts.DiscoverTimeout
	s.http.bodies.Store(s.kind != config.KindSSE)
	client := &http.Client{Transport: s.http}
	if s.opts.HTTPClient != nil {
		client.Timeout = s.opts.HTTPClient.Timeout
		client.Jar = s.opts.HTTPClient.Jar
	}
	s.httpClient = client
	if s.kind != config.KindSSE {
		st := &mcp.StreamableClientTransport{Endpoint: s.server.URL, HTTPClient: client}
		if err := s.newAuth(st); err != nil {
			return err
		}
		// Bounded like any request (the clock stops during a sign-in).
		cctx, cancel := s.boundedContext(ctx, s.server.HandshakeTimeout, "")
		err := s.connect(cctx, st)
		cause := context.Cause(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if errors.Is(cause, ErrTimeout) {
			s.http.takeErr()
			return &ConnError{Server: s.server.Name, Err: &HandshakeTimeoutError{After: s.server.HandshakeTimeout}}
		}
		if !s.http.wantsFallback() {
			return s.httpConnError(err)
		}
		refused := s.httpConnError(err)
		s.tap.log.Notef(s.server.Name, "Streamable HTTP refused; trying legacy HTTP+SSE")
		s.http.bodies.Store(false)
		s.kind = config.KindSSE
		s.sseFallback = shortCause(refused)
		if s.offer == eraLegacy {
			// A refused initialize offered by the era choice may also come from a
			// server that speaks only 2026-07-28: when legacy SSE fails too, chooseEra
			// is handed the Streamable refusal and tries that era next.
			if serr := s.connectSSE(ctx, client); serr != nil {
				s.tap.log.Notef(s.server.Name, "legacy HTTP+SSE failed too: %s", serr.Error())
				return refused
			}
			return nil
		}
	}
	return s.connectSSE(ctx, client)
}

// connectSSE negotiates over legacy HTTP+SSE, bounded by the handshake timeout.
func (s *Session) connectSSE(ctx context.Context, client *http.Client) error {
	// The legacy stream lives on the connect context: it is cancelled only when the
	// handshake is still running at the deadline.
	sctx, stop := context.WithCancelCause(ctx)
	d := s.server.HandshakeTimeout
	timer := time.AfterFunc(d, func() { stop(fmt.Errorf("%w after %s", ErrTimeout, d)) })
	err := s.connect(sctx, &tapTransport{inner: &mcp.SSEClientTransport{Endpoint: s.server.URL, HTTPClient: client}, tap: s.tap})
	if !timer.Stop() && err != nil {
		s.http.takeErr()
		return &ConnError{Server: s.server.Name, Err: &HandshakeTimeoutError{After: d}}
	}
	if err != nil {
		stop(nil)
		return s.httpConnError(err)
	}
	return nil
}

// httpConnError turns a failed HTTP connect into one clear line: the HTTP status, or
// the network error without go-sdk's layers of context.
func (s *Session) httpConnError(err error) *ConnError {
	if ae := authError(err); ae != nil {
		s.http.takeErr()
		return &ConnError{Server: s.server.Name, Err: ae}
	}
	if he := s.http.takeErr(); he != nil {
		return &ConnError{Server: s.server.Name, Err: he}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		where := ue.URL
		if perr == nil {
			where = cleanURL(u)
		}
		return &ConnError{Server: s.server.Name, Err: fmt.Errorf("cannot reach %s: %w", where, ue.Err)}
	}
	return &ConnError{Server: s.server.Name, Err: err}
}

// reinitialize replaces a Streamable HTTP session the server no longer knows (HTTP 404
// on its Mcp-Session-Id, e.g. after a restart) by a new one, as the spec asks of a
// client. lost is the session that failed; when another call already replaced it, this
// returns at once. It is done at most once per lost session and is reported.
func (s *Session) reinitialize(ctx context.Context, lost *mcp.ClientSession) error {
	s.reinitMu.Lock()
	defer s.reinitMu.Unlock()
	if s.client() != lost {
		return nil
	}
	s.tap.log.Notef(s.server.Name, "the server no longer knows our session (HTTP 404); starting a new one")
	_ = lost.Close()
	s.http.takeErr()
	st := &mcp.StreamableClientTransport{Endpoint: s.server.URL, HTTPClient: s.httpClient}
	if err := s.newAuth(st); err != nil {
		return err
	}
	cctx, cancel := s.boundedContext(ctx, s.server.HandshakeTimeout, "")
	defer cancel()
	if err := s.connect(cctx, st); err != nil {
		return s.httpConnError(err)
	}
	s.toolsListed.Store(false)
	s.applyLogLevel(ctx)
	s.event(EventReconnected, safe.Untrusted("the server lost the session (HTTP 404); started a new one, protocol "+s.Protocol()), "")
	return nil
}

// sessionLost reports whether err says the HTTP server no longer knows the session.
func (s *Session) sessionLost(err error) bool {
	if s.http == nil || s.kind != config.KindHTTP || err == nil {
		return false
	}
	return errors.Is(err, mcp.ErrSessionMissing)
}

// connect builds the go-sdk client with our seams and negotiates over t.
func (s *Session) connect(ctx context.Context, t mcp.Transport) error {
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	switch {
	case s.opts.Protocol == protocol.Version20250618:
		// 2025-06-18 knows neither modes nor URL mode: its capability is a bare {}.
		caps.Elicitation = &mcp.ElicitationCapabilities{}
	case s.opts.URLMode:
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	if v := cmp.Or(s.opts.Protocol, s.offer); v >= protocol.Version20260728 {
		// The tasks extension (SEP-2663): the server may answer tools/call with a task,
		// which CallTool polls (tasks26.go).
		caps.Extensions = map[string]any{TasksExtension: map[string]any{}}
	}
	if s.opts.Sampling {
		//lint:ignore SA1019 sampling is deprecated by 2026-07-28 but servers still ask for it.
		caps.Sampling = &mcp.SamplingCapabilities{}
	}
	s.declareRoots(caps)
	copts := &mcp.ClientOptions{
		Capabilities:   caps,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			if req.Params != nil {
				s.completed(req.Params.ElicitationID)
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if p := req.Params; p != nil {
				text := p.Message
				if text == "" {
					text = fmt.Sprintf("%g", p.Progress)
					if p.Total > 0 {
						text += fmt.Sprintf("/%g", p.Total)
					}
				}
				token := fmt.Sprint(p.ProgressToken)
				// A request that reports progress is not idle; progress with a token of
				// no request in flight keeps nothing alive.
				s.prompt.poke(token)
				s.event(EventProgress, safe.Untrusted(text), token)
			}
		},
	}
	s.notifyHandlers(copts)
	client := mcp.NewClient(&mcp.Implementation{Name: s.opts.ClientName, Version: s.opts.ClientVersion}, copts)
	s.addRootsTo(client)
	client.AddReceivingMiddleware(s.elicitMiddleware)
	var sopts *mcp.ClientSessionOptions
	if v := cmp.Or(s.opts.Protocol, s.offer); v != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: v}
	}
	cs, err := client.Connect(ctx, t, sopts)
	if err != nil {
		return err
	}
	s.cs.Store(cs)
	s.rootsMu.Lock()
	s.mcpClient = client
	s.rootsMu.Unlock()
	return nil
}

// ProtocolMismatchError reports a pinned protocol version the server does not speak.
type ProtocolMismatchError struct {
	Pinned  string // the version asked for (--protocol, the server's protocol:)
	Offered string // the version the server negotiated, sanitized
}

// Error implements error.
func (e *ProtocolMismatchError) Error() string {
	return fmt.Sprintf("protocol %s pinned, but the server offers %s (pin that version or leave the protocol unpinned)", e.Pinned, e.Offered)
}

// ErrTimeout reports a request that ran out of its config.Server.Timeout (time spent
// in the Answerer does not count). Calls wrap it: errors.Is(err, ErrTimeout).
var ErrTimeout = errors.New("request timed out")
