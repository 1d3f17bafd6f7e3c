package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// fuzzServer plays the server of one fuzzed session over pipes: it answers initialize
// properly, waits for the client's first tools/call, then writes the fuzz input's lines
// verbatim ("$ID" replaced by the id of the client's latest request, so responses can
// land on calls in flight) and closes its end. It drains whatever the client sends.
func fuzzServer(in io.Reader, out io.WriteCloser, script [][]byte) {
	var mu sync.Mutex
	lastID := json.RawMessage(`1`)
	called := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" || m.ID == nil {
				continue
			}
			mu.Lock()
			lastID = m.ID
			mu.Unlock()
			switch m.Method {
			case "initialize":
				out.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"fuzz","version":"1"}}}` + "\n"))
			case "tools/call":
				once.Do(func() { close(called) })
			default:
				out.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"no"}}` + "\n"))
			}
		}
		once.Do(func() { close(called) })
		io.Copy(io.Discard, in)
	}()
	<-called
	for _, line := range script {
		mu.Lock()
		id := lastID
		mu.Unlock()
		line = bytes.ReplaceAll(line, []byte(`"$ID"`), id)
		if _, err := out.Write(append(line, '\n')); err != nil {
			break
		}
	}
	out.Close()
}

// FuzzSession drives a whole client session (initialize, a tool call answered by the
// engine with AutoAccept, listing) against random server messages. It must not panic,
// must end within its deadline, and every error and event text it surfaces must be
// sanitized.
func FuzzSession(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"jsonrpc":"2.0","id":"$ID","error":{"code":-32000,"message":"bad \u001b]52;c;eA==\u0007 \u202e news"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m\u009b","requestedSchema":{"type":"object","properties":{"a":{"type":"string","default":"x"},"n":{"type":"integer","minimum":3}},"required":["n"]}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"\u001b[2J"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\u001b]0;t\u0007 log"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mem-1","progress":1,"message":"\u2028p"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"mode":"url","message":"go","url":"https://x.example/\u202e","elicitationId":"e1"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}`,
		`{"jsonrpc":"2.0","id":"$ID","result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"q","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s"}}`,
		`not json` + "\n" + `{"jsonrpc":"2.0","id":` + "\n" + `[[[[[[[[[[]]]]]]]]]]` + "\n" + `{"jsonrpc":"2.0","id":999,"result":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":10,"method":"roots/list"}` + "\n" + `{"jsonrpc":"2.0","id":11,"method":"nope"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // bounded input; frame limits have tests of their own
		}
		script := bytes.Split(data, []byte("\n"))
		c2s, s2c := newPipe(), newPipe()
		done := make(chan struct{})
		go func() { defer close(done); fuzzServer(c2s.r, s2c.w, script) }()

		var evMu sync.Mutex
		var texts []string
		eng := elicit.NewEngine(elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
			return elicit.AutoAccept(req), nil
		}), nil)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			s, err := Connect(ctx, config.Server{Name: "fuzz", Timeout: 2 * time.Second}, Options{
				Answerer:  eng,
				Protocol:  legacy,
				URLMode:   true,
				Log:       wire.New(64),
				URLWait:   100 * time.Millisecond,
				NoReask:   true,
				transport: &mcp.IOTransport{Reader: s2c.r, Writer: c2s.w},
				OnEvent: func(ev Event) {
					evMu.Lock()
					texts = append(texts, ev.Text.Line(), ev.Text.Block())
					evMu.Unlock()
				},
			})
			if err != nil {
				texts = append(texts, err.Error())
				return
			}
			defer s.Close()
			_, _, err = s.CallTool(ctx, "x", map[string]any{"a": 1})
			if err != nil {
				evMu.Lock()
				texts = append(texts, err.Error())
				evMu.Unlock()
			}
		}()
		select {
		case <-finished:
		case <-time.After(3 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("session did not end within 3 s for %q\n%s", data, buf[:runtime.Stack(buf, true)])
		}
		c2s.w.Close()
		s2c.r.Close()
		<-done
		evMu.Lock()
		defer evMu.Unlock()
		for _, s := range texts {
			if i := strings.IndexFunc(s, func(r rune) bool { return r != '\n' && safe.Unsafe(r) }); i >= 0 {
				t.Fatalf("surfaced text carries a raw control: %q", s)
			}
		}
	})
}

// pipe is an io.Pipe with both ends.
type pipe struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func newPipe() pipe { r, w := io.Pipe(); return pipe{r, w} }
