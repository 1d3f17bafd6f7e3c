package proxy

import (
	"sync"
	"testing"
)

// TestOnHost: the host's name reaches Options.OnHost once, from its initialize or from
// a 2026-07-28 request's _meta (the inbox names the host with it before any question).
func TestOnHost(t *testing.T) {
	for _, tc := range []struct {
		name, send, want string
	}{
		{"initialize", initNoElicit, "host-x"},
		{"2026-07-28 request", modernCall, "modern-host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			h := start(t, Options{Answerer: &script{}, OnHost: func(n string) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, n)
			}})
			h.host(tc.send)
			h.serverGot()
			h.host(`{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"other","version":"2"}}}}`)
			h.serverGot()
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("OnHost got %q, want [%q]", got, tc.want)
			}
		})
	}
}
