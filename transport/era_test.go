package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/elicitty/elicitty/transport/wire"
)

// modernOnlyAnswer answers one message as a server that speaks only 2026-07-28 does:
// initialize is a removed method (-32601), server/discover offers 2026-07-28 alone.
// It returns "" for a notification.
func modernOnlyAnswer(m rawMsg) (line string, status int) {
	if len(m.ID) == 0 {
		return "", http.StatusAccepted
	}
	switch m.Method {
	case "initialize":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"initialize is not a method of 2026-07-28"}}`, m.ID), http.StatusNotFound
	case "server/discover":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`, m.ID), 200
	case "tools/list":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"hello","inputSchema":{"type":"object"}}]}}`, m.ID), 200
	case "tools/call":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hi from 2026"}]}}`, m.ID), 200
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID), http.StatusNotFound
}

// runModernOnlyServer is the stdio form of modernOnlyAnswer.
func runModernOnlyServer() int {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m rawMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if line, _ := modernOnlyAnswer(m); line != "" {
			fmt.Println(line)
		}
	}
	return 0
}

func checkModernEra(t *testing.T, s *Session) {
	t.Helper()
	era := s.Era()
	if era.Version != modern || !strings.Contains(era.Reason, "refused initialize (method not found)") {
		t.Errorf("Era() = %+v, want 2026-07-28 because initialize was refused", era)
	}
	res, _, err := s.CallTool(context.Background(), "hello", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "hi from 2026" {
		t.Errorf("hello = %q", got)
	}
}

func TestEraFallsBackToModernOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	url := startRawHTTP(t, func(w http.ResponseWriter, _ *http.Request, m rawMsg) {
		mu.Lock()
		methods = append(methods, m.Method)
		mu.Unlock()
		line, status := modernOnlyAnswer(m)
		if line == "" {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintln(w, line)
	})
	s, err := Connect(context.Background(), httpServer(url), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModernEra(t, s)
	mu.Lock()
	defer mu.Unlock()
	if len(methods) < 2 || methods[0] != "initialize" || methods[1] != "server/discover" {
		t.Errorf("the server saw %v; want initialize first, then server/discover", methods)
	}
}

func TestEraFallsBackToModernOverStdio(t *testing.T) {
	s, err := Connect(context.Background(), stdioServer(t, "modern-only"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModernEra(t, s)
}

func TestEraDoesNotRetryOtherFailures(t *testing.T) {
	calls := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer ts.Close()
	_, err := Connect(context.Background(), httpServer(ts.URL), Options{})
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("err = %v, want the HTTP 500", err)
	}
	if calls != 1 {
		t.Errorf("the server was asked %d times; a 500 is not a reason to try 2026-07-28", calls)
	}
}

// TestConnectFailureIsLogged: a server that cannot be reached leaves a note in the wire
// log saying why, naming the server once (the entry's server), so that the Log tab
// and a --log file do not end at the handshake's first request.
func TestConnectFailureIsLogged(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer ts.Close()
	log := wire.New(100)
	srv := httpServer(ts.URL)
	if _, err := Connect(context.Background(), srv, Options{Log: log}); err == nil {
		t.Fatal("Connect to a server that answers 500 succeeded")
	}
	for _, e := range log.Snapshot() {
		if e.Dir == wire.Note && strings.HasPrefix(e.Text, "connect failed: ") {
			if e.Server != srv.Name || strings.Contains(e.Text, `server "`+srv.Name) || !strings.Contains(e.Text, "500") {
				t.Errorf("the note is %q for server %q; want the cause (HTTP 500) once, under the server", e.Text, e.Server)
			}
			return
		}
	}
	t.Errorf("no connect-failed note in the log: %+v", log.Snapshot())
}
