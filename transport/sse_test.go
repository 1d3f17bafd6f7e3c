package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitty/elicitty/transport/wire"
)

// TestHTTPResumesAfterRetryInterval plays the conformance sse-retry scenario by hand: the
// tools/call stream sends a priming event (id, retry 500 ms, empty data) and closes; the
// client must come back with GET and Last-Event-ID after the retry interval and take the
// result from there. It checks that our SSE tap keeps ids, retry and priming events.
func TestHTTPResumesAfterRetryInterval(t *testing.T) {
	var mu sync.Mutex
	var closedAt, resumedAt time.Time
	var lastEventID string
	var callID json.RawMessage
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s1")
		if r.Method == http.MethodGet {
			id := r.Header.Get("Last-Event-ID")
			if id == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			mu.Lock()
			resumedAt, lastEventID = time.Now(), id
			cid := callID
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n", cid)
			return
		}
		if r.Method == http.MethodDelete {
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m rawMsg
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sse","version":"1"}}}`, m.ID)
		case "tools/call":
			mu.Lock()
			callID = m.ID
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: ev-1\nretry: 500\ndata: \n\n")
			w.(http.Flusher).Flush()
			mu.Lock()
			closedAt = time.Now()
			mu.Unlock()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer ts.Close()
	s, err := Connect(context.Background(), httpServer(ts.URL), Options{Protocol: legacy, Log: wire.New(100)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, _, err := s.CallTool(ctx, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "resumed" {
		t.Errorf("result %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if lastEventID != "ev-1" {
		t.Errorf("Last-Event-ID = %q", lastEventID)
	}
	gap := resumedAt.Sub(closedAt)
	t.Logf("reconnected after %s", gap)
	if gap < 450*time.Millisecond || gap > 2*time.Second {
		t.Errorf("reconnected after %s, want about 500 ms", gap)
	}
}

func TestSSETapKeepsEventsAndDropsMessages(t *testing.T) {
	tp := newTap("x", wire.New(10), 0)
	tp.answered["n:7"] = true // a late reply we already answered locally
	in := "id: 1\nretry: 300\ndata: \n\n" +
		": comment\nevent: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n" +
		"id: 3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n" +
		"data: \"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
	st := newSSETap(io.NopCloser(strings.NewReader(in)), tp)
	out, err := io.ReadAll(st)
	if err != nil {
		t.Fatal(err)
	}
	want := "id: 1\nretry: 300\ndata: \n\n" +
		": comment\nevent: message\nid: 2\n\n" +
		"id: 3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	if !strings.Contains(tp.log.Snapshot()[len(tp.log.Snapshot())-1].Method, "notifications/progress") {
		t.Errorf("progress not logged")
	}
}

// TestHTTPRetriesAfter32022 plays the conformance request-metadata opening: the first
// request is refused with HTTP 400 and -32022 listing 2026-07-28; the client retries
// with that version and sends the version header and _meta on every request.
func TestHTTPRetriesAfter32022(t *testing.T) {
	var mu sync.Mutex
	var posts []seenRequest
	url := startRawHTTP(t, func(w http.ResponseWriter, r *http.Request, m rawMsg) {
		mu.Lock()
		posts = append(posts, seenRequest{r.Method, r.Header.Clone(), m.raw})
		first := len(posts) == 1
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if first {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"x"}}}`, m.ID)
			return
		}
		switch m.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, m.ID)
		case "tools/call":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	s, err := Connect(context.Background(), httpServer(url), Options{Log: wire.New(100)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Protocol() != "2026-07-28" {
		t.Fatalf("Protocol() = %q", s.Protocol())
	}
	res, _, err := s.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "ok" {
		t.Errorf("result %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, p := range posts[1:] {
		if p.header.Get("Mcp-Protocol-Version") != "2026-07-28" {
			t.Errorf("post %d header = %q", i+1, p.header.Get("Mcp-Protocol-Version"))
		}
		var m struct {
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(p.body), &m)
		if string(m.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` || m.Params.Meta["io.modelcontextprotocol/clientInfo"] == nil ||
			!strings.Contains(string(m.Params.Meta["io.modelcontextprotocol/clientCapabilities"]), `"elicitation"`) {
			t.Errorf("post %d _meta = %s", i+1, p.body)
		}
	}
}
