package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/wire"
)

// rawMsg is one message a rawServer received, with its bytes.
type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	raw    string
}

// rawServer is a hand-written JSON-RPC peer over pipes, so tests control every byte.
type rawServer struct {
	t      *testing.T
	handle func(rs *rawServer, m rawMsg)
	wmu    sync.Mutex
	w      io.WriteCloser
	mu     sync.Mutex
	got    []rawMsg
	eof    chan struct{} // closed once the client closed its end and all it sent is in got
}

// startRaw runs a rawServer and returns the client end.
func startRaw(t *testing.T, handle func(rs *rawServer, m rawMsg)) (*rawServer, mcp.Transport) {
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	rs := &rawServer{t: t, handle: handle, w: sw, eof: make(chan struct{})}
	go func() {
		defer close(rs.eof)
		sc := bufio.NewScanner(sr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m rawMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue
			}
			m.raw = sc.Text()
			rs.mu.Lock()
			rs.got = append(rs.got, m)
			rs.mu.Unlock()
			go rs.handle(rs, m)
		}
	}()
	t.Cleanup(func() { sw.Close(); sr.Close() })
	return rs, &mcp.IOTransport{Reader: cr, Writer: cw}
}

func (rs *rawServer) send(line string) {
	rs.wmu.Lock()
	defer rs.wmu.Unlock()
	fmt.Fprintln(rs.w, line)
}

func (rs *rawServer) reply(id json.RawMessage, result string) {
	rs.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (rs *rawServer) received(method string) []rawMsg {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []rawMsg
	for _, m := range rs.got {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

func (rs *rawServer) all() []rawMsg {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]rawMsg(nil), rs.got...)
}

// handshake answers server/discover (when modern) and initialize; it reports whether m
// was one of them.
func handshake(rs *rawServer, m rawMsg, modern bool) bool {
	switch m.Method {
	case "server/discover":
		if modern {
			rs.reply(m.ID, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{},"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw","version":"1"}}}`)
		} else {
			rs.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
		}
		return true
	case "initialize":
		rs.reply(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		return true
	case "notifications/initialized":
		return true
	}
	return false
}

func connectRaw(t *testing.T, tr mcp.Transport, opts Options) *Session {
	t.Helper()
	if opts.Log == nil {
		opts.Log = wire.New(1000)
	}
	opts.transport = tr
	s, err := Connect(context.Background(), config.Server{Name: "raw"}, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// toolReply is what a scripted server sends for one tools/call, given the call's id.
type toolReply func(rs *rawServer, id json.RawMessage)

// result answers a call with the result object r.
func result(r string) toolReply {
	return func(rs *rawServer, id json.RawMessage) { rs.reply(id, r) }
}

// rpcError answers a call with the JSON-RPC error object e.
func rpcError(e string) toolReply {
	return func(rs *rawServer, id json.RawMessage) {
		rs.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":` + e + `}`)
	}
}

// startTools runs a rawServer that completes the handshake of its era (2026-07-28 when
// modern) and answers the nth tools/call with replies[n-1], and every call past the last
// reply with the last one.
func startTools(t *testing.T, modern bool, replies ...toolReply) (*rawServer, mcp.Transport) {
	if len(replies) == 0 {
		t.Fatal("startTools: no replies")
	}
	var calls atomic.Int64
	return startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, modern) || m.Method != "tools/call" {
			return
		}
		n := int(calls.Add(1))
		replies[min(n, len(replies))-1](rs, m.ID)
	})
}

// startRawHTTP runs a Streamable HTTP peer scripted by hand, for tests that control
// every byte and status: it refuses every method but POST (405, so no GET stream) and
// hands each POSTed message, decoded, with its bytes (up to 1 MiB) in raw, to handle.
// It returns the server's URL; the server stops when the test ends.
func startRawHTTP(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, m rawMsg)) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var m rawMsg
		_ = json.Unmarshal(body, &m)
		m.raw = string(body)
		handle(w, r, m)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}
