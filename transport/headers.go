package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/protocol"
)

// paramHeaders mirrors x-mcp-header tool arguments into Mcp-Param-NAME headers
// (2026-07-28, SEP-2243) where go-sdk did not: go-sdk skips a whole tool when one of its
// annotated properties is a "number", and tools it has not seen listed. Only top-level
// properties are handled here; go-sdk covers nested ones for the tools it accepts.
type paramHeaders struct {
	mu    sync.Mutex
	tools map[string]map[string]string // tool -> argument -> header name
}

// noteTools records the x-mcp-header annotations of the tools of one tools/list page,
// as elicitty decoded them (go-sdk drops the tools whose annotations it rejects).
func (p *paramHeaders) noteTools(tools []*mcp.Tool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tools == nil {
		p.tools = map[string]map[string]string{}
	}
	for _, t := range tools {
		raw, _ := t.InputSchema.(json.RawMessage)
		if ann := annotations(raw); ann != nil {
			p.tools[t.Name] = ann
		} else {
			delete(p.tools, t.Name)
		}
	}
}

// annotations returns argument -> header name for a tool's input schema.
func annotations(raw json.RawMessage) map[string]string {
	if !mayHaveHeader(raw) {
		return nil
	}
	var m map[string]string
	{
		var schema struct {
			Properties map[string]struct {
				Header json.RawMessage `json:"x-mcp-header"`
			} `json:"properties"`
		}
		if json.Unmarshal(raw, &schema) != nil {
			return nil
		}
		for prop, ps := range schema.Properties {
			var name string
			if json.Unmarshal(ps.Header, &name) != nil || !validHeaderName(name) {
				continue
			}
			if m == nil {
				m = map[string]string{}
			}
			m[prop] = name
		}
	}
	return m
}

// apply adds the missing Mcp-Param-* headers for a tools/call body.
func (p *paramHeaders) apply(h http.Header, body []byte) {
	if h.Get("Mcp-Protocol-Version") < protocol.Version20260728 {
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return
	}
	p.mu.Lock()
	ann := p.tools[msg.Params.Name]
	p.mu.Unlock()
	for prop, name := range ann {
		key := "Mcp-Param-" + name
		if h.Get(key) != "" {
			continue
		}
		raw, ok := msg.Params.Arguments[prop]
		if !ok {
			continue
		}
		if v, ok := headerValue(raw); ok {
			h.Set(key, v)
		}
	}
}

// headerValue renders one argument as a header value: strings as they are (base64 when
// unsafe), numbers in decimal as sent, booleans as true/false; null and objects give none.
func headerValue(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		if needsBase64(s) {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=", true
		}
		return s, true
	case 't', 'f':
		return string(raw), string(raw) == "true" || string(raw) == "false"
	case 'n', '{', '[':
		return "", false
	default:
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return "", false
		}
		return n.String(), true
	}
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if strings.TrimSpace(s) != s {
		return true
	}
	for _, c := range s {
		if c < 0x20 || c > 0x7E {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= 0x20 || c >= 0x7F || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return false
		}
	}
	return true
}
