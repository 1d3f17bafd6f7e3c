package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/transport/wire"
)

// TestStdioOversizedAndDeepResponsesFailTheCall: a response over the frame limit, or
// nested deeper than the JSON decoder allows, fails its own call with the cause named,
// and the session goes on.
func TestStdioOversizedAndDeepResponsesFailTheCall(t *testing.T) {
	s, err := Connect(context.Background(), stdioServer(t, "raw"), Options{Protocol: legacy, Log: wire.New(200)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for tool, want := range map[string]string{"huge": "16 MiB frame limit", "deep": "not valid JSON"} {
		_, _, err := s.CallTool(ctx, tool, nil)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "exited") {
			t.Errorf("%s: err = %v, want one naming %q", tool, err, want)
		}
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			t.Errorf("%s: err = %v is not the call's own error", tool, err)
		}
	}
	res, _, err := s.CallTool(ctx, "echo", map[string]any{"text": "alive"})
	if err != nil || resultText(t, res) != "alive" {
		t.Fatalf("session broken after the dropped frames: %v", err)
	}
}

// TestStdioOversizedRequestIsRefused: a server request over the frame limit is answered
// at once with an error that says why, not left for the server to wait on; its id, the
// same as the call's, fails nothing of ours.
func TestStdioOversizedRequestIsRefused(t *testing.T) {
	log := wire.New(200)
	s, err := Connect(context.Background(), stdioServer(t, "raw"), Options{Protocol: legacy, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, _, err := s.CallTool(ctx, "huge-ask", nil)
	if err != nil {
		t.Fatalf("the call failed: %v", err)
	}
	want := `error {"code":-32600,"message":"elicitty refused the request unread: message over the 16 MiB frame limit"}`
	if got := resultText(t, res); got != "result  "+want {
		t.Errorf("the server got %q, want %q", got, want)
	}
	if len(findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, "refused request") })) != 1 {
		t.Error("the log does not say the request was refused")
	}
	res, _, err = s.CallTool(ctx, "echo", map[string]any{"text": "alive"})
	if err != nil || resultText(t, res) != "alive" {
		t.Fatalf("session broken after the refused request: %v", err)
	}
}

// TestFilterLinesMemoryBounded feeds a 256 MiB line without a newline and checks the heap
// never holds much more than one frame (before the limit, a 50 MB line took 168 MB).
func TestFilterLinesMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a frame")
	}
	const size = 256 << 20
	runtime.GC()
	r := io.NopCloser(io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":"`), &repeatReader{b: 'x', n: size}))
	pr, pw := io.Pipe()
	drops := make(chan string, 1)
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	go filterLines(r, pw, "big", wire.New(10), func(id jsonrpc.ID, _ bool, reason string) []byte { drops <- idText(id) + " " + reason; return nil }, nil, nil)
	out, _ := io.ReadAll(pr)
	close(stop)
	<-sampled
	if len(out) != 0 {
		t.Errorf("%d bytes passed the filter", len(out))
	}
	select { // filterLines reports the drop before it closes the pipe
	case got := <-drops:
		if got != "1 "+frameTooLarge() {
			t.Errorf("drop = %q", got)
		}
	default:
		t.Error("the oversized response was not reported as dropped")
	}
	if peak > 3*jsonrpcio.MaxFrame {
		t.Errorf("heap peaked at %d MiB reading a %d MiB line", peak>>20, size>>20)
	}
	t.Logf("heap peak %d MiB for a %d MiB line", peak>>20, size>>20)
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// TestStdioHandshakeFailureNamesCause: a JSON-RPC error answering initialize keeps the
// server's text (sanitized), and an undecodable initialize response says so; neither is
// blamed on the exit status of the process we stopped.
func TestStdioHandshakeFailureNamesCause(t *testing.T) {
	for mode, want := range map[string]string{
		"raw-initerr":  "initialize refused by the server (code -32602): unsupported client version",
		"raw-initdeep": "not valid JSON",
	} {
		_, err := Connect(context.Background(), stdioServer(t, mode), Options{Protocol: legacy, Log: wire.New(50)})
		var ce *ConnError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want a ConnError containing %q", mode, err, want)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "exited") || strings.ContainsAny(msg, "\x1b\x07") {
			t.Errorf("%s: err = %q blames the exit or carries control characters", mode, msg)
		}
	}
}

// runRawStdio is a hand-written stdio server (serverModeEnv "raw") for byte-exact
// messages go-sdk would never produce: tools "huge" (a response over the frame limit),
// "deep" (nested deeper than encoding/json allows), "huge-ask" (an elicitation over the
// frame limit, with the id of the call that asks it; the call answers with what the
// client replied) and "echo".
func runRawStdio(mode string) int {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	var asking json.RawMessage // the id of the huge-ask call waiting for its answer
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		head := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":`
		switch {
		case m.Method == "" && asking != nil:
			reply, _ := json.Marshal("result " + string(m.Result) + " error " + string(m.Error))
			w.WriteString(`{"jsonrpc":"2.0","id":` + string(asking) + `,"result":{"content":[{"type":"text","text":` + string(reply) + `}]}}`)
			asking = nil
		case m.Method == "":
			continue
		case m.Method == "tools/call" && m.Params.Name == "huge-ask":
			// The id first, as most servers write it, and the same id as the call: the
			// id spaces of the two sides are apart.
			w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"method":"elicitation/create","params":{"message":"`)
			w.WriteString(strings.Repeat("x", jsonrpcio.MaxFrame))
			w.WriteString(`","requestedSchema":{"type":"object"}}}`)
			asking = m.ID
		case m.Method == "initialize" && mode == "raw-initerr":
			w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"unsupported client version \u001b]0;pwned\u0007 try 2.x"}}`)
		case m.Method == "initialize" && mode == "raw-initdeep":
			w.WriteString(head + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}")
		case m.Method == "initialize":
			w.WriteString(head + `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}`)
		case m.Method == "tools/call" && m.Params.Name == "huge":
			w.WriteString(head + `{"content":[{"type":"text","text":"`)
			w.WriteString(strings.Repeat("x", jsonrpcio.MaxFrame))
			w.WriteString(`"}]}}`)
		case m.Method == "tools/call" && m.Params.Name == "deep":
			w.WriteString(head + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}")
		case m.Method == "tools/call":
			text, _ := json.Marshal(fmt.Sprint(m.Params.Arguments["text"]))
			w.WriteString(head + `{"content":[{"type":"text","text":` + string(text) + `}]}}`)
		default:
			w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"no"}}`)
		}
		w.WriteString("\n")
		w.Flush()
	}
	return 0
}

// TestHTTPOversizedResponsesFailTheCall: over Streamable HTTP, a JSON body and an SSE
// event over the frame limit fail their own call with the cause named.
func TestHTTPOversizedResponsesFailTheCall(t *testing.T) {
	huge := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			head := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"`
			switch m.Params.Name {
			case "huge-json":
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, head)
				io.Copy(w, &repeatReader{b: 'x', n: jsonrpcio.MaxFrame})
				io.WriteString(w, `"}]}}`)
				return
			case "huge-sse":
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: "+head)
				io.Copy(w, &repeatReader{b: 'x', n: jsonrpcio.MaxFrame})
				io.WriteString(w, "\"}]}}\n\n")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		})
	}
	s, ctx := connectWrapped(t, huge)
	for _, tool := range []string{"huge-json", "huge-sse"} {
		_, _, err := s.CallTool(ctx, tool, nil)
		if err == nil || !strings.Contains(err.Error(), "16 MiB frame limit") {
			t.Errorf("%s: err = %v, want the frame limit named", tool, err)
		}
	}
	res, _, err := s.CallTool(ctx, "echo", map[string]any{"text": "alive"})
	if err != nil || resultText(t, res) != "alive" {
		t.Fatalf("session broken after the dropped responses: %v", err)
	}
}

// connectWrapped connects to the fixture's Streamable HTTP server behind wrap and
// returns the session and a context for its calls; both end with the test.
func connectWrapped(t *testing.T, wrap func(http.Handler) http.Handler) (*Session, context.Context) {
	t.Helper()
	url, _ := startHTTP(t, &fixture{}, wrap)
	s, err := Connect(context.Background(), httpServer(url), Options{Protocol: legacy, Log: wire.New(100)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return s, ctx
}

// TestSSETapMemoryBounded reads a 256 MiB SSE data line through the tap.
func TestSSETapMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a frame")
	}
	runtime.GC()
	tp := newTap("big", wire.New(10), 0)
	tp.inflight["n:1"] = outReq{method: "tools/call"}
	body := io.MultiReader(strings.NewReader(`data: {"jsonrpc":"2.0","id":1,"result":"`), &repeatReader{b: 'x', n: 256 << 20}, strings.NewReader("\"}\n\n"))
	st := newSSETap(io.NopCloser(body), tp)
	var peak uint64
	var ms runtime.MemStats
	buf := make([]byte, 32<<10)
	var out bytes.Buffer
	for i := 0; ; i++ {
		n, err := st.Read(buf)
		out.Write(buf[:n])
		if i%64 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		if err != nil {
			break
		}
	}
	if !strings.Contains(out.String(), "16 MiB frame limit") || !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("stream = %.300q, want a local error for request 1", out.String())
	}
	if peak > 3*jsonrpcio.MaxFrame {
		t.Errorf("heap peaked at %d MiB", peak>>20)
	}
	t.Logf("heap peak %d MiB for a 256 MiB event", peak>>20)
}

// TestHTTPOversizedRequestIsRefused: over Streamable HTTP, a server request over the
// frame limit in an SSE stream is answered at once (POSTed) with an error that says why.
func TestHTTPOversizedRequestIsRefused(t *testing.T) {
	answers := make(chan []byte, 1)
	huge := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			switch {
			case string(m.ID) == `"big-1"` && m.Method == "":
				answers <- body
				w.WriteHeader(http.StatusAccepted)
				return
			case m.Params.Name == "huge-ask":
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `data: {"jsonrpc":"2.0","id":"big-1","method":"elicitation/create","params":{"message":"`)
				io.Copy(w, &repeatReader{b: 'x', n: jsonrpcio.MaxFrame})
				io.WriteString(w, "\",\"requestedSchema\":{\"type\":\"object\"}}}\n\n")
				w.(http.Flusher).Flush()
				var got []byte
				select {
				case got = <-answers:
				case <-time.After(10 * time.Second):
				case <-r.Context().Done():
					return
				}
				text, _ := json.Marshal(string(got))
				io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":`+string(text)+`}]}}`+"\n\n")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		})
	}
	s, ctx := connectWrapped(t, huge)
	res, _, err := s.CallTool(ctx, "huge-ask", nil)
	if err != nil {
		t.Fatalf("the call failed: %v", err)
	}
	var got struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if text := resultText(t, res); json.Unmarshal([]byte(text), &got) != nil || got.ID != "big-1" || got.Error.Code != -32600 ||
		got.Error.Message != "elicitty refused the request unread: message over the 16 MiB frame limit" {
		t.Errorf("the server got %q", text)
	}
}
