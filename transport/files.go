package transport

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// clientCapsKey is the _meta member that carries a 2026-07-28 request's capabilities.
const clientCapsKey = "io.modelcontextprotocol/clientCapabilities"

// filesOut declares file inputs (SEP-2356's earlier drafts: capabilities.fileInputs),
// only with Options.FileInputs: in initialize (2025 eras) and in the capabilities of
// every 2026-07-28 request's _meta. go-sdk's ClientCapabilities has no such member, so
// the tap adds it to the frame.
func (t *tap) filesOut(m *jsonrpc.Request) {
	if !t.fileInputs || len(m.Params) == 0 {
		return
	}
	if m.Method == "initialize" {
		m.Params = withCapability(m.Params, "fileInputs", json.RawMessage(`{}`))
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(m.Params, &obj) != nil || obj["_meta"] == nil {
		return
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(obj["_meta"], &meta) != nil || meta[clientCapsKey] == nil {
		return
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(meta[clientCapsKey], &caps) != nil || caps == nil {
		return
	}
	caps["fileInputs"] = json.RawMessage(`{}`)
	var err error
	if meta[clientCapsKey], err = json.Marshal(caps); err != nil {
		return
	}
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return
	}
	if p, err := json.Marshal(obj); err == nil {
		m.Params = p
	}
}

// FileInputs reports whether file inputs were declared to the server
// (Options.FileInputs): its tools' file arguments are file fields too.
func (s *Session) FileInputs() bool { return s.opts.FileInputs }

// ToolInputFiles returns the inputFiles map a tool was listed with (the earlier
// SEP-2356 draft's descriptors of its file arguments, by argument), as sent; nil when
// it has none or was not listed.
func (s *Session) ToolInputFiles(tool string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pg := range s.listed {
		if f, ok := pg.inputFiles[tool]; ok {
			return f
		}
	}
	return nil
}

// redactFileArgs masks in the wire log the base64 data URIs a tool call's arguments
// carry (files for file arguments, SEP-2356 "Logging and telemetry"), with file inputs
// on; the call still sends them.
func (s *Session) redactFileArgs(args map[string]any) {
	if !s.opts.FileInputs {
		return
	}
	mask := func(v any) {
		if str, ok := v.(string); ok && strings.HasPrefix(str, "data:") && strings.Contains(str, ";base64,") {
			s.tap.log.Redact(str)
		}
	}
	for _, v := range args {
		switch x := v.(type) {
		case []string:
			for _, it := range x {
				mask(it)
			}
		case []any:
			for _, it := range x {
				mask(it)
			}
		default:
			mask(x)
		}
	}
}
