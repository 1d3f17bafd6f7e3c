package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit"
)

// TestServerProgressReachesJoinedRequest: the host gives up on a call a person is
// asked about and calls again with a new progressToken; the new request is joined to
// the call still running, and the server's progress (tagged with the first request's
// token) reaches the host under the new request's token, its value growing.
func TestServerProgressReachesJoinedRequest(t *testing.T) {
	ans := newPerson()
	h := start(t, Options{Answerer: ans, Progress: -1})
	h.handshake(initNoElicit)
	h.host(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","arguments":{"plan":"pro"},"_meta":{"progressToken":"t1"}}}`)
	h.serverGot()
	h.server(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`)
	<-ans.asked
	h.host(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}`)
	h.host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"signup","arguments":{"plan":"pro"},"_meta":{"progressToken":"t2"}}}`)
	testkit.WaitFor(t, "the second call joined", func() bool { return strings.Contains(h.log(), "joined to the call still running") })
	last := 0.0
	for i, value := range []string{"40", "10"} { // the second below the first: still growing for the host
		h.server(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":` + value + `,"total":100,"message":"working"}}`)
		var m struct {
			Method string `json:"method"`
			Params struct {
				ProgressToken string  `json:"progressToken"`
				Progress      float64 `json:"progress"`
				Total         float64 `json:"total"`
				Message       string  `json:"message"`
			} `json:"params"`
		}
		got := h.hostGot()
		if err := json.Unmarshal([]byte(got), &m); err != nil || m.Method != "notifications/progress" {
			t.Fatalf("notification %d: host got %s (%v), want progress", i, got, err)
		}
		if m.Params.ProgressToken != "t2" || m.Params.Total != 100 || m.Params.Message != "working" || m.Params.Progress <= last {
			t.Fatalf("notification %d: host got %s, want the server's progress under t2, above %v", i, got, last)
		}
		last = m.Params.Progress
	}
	h.quiet(h.hostR, "host") // nothing for the request the host gave up (t1)
	close(ans.release)
	if got := h.serverGot(); !strings.Contains(got, `"id":"e-1"`) {
		t.Fatalf("server got %s, want the answer", got)
	}
}
