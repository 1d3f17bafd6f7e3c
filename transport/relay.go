package transport

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
)

// This file is what a relay (`elicitty proxy`) needs of the transport beyond the framing
// (internal/jsonrpcio) and the server process (internal/process): the Streamable HTTP
// connection with our headers and OAuth.

// RelayOptions configure ConnectRelay.
type RelayOptions struct {
	// HTTPClient is the base client; nil means http.DefaultTransport.
	HTTPClient *http.Client
	// OAuth signs in when the server answers 401; nil means no OAuth.
	OAuth *oauth.Options
	// Log receives the notes of the connection (HTTP errors, sign-in); nil keeps none.
	Log *wire.Log
}

// RelayConn is a Streamable HTTP connection that carries another client's messages
// (ConnectRelay). It is an mcp.Connection: Read and Write move jsonrpc.Messages whose
// params and results stay raw JSON. It is safe for concurrent use.
type RelayConn struct {
	mcp.Connection
	version atomic.Value // string: the negotiated protocol version
	url     string
	client  *http.Client
	auth    *oauth.Handler
	log     *wire.Log
	server  string
	in      chan jsonrpc.Message
	failed  chan struct{} // closed with err once go-sdk's Read fails
	err     error
	ctx     context.Context
	stop    context.CancelFunc
	listen  sync.Once
}

// SetProtocol sets the protocol version the relayed session negotiated: go-sdk sets the
// MCP-Protocol-Version header only for its own sessions, so the connection adds it to
// each request that lacks one from here on. A legacy (2025) version also opens the
// standalone GET stream, on which the server sends what belongs to no request
// (list_changed, completion notices).
func (c *RelayConn) SetProtocol(v string) {
	c.version.Store(v)
	if v < protocol.Version20260728 {
		c.listen.Do(func() { go c.standalone() })
	}
}

// Read implements mcp.Connection: the messages of the responses and of the
// standalone stream, in the order they arrive.
func (c *RelayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.failed:
		select {
		case m := <-c.in:
			return m, nil
		default:
		}
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close implements mcp.Connection: the standalone stream ends and the session is
// deleted.
func (c *RelayConn) Close() error {
	c.stop()
	return c.Connection.Close()
}

// pump moves go-sdk's messages into c.in.
func (c *RelayConn) pump() {
	for {
		m, err := c.Connection.Read(c.ctx)
		if err != nil {
			c.err = err
			close(c.failed)
			return
		}
		select {
		case c.in <- m:
		case <-c.ctx.Done():
			return
		}
	}
}

// standalone keeps the GET stream open until the connection closes: reconnected after
// a second when it ends, given up when the server does not offer one (405) or refuses.
func (c *RelayConn) standalone() {
	for c.ctx.Err() == nil {
		status, err := c.streamOnce()
		if status == http.StatusMethodNotAllowed || (status >= 400 && status != http.StatusTooManyRequests) {
			c.log.Notef(c.server, "no standalone stream (HTTP %d): server notifications outside requests are not received", status)
			return
		}
		if err != nil && c.ctx.Err() == nil {
			c.log.Notef(c.server, "standalone stream: %v; reconnecting", err)
		}
		select {
		case <-c.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// streamOnce reads one GET stream to its end.
func (c *RelayConn) streamOnce() (int, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if id := c.Connection.SessionID(); id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	if c.auth != nil {
		if ts, err := c.auth.TokenSource(c.ctx); err == nil && ts != nil {
			if tok, err := ts.Token(); err == nil && tok != nil {
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			}
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	lr := jsonrpcio.NewLineReader(resp.Body, jsonrpcio.MaxFrame)
	var data []byte
	over := false
	for {
		line, tooLong, err := lr.Next()
		content := bytes.TrimRight(line, "\r\n")
		switch {
		case len(content) == 0 && !tooLong:
			if len(data) > 0 && !over {
				if m, derr := jsonrpc.DecodeMessage(data); derr == nil {
					select {
					case c.in <- m:
					case <-c.ctx.Done():
						return 0, nil
					}
				}
			}
			data, over = data[:0], false
		case bytes.HasPrefix(content, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(content, []byte("data:")), []byte(" "))
			if tooLong || len(data)+len(v) > jsonrpcio.MaxFrame {
				over = true
				continue
			}
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
		if err != nil {
			return 0, err
		}
	}
}

// ConnectRelay opens a Streamable HTTP connection to srv for a relay, with srv's
// headers on every request to srv.URL's origin (none follow a redirect elsewhere) and
// OAuth sign-in when o.OAuth asks for it. Close ends the server's session (HTTP
// DELETE). go-sdk opens its standalone GET stream only for its own sessions, so the
// relay opens it once SetProtocol names a legacy version.
func ConnectRelay(ctx context.Context, srv config.Server, o RelayOptions) (*RelayConn, error) {
	log := o.Log
	if log == nil {
		log = wire.New(1)
	}
	base := http.DefaultTransport
	if o.HTTPClient != nil && o.HTTPClient.Transport != nil {
		base = o.HTTPClient.Transport
	}
	rc := &RelayConn{}
	h := newHTTPTap(base, srv, newTap(srv.Name, log, 0), false)
	client := &http.Client{Transport: &versionHeader{next: h, conn: rc}}
	if o.HTTPClient != nil {
		client.Timeout = o.HTTPClient.Timeout
		client.Jar = o.HTTPClient.Jar
	}
	st := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client, DisableStandaloneSSE: true}
	if o.OAuth != nil {
		ah, err := newOAuthHandler(*o.OAuth, srv,
			func(format string, args ...any) { log.Notef(srv.Name, format, args...) },
			func() func() { return func() {} }) // a relay has no request timers to pause
		if err != nil {
			return nil, &ConnError{Server: srv.Name, Err: err}
		}
		h.auth = true
		h.base = ah.Transport(h.base)
		st.OAuthHandler = ah
		rc.auth = ah
	}
	conn, err := st.Connect(ctx)
	if err != nil {
		return nil, &ConnError{Server: srv.Name, Err: err}
	}
	rc.Connection = conn
	rc.url, rc.client, rc.log, rc.server = srv.URL, client, log, srv.Name
	rc.in, rc.failed = make(chan jsonrpc.Message, 16), make(chan struct{})
	rc.ctx, rc.stop = context.WithCancel(context.WithoutCancel(ctx))
	go rc.pump()
	return rc, nil
}

// versionHeader adds the relayed session's protocol version to requests without one.
type versionHeader struct {
	next http.RoundTripper
	conn *RelayConn
}

// RoundTrip implements http.RoundTripper.
func (v *versionHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if pv, _ := v.conn.version.Load().(string); pv != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Mcp-Protocol-Version", pv)
	}
	return v.next.RoundTrip(r)
}

// ViolationsRPCError is the bare -32602 error that answers an elicitation whose content
// fails its schema (docs/protocol.md, "Validation"); send it unwrapped.
func ViolationsRPCError(ve *elicit.ViolationsError) *jsonrpc.Error { return violationsError(ve) }
