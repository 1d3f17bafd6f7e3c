package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/transport/wire"
)

// HTTPError reports an HTTP status that ended a request to a server.
type HTTPError struct {
	Method string // HTTP method
	URL    string // endpoint without query or userinfo
	Status int
	Text   string // status text, e.g. "401 Unauthorized"
}

// Error implements error.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %s (%s %s)", e.Text, e.Method, e.URL)
}

// httpTap is the http.RoundTripper of an HTTP session: it adds the configured headers
// (never logging their values) to requests for the server's own origin, and passes every
// JSON-RPC body through the tap, for JSON and SSE responses alike. Streamable HTTP cannot be tapped at the mcp.Connection level
// because go-sdk keys its protocol-version header on a private method of its connection.
type httpTap struct {
	base    http.RoundTripper
	headers map[string]string
	// origin is the scheme, host and port of the server's URL: a redirect elsewhere
	// gets no configured header unless anywhere (Options.HeadersOnRedirect) is set.
	origin   string
	anywhere bool
	tap      *tap
	discover time.Duration
	// bodies makes the RoundTripper tap JSON-RPC bodies (Streamable HTTP). Legacy
	// HTTP+SSE is tapped at the mcp.Connection level instead, so it is off there.
	bodies atomic.Bool
	params paramHeaders
	auth   bool // an OAuth handler retries 401/403: a later success clears them

	mu       sync.Mutex
	lastErr  *HTTPError
	fallback bool // initialize refused with 400/404/405 without a JSON-RPC body
}

// newHTTPTap returns the RoundTripper of an HTTP connection to srv over base: srv's
// headers go to requests for the origin of srv.URL only, or to any host with anywhere.
func newHTTPTap(base http.RoundTripper, srv config.Server, t *tap, anywhere bool) *httpTap {
	h := &httpTap{base: base, headers: srv.Headers, tap: t, anywhere: anywhere}
	if u, err := url.Parse(srv.URL); err == nil {
		h.origin = originOf(u)
	}
	return h
}

// originOf returns u's scheme, host and port, the port spelled out ("" for a URL
// that cannot be parsed).
func originOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// headersFor reports whether the configured headers go with a request to u: to the
// server's own origin only, so that a redirect to another host does not carry its
// credentials (as browsers and net/http do with Authorization).
func (h *httpTap) headersFor(u *url.URL) bool {
	return h.anywhere || (h.origin != "" && originOf(u) == h.origin)
}

func cleanURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.Fragment = ""
	return c.String()
}

// takeErr returns and clears the last HTTP error status seen.
func (h *httpTap) takeErr() *HTTPError {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.lastErr
	h.lastErr = nil
	return e
}

func (h *httpTap) wantsFallback() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fallback
}

// RoundTrip implements http.RoundTripper.
func (h *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if h.headersFor(r.URL) {
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	var method string
	var callID jsonrpc.ID
	if h.bodies.Load() && r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		if env, err := jsonrpcio.ParseEnvelope(body); err == nil {
			if env.IsRequest() {
				method = env.Method
				callID = env.ID
			}
			body = h.tap.outRaw(body, &env)
			if env.Method == methodTaskCall {
				method = "tools/call" // renamed by the tap (a task-augmented tools/call)
				if r.Header.Get("Mcp-Method") != "" {
					r.Header.Set("Mcp-Method", method)
				}
			}
			if body == nil {
				return &http.Response{StatusCode: http.StatusAccepted, Status: "202 Accepted", Header: http.Header{},
					Body: io.NopCloser(bytes.NewReader(nil)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
			}
		}
		h.params.apply(r.Header, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if method == "server/discover" && h.discover > 0 {
		return h.discoverTrip(req, r, callID)
	}
	resp, err := h.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	return h.inspect(req, r, resp, method, callID)
}

// droppedBody is the body that replaces a response dropped unread: a local error for the
// request callID, or nil when the POST carried no request of ours.
func (h *httpTap) droppedBody(callID jsonrpc.ID, reason string) []byte {
	if !callID.IsValid() || !h.tap.dropped(callID, reason) {
		h.tap.log.Notef(h.tap.server, "dropped an HTTP response body: %s", reason)
		return nil
	}
	b, _ := jsonrpc.EncodeMessage(droppedResponse(callID, reason))
	return b
}

// inspect records error statuses and taps JSON and SSE bodies.
func (h *httpTap) inspect(orig, r *http.Request, resp *http.Response, method string, callID jsonrpc.ID) (*http.Response, error) {
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		refusedGET := r.Method == http.MethodGet && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405)
		var rpcBody bool
		if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(body)); err == nil {
			if rr, ok := msg.(*jsonrpc.Response); ok && rr.Error != nil {
				// go-sdk surfaces this JSON-RPC error itself (-32022 and friends).
				rpcBody = true
				h.tap.logMsg(wire.In, rr, method, idText(rr.ID), 0)
			}
		}
		if !refusedGET && !rpcBody && r.Method != http.MethodDelete {
			h.mu.Lock()
			h.lastErr = &HTTPError{Method: r.Method, URL: cleanURL(r.URL), Status: resp.StatusCode, Text: resp.Status}
			if method == "initialize" && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405) {
				h.fallback = true
			}
			h.mu.Unlock()
			h.tap.log.Notef(h.tap.server, "HTTP %s for %s %s", resp.Status, r.Method, cleanURL(r.URL))
		}
		return resp, nil
	}
	if r.Method == http.MethodPost && h.auth {
		// A request that succeeded after a sign-in: the 401/403 before it is resolved.
		h.mu.Lock()
		h.lastErr = nil
		h.mu.Unlock()
	}
	if !h.bodies.Load() {
		return resp, nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, jsonrpcio.MaxFrame+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		env, derr := jsonrpcio.ParseEnvelope(body)
		if len(body) > jsonrpcio.MaxFrame || (derr != nil && bytes.Contains(body[:min(len(body), 256)], []byte(`"jsonrpc"`))) {
			reason := frameTooLarge()
			if len(body) <= jsonrpcio.MaxFrame {
				reason = "not valid JSON-RPC: " + derr.Error()
			}
			body = h.droppedBody(callID, reason)
			derr = errors.New("dropped")
			if body == nil {
				resp.StatusCode, resp.Status = http.StatusAccepted, "202 Accepted"
			}
		}
		if derr == nil {
			if body = h.tap.inRaw(body, &env); body == nil {
				resp.StatusCode, resp.Status = http.StatusAccepted, "202 Accepted"
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Del("Content-Length")
	case "text/event-stream":
		st := newSSETap(resp.Body, h.tap)
		if method == "initialize" {
			// A legacy HTTP+SSE server may answer any request with a new stream that
			// opens with its endpoint event: that is no Streamable HTTP answer.
			st.onEndpoint = func() {
				h.mu.Lock()
				h.fallback = true
				h.mu.Unlock()
				h.tap.log.Notef(h.tap.server, "initialize answered with an SSE endpoint event: a legacy HTTP+SSE server")
			}
		}
		resp.Body = st
	}
	return resp, nil
}

// discoverTrip sends server/discover under the discovery deadline; on expiry it answers
// with a local error so go-sdk falls back to initialize (docs/protocol.md, "Negotiation").
func (h *httpTap) discoverTrip(orig, r *http.Request, id jsonrpc.ID) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), h.discover)
	defer cancel()
	resp, err := h.base.RoundTrip(r.WithContext(ctx))
	var body []byte
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(resp.Body, jsonrpcio.MaxFrame+1))
		resp.Body.Close()
		if err == nil && len(body) > jsonrpcio.MaxFrame {
			body = h.droppedBody(id, frameTooLarge())
			resp.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && orig.Context().Err() == nil {
			h.tap.mu.Lock()
			delete(h.tap.inflight, idKey(id))
			h.tap.mu.Unlock()
			h.tap.log.Notef(h.tap.server, "server/discover unanswered after %s; falling back to initialize", h.discover)
			b, _ := jsonrpc.EncodeMessage(discoverTimeoutResponse(id, h.discover))
			return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b)), Request: orig,
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
		}
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return h.inspect(orig, r, resp, "server/discover", id)
}

// sseTap passes each SSE event's data through the tap. A dropped message leaves an
// event without data, which go-sdk skips like a priming event. Lines and events are
// read in at most jsonrpcio.MaxFrame bytes into buffers reused from event to event; an event
// whose data is larger is dropped and, when its id can be told, replaced by a local
// error response to that request of ours, or by the stand-in of a server request we
// refuse (tap.refuse).
type sseTap struct {
	lines   *jsonrpcio.LineReader
	body    io.Closer
	tap     *tap
	other   bytes.Buffer // the event's non-data lines, as sent
	data    bytes.Buffer // the event's data lines joined by \n (a prefix once over)
	hasData bool
	over    bool // the event's data passed jsonrpcio.MaxFrame
	// onEndpoint, when set, is called at an "event: endpoint" line (legacy HTTP+SSE)
	// and the stream ends there.
	onEndpoint func()
	out        bytes.Buffer
	err        error
}

// errLegacyEndpoint ends a stream that turned out to be legacy HTTP+SSE.
var errLegacyEndpoint = errors.New("legacy HTTP+SSE endpoint event in a Streamable HTTP response")

// sseReadBuffer is the read buffer of one SSE stream.
const sseReadBuffer = 4 << 10

func newSSETap(body io.ReadCloser, t *tap) *sseTap {
	// A small read buffer: a stream per POST is the common case, and a longer line is
	// gathered by the LineReader anyway.
	return &sseTap{lines: jsonrpcio.NewLineReaderSize(body, jsonrpcio.MaxFrame, sseReadBuffer), body: body, tap: t}
}

// Read implements io.Reader.
func (s *sseTap) Read(p []byte) (int, error) {
	for s.out.Len() == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, tooLong, err := s.lines.Next()
		if len(line) > 0 {
			s.add(line, tooLong)
		}
		if err != nil {
			s.flush(nil)
			s.err = err
		}
	}
	return s.out.Read(p)
}

// Close implements io.Closer.
func (s *sseTap) Close() error { return s.body.Close() }

// add takes one line of the stream.
func (s *sseTap) add(line []byte, tooLong bool) {
	content := bytes.TrimRight(line, "\r\n")
	if len(content) == 0 && !tooLong {
		s.flush(line)
		return
	}
	if s.onEndpoint != nil && string(bytes.TrimSpace(content)) == "event: endpoint" {
		s.onEndpoint()
		s.err = errLegacyEndpoint
		return
	}
	v, ok := bytes.CutPrefix(content, []byte("data:"))
	if !ok {
		if !tooLong { // an over-long comment or field is dropped
			s.other.Write(line)
		}
		return
	}
	v = bytes.TrimPrefix(v, []byte(" "))
	if s.hasData && !s.over {
		s.data.WriteByte('\n')
	}
	s.hasData = true
	if !s.over && (tooLong || s.data.Len()+len(v) > jsonrpcio.MaxFrame) {
		s.over = true
		if s.data.Len() > jsonrpcio.FrameIDPrefix {
			s.data.Truncate(jsonrpcio.FrameIDPrefix)
		}
	}
	if s.over {
		if room := jsonrpcio.FrameIDPrefix - s.data.Len(); room > 0 {
			s.data.Write(v[:min(len(v), room)])
		}
		return
	}
	s.data.Write(v)
}

// flush emits the event collected so far, then end: the blank line that ended it, or
// nil at the end of the stream (an unfinished event is passed on unfinished).
func (s *sseTap) flush(end []byte) {
	s.out.Write(s.other.Bytes())
	if s.hasData {
		s.writeData()
	}
	s.out.Write(end)
	s.other.Reset()
	s.data.Reset()
	s.hasData, s.over = false, false
}

func (s *sseTap) writeData() {
	data := s.data.Bytes()
	var drop string
	if s.over {
		drop = frameTooLarge()
	} else if env, err := jsonrpcio.ParseEnvelope(data); err == nil {
		if b := s.tap.inRaw(data, &env); b != nil {
			s.out.WriteString("data: ")
			if bytes.IndexByte(b, '\n') >= 0 {
				// Sent over several data lines: on one line again (JSON strings hold no
				// raw newline, so Compact removes them all).
				_ = json.Compact(&s.out, b)
			} else {
				s.out.Write(b)
			}
			s.out.WriteByte('\n')
		}
		return
	} else if bytes.Contains(data[:min(len(data), 256)], []byte(`"jsonrpc"`)) {
		drop = "not valid JSON-RPC: " + err.Error()
	} else {
		s.out.WriteString("data: ")
		s.out.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\ndata: ")))
		s.out.WriteByte('\n')
		return
	}
	id, isReq, ok := jsonrpcio.FrameID(data)
	if !ok {
		s.tap.log.Notef(s.tap.server, "dropped an SSE message: %s", drop)
		return
	}
	if isReq {
		if b := s.tap.refuse(id, drop); b != nil {
			s.out.WriteString("data: ")
			s.out.Write(b)
			s.out.WriteByte('\n')
		}
		return
	}
	if s.tap.dropped(id, drop) {
		if b, err := jsonrpc.EncodeMessage(droppedResponse(id, drop)); err == nil {
			s.out.WriteString("data: ")
			s.out.Write(b)
			s.out.WriteByte('\n')
		}
	}
}
