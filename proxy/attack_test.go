package proxy

import (
	"strings"
	"testing"
)

// TestServerBracketLineNotRelayed: a server stdout line that starts with '[' but is not
// JSON (a "[INFO] ..." log line) never reaches the host, whose stdout carries JSON-RPC
// only; a real batch still does.
func TestServerBracketLineNotRelayed(t *testing.T) {
	h := start(t, Options{})
	h.handshake(initBoth)
	h.server(`[INFO] server started`)
	h.server(`[1, 2`)
	note := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	h.server(note)
	if got := h.hostGot(); got != note {
		t.Fatalf("host got %q, want only JSON-RPC", got)
	}
	batch := `[{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}]`
	h.server(batch)
	if got := h.hostGot(); got != batch {
		t.Errorf("host got %q, want the batch", got)
	}
	if !strings.Contains(h.log(), "not valid JSON-RPC") {
		t.Errorf("log lacks the dropped lines:\n%s", h.log())
	}
}
