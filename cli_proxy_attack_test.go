package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestProxyHostileServer: a stdio server that writes log lines and terminal escapes on
// stdout and stderr and never reads its stdin. The host gets JSON-RPC only, the log no
// control characters, and the host closing its input (with a message the server never
// took still being written) ends the proxy and the server.
func TestProxyHostileServer(t *testing.T) {
	server := `printf '\033]0;pwned\007\033[2Jevil stderr\n' >&2
head -c 20000 /dev/zero | tr '\0' L >&2; echo >&2
printf '[INFO] starting\n\033[31mbanner\n'
printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
exec sleep 300`
	h := startHost(t, nil, bin, "proxy", "--", "sh", "-c", server)
	select {
	case l, ok := <-h.lines:
		if !ok || !strings.Contains(string(l), "list_changed") {
			t.Fatalf("host got %q first\nstderr:\n%s", l, h.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the server's notification did not arrive\nstderr:\n%s", h.stderr)
	}
	h.send(hostInit)
	// More than a pipe holds: the proxy's write to the server blocks for good.
	h.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"` + strings.Repeat("x", 512<<10) + `"}}`)
	start := time.Now()
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the proxy took %s to end", d)
	}
	for _, l := range bytes.Split(bytes.TrimSuffix(h.received(), []byte("\n")), []byte("\n")) {
		if !json.Valid(l) || l[0] != '{' {
			t.Errorf("host stdout carries %q", l)
		}
	}
	if s := h.stderr.String(); strings.ContainsAny(s, "\x1b\x07") || !strings.Contains(s, "evil stderr") || !strings.Contains(s, "LLLL") {
		t.Errorf("stderr:\n%.4000q", s)
	}
	for _, l := range strings.Split(h.stderr.String(), "\n") {
		if len(l) > 2100 {
			t.Errorf("stderr line of %d bytes", len(l))
		}
	}
}
