package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Request sends one request of a method go-sdk has no call for (an extension's method,
// such as skills/list) with params (any JSON-encodable value; nil sends {}) and returns
// the result exactly as the server sent it. It answers no input requests. Standard MCP
// methods are refused: use the typed calls.
func (s *Session) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.requestAs(ctx, method, method, "", params)
}

// requestAs is Request, with errors naming the method shown (a method the tap renames)
// and token the progress token params carry ("" for none).
func (s *Session) requestAs(ctx context.Context, method, shown, token string, params any) (json.RawMessage, error) {
	cs := s.client()
	if s.mcpClient == nil || cs == nil {
		return nil, fmt.Errorf("%s: session not connected", shown)
	}
	raw := json.RawMessage(`{}`)
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%s: encode params: %w", shown, err)
		}
		raw = b
	}
	// Registering again replaces the same registration: cheap and race-free.
	if err := mcp.AddSendingCustomMethod[*rawParams, *rawResult](s.mcpClient, method); err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	ctx, cancel := s.requestContext(ctx, token)
	defer cancel()
	res, err := mcp.CallCustomMethod[*rawParams, *rawResult](ctx, cs, method, &rawParams{raw: raw})
	if err != nil {
		return nil, s.wrap(ctx, shown, err)
	}
	if res == nil || len(res.raw) == 0 {
		return nil, fmt.Errorf("%s: empty result", shown)
	}
	return res.raw, nil
}

// rawParams carries params as encoded JSON; go-sdk may add _meta (protocol version,
// client info) through SetMeta before sending.
type rawParams struct {
	mcp.ParamsBase
	raw json.RawMessage
}

// MarshalJSON implements json.Marshaler: raw with go-sdk's _meta merged in.
func (p *rawParams) MarshalJSON() ([]byte, error) {
	if len(p.Meta) == 0 {
		return p.raw, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(p.raw, &obj); err != nil {
		return nil, errors.New("params must be a JSON object")
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	meta := map[string]any{}
	if old, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(old, &meta); err != nil || meta == nil {
			meta = map[string]any{}
		}
	}
	for k, v := range p.Meta {
		if _, set := meta[k]; !set {
			meta[k] = v
		}
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = m
	return json.Marshal(obj)
}

// rawResult keeps the result's bytes as sent.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *rawResult) UnmarshalJSON(b []byte) error {
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}
