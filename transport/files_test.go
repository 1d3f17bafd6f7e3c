package transport

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

// The fileInputs capability is declared only with Options.FileInputs, in both eras.
func TestFileInputsCapabilityOnlyWithTheFlag(t *testing.T) {
	for _, era := range []struct {
		name   string
		modern bool
		method string
		caps   func(params json.RawMessage) string
	}{
		{"2025-11-25 initialize", false, "initialize", func(p json.RawMessage) string {
			var v struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			_ = json.Unmarshal(p, &v)
			return string(v.Capabilities)
		}},
		{"2026-07-28 request _meta", true, "tools/call", func(p json.RawMessage) string {
			var v struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(p, &v)
			return string(v.Meta[clientCapsKey])
		}},
	} {
		for _, on := range []bool{false, true} {
			rs, tr := startTools(t, era.modern, result(`{"content":[]}`))
			proto := legacy
			if era.modern {
				proto = modern
			}
			s := connectRaw(t, tr, Options{Protocol: proto, FileInputs: on})
			if _, _, err := s.CallTool(context.Background(), "t", nil); err != nil {
				t.Fatal(err)
			}
			got := rs.received(era.method)
			if len(got) == 0 {
				t.Fatalf("%s: no %s sent", era.name, era.method)
			}
			caps := era.caps(got[0].Params)
			if !strings.Contains(caps, `"elicitation"`) {
				t.Fatalf("%s: capabilities not found in %s", era.name, got[0].Params)
			}
			if has := strings.Contains(caps, `"fileInputs":{}`); has != on {
				t.Errorf("%s, flag %v: capabilities %s", era.name, on, caps)
			}
		}
	}
}

// A 2026-07-28 input request with an x-mcp-file field reaches the answerer as a file
// field; the data URI goes to the server, and the wire log masks it.
func TestFileInputsInputRequest(t *testing.T) {
	const ask = `{"resultType":"input_required","requestState":"s","inputRequests":{"f":{"method":"elicitation/create","params":{"mode":"form","message":"Pick a photo","requestedSchema":{"type":"object","properties":{"photo":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*"],"maxSize":100}}},"required":["photo"]}}}}}`
	rs, tr := startTools(t, true, result(ask), result(`{"content":[{"type":"text","text":"got it"}]}`))
	uri := elicit.DataURI("image/png", "p.png", []byte("\x89PNG-secret-bytes"))
	var kinds []elicit.Kind
	a := newAnswerer(func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
		for _, f := range r.ParsedForm().Fields {
			kinds = append(kinds, f.Kind)
		}
		return elicit.Response{Action: elicit.Accept, Content: map[string]any{"photo": uri}}, nil
	})
	log := wire.New(100)
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: elicit.NewEngine(a, nil), FileInputs: true, Log: log})
	if _, _, err := s.CallTool(context.Background(), "upload", nil); err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 1 || kinds[0] != elicit.KindFile {
		t.Errorf("field kinds %v, want one file field", kinds)
	}
	calls := rs.received("tools/call")
	if len(calls) != 2 || !strings.Contains(string(calls[1].Params), uri) {
		t.Fatalf("the retry does not carry the data URI: %v", calls)
	}
	for _, e := range log.Snapshot() {
		if strings.Contains(string(e.Raw), "secret-bytes") || strings.Contains(string(e.Raw), uri[len(uri)-12:]) {
			t.Errorf("wire log holds the file: %s", e.Raw)
		}
	}
}

// A tool listed with the earlier draft's inputFiles keeps it for the argument form.
func TestToolInputFiles(t *testing.T) {
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/list" {
			return
		}
		rs.reply(m.ID, `{"tools":[{"name":"ocr","inputSchema":{"type":"object","properties":{"scan":{"type":"string","format":"uri"}}},"inputFiles":{"scan":{"accept":["image/*"],"maxSize":5}}},{"name":"plain","inputSchema":{"type":"object"}}]}`)
	})
	s := connectRaw(t, tr, Options{Protocol: legacy, FileInputs: true})
	if _, err := s.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := string(s.ToolInputFiles("ocr")); got != `{"scan":{"accept":["image/*"],"maxSize":5}}` {
		t.Errorf("ocr inputFiles = %s", got)
	}
	if got := s.ToolInputFiles("plain"); got != nil {
		t.Errorf("plain inputFiles = %s", got)
	}
	if !s.FileInputs() {
		t.Errorf("FileInputs() = false")
	}
}

// A tool's file argument (a data URI) reaches the server and is masked in the wire log.
func TestFileArgumentMaskedInLog(t *testing.T) {
	rs, tr := startTools(t, false, result(`{"content":[]}`))
	log := wire.New(100)
	s := connectRaw(t, tr, Options{Protocol: legacy, FileInputs: true, Log: log})
	uri := elicit.DataURI("text/plain", "a.txt", []byte("the file's own words"))
	if _, _, err := s.CallTool(context.Background(), "upload", map[string]any{"file": uri}); err != nil {
		t.Fatal(err)
	}
	if got := rs.received("tools/call"); len(got) != 1 || !strings.Contains(string(got[0].Params), uri) {
		t.Fatalf("the server did not get the file: %v", got)
	}
	for _, e := range log.Snapshot() {
		if strings.Contains(string(e.Raw), uri[len(uri)-16:]) {
			t.Errorf("wire log holds the file: %s", e.Raw)
		}
	}
}
