package transport

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/transport/wire"
)

// TestSecretMaskedInWireLog: what the user typed into a secret field reaches the
// server (which echoes it) but no entry of the wire log (the Log tab, the --log file)
// holds it.
func TestSecretMaskedInWireLog(t *testing.T) {
	const secret = "hunter2-<&>-TOKEN"
	schema := json.RawMessage(`{"type":"object","properties":{"api_token":{"type":"string"},"env":{"type":"string"}}}`)
	log := wire.New(100)
	var file strings.Builder
	log.SetFile(&file)
	a := newAnswerer(accept(map[string]any{"api_token": secret, "env": "prod"}))
	s := connectMem(t, newTestServer(&fixture{schema: schema}), Options{Answerer: a, Protocol: legacy, Log: log})
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.Contains(got, `hunter2-\u003c\u0026\u003e-TOKEN`) && !strings.Contains(got, secret) {
		t.Fatalf("the server did not get the secret: %q", got)
	}
	masked := 0
	for _, e := range log.Snapshot() {
		if strings.Contains(string(e.Raw), "hunter2") || strings.Contains(e.Text, "hunter2") {
			t.Errorf("log entry %d %s holds the secret: %s %s", e.Seq, e.Dir, e.Raw, e.Text)
		}
		if strings.Contains(string(e.Raw), wire.Mask) {
			masked++
			if !json.Valid(e.Raw) {
				t.Errorf("masked entry is not JSON: %s", e.Raw)
			}
		}
		if strings.Contains(string(e.Raw), `"prod"`) == false && e.Dir == wire.Out && strings.Contains(string(e.Raw), "api_token") {
			t.Errorf("a field that is not secret was masked too: %s", e.Raw)
		}
	}
	if masked < 2 { // our answer and the server's echo
		t.Errorf("%d entries masked, want the answer and the echo", masked)
	}
	if strings.Contains(file.String(), "hunter2") {
		t.Errorf("the --log file holds the secret:\n%s", file.String())
	}
}

// TestCredentialFieldsMaskedInWireLog: a field declared writeOnly and ones named for
// credentials (bearer, cookie, auth) are secrets too, like format password (elicit's
// parse tests; go-sdk's server refuses that format): the --log file and the Log tab
// never hold what was typed into them.
func TestCredentialFieldsMaskedInWireLog(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{` +
		`"answer":{"type":"string","writeOnly":true},` +
		`"bearer":{"type":"string"},"session_cookie":{"type":"string"},"auth":{"type":"string"},"env":{"type":"string"}}}`)
	content := map[string]any{"answer": "w-secret-1", "bearer": "b-secret-3",
		"session_cookie": "c-secret-4", "auth": "a-secret-5", "env": "prod"}
	log := wire.New(100)
	var file strings.Builder
	log.SetFile(&file)
	s := connectMem(t, newTestServer(&fixture{schema: schema}), Options{Answerer: newAnswerer(accept(content)), Protocol: legacy, Log: log})
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.Contains(got, "w-secret-1") {
		t.Fatalf("the server did not get the answers: %q", got)
	}
	for _, e := range log.Snapshot() {
		for _, v := range content {
			if v != "prod" && strings.Contains(string(e.Raw)+e.Text, v.(string)) {
				t.Errorf("log entry %d %s holds %q: %s %s", e.Seq, e.Dir, v, e.Raw, e.Text)
			}
		}
	}
	for _, v := range content {
		if v != "prod" && strings.Contains(file.String(), v.(string)) {
			t.Errorf("the --log file holds %q", v)
		}
	}
	if !strings.Contains(file.String(), `"prod"`) {
		t.Errorf("a field that is not secret was masked too:\n%s", file.String())
	}
}
