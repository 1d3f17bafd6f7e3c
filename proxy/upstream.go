package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

// Upstream is the proxy's connection to the server.
type Upstream interface {
	// Send writes one JSON-RPC message (without its newline) to the server. The
	// proxy never calls it concurrently.
	Send(ctx context.Context, msg []byte) error
	// Receive calls deliver with each message from the server, in order, until the
	// server's stream ends (it returns why) or ctx is done.
	Receive(ctx context.Context, deliver func(msg []byte)) error
	// Close ends the connection: a stdio server's stdin is closed and, after a grace
	// period, its process group stopped; an HTTP session is deleted.
	Close() error
}

// concurrentCalls is implemented by upstreams whose requests travel independently
// (HTTP): the proxy sends each host request on a goroutine of its own.
type concurrentCalls interface{ concurrentCalls() bool }

// Pipe is an Upstream over a pair of byte streams carrying one JSON-RPC message a line
// (a stdio server's stdout and stdin). Lines are relayed as they are; a line that is
// not a JSON object (a banner, a log line) is skipped with a log note, one over the
// bound dropped. Use NewPipe.
type Pipe struct {
	r      io.Reader
	w      *bufio.Writer
	closer io.Closer
	max    int
	logf   func(string, ...any)
	once   sync.Once
	// dropped, when set, sees the first bytes of each line dropped for its length.
	dropped func(prefix []byte)
}

// onDropped sets what sees the start of each line dropped for its length (the proxy
// fails the host request it answered).
func (p *Pipe) onDropped(f func([]byte)) { p.dropped = f }

// NewPipe returns an Upstream reading the server's messages from r and writing to w;
// Close closes w. max bounds a line (jsonrpcio.MaxFrame when <= 0); logf (nil: none)
// receives the notes about skipped lines.
func NewPipe(r io.Reader, w io.WriteCloser, max int, logf func(string, ...any)) *Pipe {
	if max <= 0 {
		max = jsonrpcio.MaxFrame
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Pipe{r: r, w: bufio.NewWriterSize(w, 64<<10), closer: w, max: max, logf: logf}
}

// Send implements Upstream.
func (p *Pipe) Send(_ context.Context, msg []byte) error {
	if _, err := p.w.Write(msg); err != nil {
		return err
	}
	if err := p.w.WriteByte('\n'); err != nil {
		return err
	}
	return p.w.Flush()
}

// Receive implements Upstream; it returns nil at the end of the stream.
func (p *Pipe) Receive(ctx context.Context, deliver func([]byte)) error {
	lr := jsonrpcio.NewLineReader(p.r, p.max)
	for {
		line, tooLong, err := lr.Next()
		msg := bytes.TrimSpace(line)
		switch {
		case tooLong:
			p.logf("dropped a server message longer than %d bytes", p.max)
			if p.dropped != nil {
				p.dropped(line)
			}
		case len(msg) == 0:
		case msg[0] == '{' || msg[0] == '[':
			deliver(msg)
		default:
			p.logf("skipped a server stdout line that is not JSON-RPC (%d bytes)", len(msg))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Close implements Upstream.
func (p *Pipe) Close() error {
	var err error
	p.once.Do(func() { err = p.closer.Close() })
	return err
}

// Stdio is the Upstream of a stdio server process started by StartStdio.
type Stdio struct {
	proc    *process.Proc
	pipe    *Pipe
	deliver chan func([]byte)
	grace   time.Duration
	once    sync.Once
}

// StartStdio starts srv's command (in a process group of its own, its stderr in log)
// and returns it as an Upstream. procs (nil: none) registers the process.
func StartStdio(srv config.Server, log *wire.Log, procs *process.Procs, logf func(string, ...any)) (*Stdio, error) {
	s := &Stdio{deliver: make(chan func([]byte), 1), grace: closeGrace}
	started := make(chan struct{})
	proc, err := process.Start(srv, log, procs, func(r io.Reader) {
		<-started
		deliver, ok := <-s.deliver
		if !ok {
			_, _ = io.Copy(io.Discard, r)
			return
		}
		_ = s.pipe.readInto(r, deliver)
	})
	if err != nil {
		return nil, err
	}
	s.proc = proc
	s.pipe = NewPipe(nil, proc.Stdin(), 0, logf)
	close(started)
	return s, nil
}

// readInto is Receive over r.
func (p *Pipe) readInto(r io.Reader, deliver func([]byte)) error {
	q := &Pipe{r: r, max: p.max, logf: p.logf, dropped: p.dropped}
	return q.Receive(context.Background(), deliver)
}

func (s *Stdio) onDropped(f func([]byte)) { s.pipe.onDropped(f) }

// Send implements Upstream.
func (s *Stdio) Send(ctx context.Context, msg []byte) error { return s.pipe.Send(ctx, msg) }

// Receive implements Upstream: it returns when the process has ended, with how it
// ended.
func (s *Stdio) Receive(ctx context.Context, deliver func([]byte)) error {
	s.deliver <- deliver
	select {
	case <-s.proc.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	if ee := s.proc.Exited(); ee != nil {
		return ee
	}
	return errors.New("server process ended")
}

// Close implements Upstream: stdin closed, then the process group stopped after a
// grace period each for stdin EOF and SIGTERM.
func (s *Stdio) Close() error {
	s.once.Do(func() {
		select {
		case s.deliver <- func([]byte) {}:
		default:
		}
		s.proc.Stop(s.grace)
	})
	return nil
}

// HTTP is the Upstream of a Streamable HTTP server (DialHTTP).
//
// It is built on go-sdk's StreamableClientTransport through transport.ConnectRelay,
// not on a client of our own: go-sdk's connection already speaks the transport (the
// session id, SSE streams with resumption and retry, OAuth's 401 dance, DELETE on
// close), and its Read and Write move jsonrpc.Messages whose params and results stay
// raw JSON, so nothing the host or the server sent is re-encoded but the envelope.
// Every message is bounded by go-sdk's event size limit.
type HTTP struct {
	conn *transport.RelayConn
	once sync.Once
}

// DialHTTP connects to the Streamable HTTP server srv with its headers and, when o.OAuth
// is set, OAuth.
func DialHTTP(ctx context.Context, srv config.Server, o transport.RelayOptions) (*HTTP, error) {
	c, err := transport.ConnectRelay(ctx, srv, o)
	if err != nil {
		return nil, err
	}
	return &HTTP{conn: c}, nil
}

func (h *HTTP) concurrentCalls() bool { return true }

// SetProtocol passes the negotiated protocol version to the connection's headers.
func (h *HTTP) SetProtocol(v string) { h.conn.SetProtocol(v) }

// Send implements Upstream.
func (h *HTTP) Send(ctx context.Context, msg []byte) error {
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	return h.conn.Write(ctx, m)
}

// Receive implements Upstream.
func (h *HTTP) Receive(ctx context.Context, deliver func([]byte)) error {
	for {
		m, err := h.conn.Read(ctx)
		if err != nil {
			return err
		}
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			continue
		}
		deliver(b)
	}
}

// Close implements Upstream: the server's session is deleted.
func (h *HTTP) Close() error {
	var err error
	h.once.Do(func() { err = h.conn.Close() })
	return err
}
