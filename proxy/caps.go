package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
)

// metaCaps is the _meta key under which a 2026-07-28 request declares the client's
// capabilities (docs/protocol.md, "Eras").
const metaCaps = "io.modelcontextprotocol/clientCapabilities"

// metaVersion is the _meta key of a 2026-07-28 request's protocol version.
const metaVersion = "io.modelcontextprotocol/protocolVersion"

// metaClientInfo is the _meta key of a 2026-07-28 request's client identity.
const metaClientInfo = "io.modelcontextprotocol/clientInfo"

// metaServerInfo is the _meta key of a 2026-07-28 result's server identity.
const metaServerInfo = "io.modelcontextprotocol/serverInfo"

// modes is the set of elicitation modes a client declared.
type modes struct{ form, url bool }

// has reports whether m declares mode.
func (m modes) has(mode elicit.Mode) bool {
	if mode == elicit.ModeURL {
		return m.url
	}
	return m.form
}

// modesOf reads an elicitation capability: absent is none, {} is form only (the
// 2025-06-18 shape, kept in 2025-11-25), otherwise the modes named.
func modesOf(raw json.RawMessage) modes {
	if len(raw) == 0 || string(raw) == "null" {
		return modes{}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return modes{}
	}
	if len(m) == 0 {
		return modes{form: true}
	}
	_, form := m["form"]
	_, url := m["url"]
	return modes{form: form, url: url}
}

// answers reports whether the proxy answers a question of mode for a host that
// declared declared.
func (p *Proxy) answers(declared modes, mode elicit.Mode) bool {
	return p.opts.AnswerHere || !declared.has(mode)
}

// hostInitialize notes the host's identity, protocol and elicitation modes from its
// initialize, and returns the message to send: with the modes the host lacks added,
// else unchanged.
func (p *Proxy) hostInitialize(env *jsonrpcio.Envelope, msg []byte) []byte {
	var params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Elicitation json.RawMessage `json:"elicitation"`
		} `json:"capabilities"`
		ClientInfo struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
	}
	_ = json.Unmarshal(env.Params, &params)
	declared := modesOf(params.Capabilities.Elicitation)
	legacy := params.ProtocolVersion != "" && params.ProtocolVersion < protocol.Version20251125
	p.mu.Lock()
	p.caps, p.hostName, p.protocol, p.legacy = declared, params.ClientInfo.Name, params.ProtocolVersion, legacy
	p.mu.Unlock()
	p.namedHost(params.ClientInfo.Name)
	want := modes{form: true, url: !legacy}
	if declared == want || (declared.form && declared.url) {
		p.logf("host %q declares elicitation %s: passing its questions through%s", safe.Block(params.ClientInfo.Name), declared, p.hereNote())
		return msg
	}
	edited, ok := editParams(env, msg, []string{"capabilities"}, legacy, params.Capabilities.Elicitation)
	if !ok {
		p.logf("could not add elicitation to the host's initialize; passing it unchanged")
		return msg
	}
	p.logf("host %q declares elicitation %s; elicitty answers the rest", safe.Block(params.ClientInfo.Name), declared)
	return edited
}

// hereNote says when --answer-here makes the proxy answer anyway.
func (p *Proxy) hereNote() string {
	if p.opts.AnswerHere {
		return " (but --answer-here: elicitty answers them)"
	}
	return ""
}

// String names the modes for the log.
func (m modes) String() string {
	switch {
	case m.form && m.url:
		return "form and url"
	case m.form:
		return "form only"
	case m.url:
		return "url only"
	}
	return "none"
}

// requestCaps reads a 2026-07-28 request's own capability declaration: its modes, and
// whether it carries one, and its protocol version.
func requestCaps(params []byte) (modes, bool, string) {
	if !bytes.Contains(params, []byte(metaCaps)) {
		return modes{}, false, ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return modes{}, false, ""
	}
	raw, ok := p.Meta[metaCaps]
	if !ok {
		return modes{}, false, ""
	}
	var caps struct {
		Elicitation json.RawMessage `json:"elicitation"`
	}
	_ = json.Unmarshal(raw, &caps)
	var version string
	_ = json.Unmarshal(p.Meta[metaVersion], &version)
	return modesOf(caps.Elicitation), true, version
}

// requestModes returns a 2026-07-28 request with the elicitation modes its declaration
// lacks added; any other request unchanged. It also notes the host's name.
func (p *Proxy) requestModes(env *jsonrpcio.Envelope, msg []byte) []byte {
	declared, ok, _ := requestCaps(env.Params)
	if !ok {
		return msg
	}
	named := ""
	p.mu.Lock()
	if p.hostName == "" {
		var mp struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		var info struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(env.Params, &mp) == nil && json.Unmarshal(mp.Meta[metaClientInfo], &info) == nil {
			p.hostName, named = info.Name, info.Name
		}
	}
	p.mu.Unlock()
	p.namedHost(named)
	if declared.form && declared.url {
		return msg
	}
	var pm struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var caps struct {
		Elicitation json.RawMessage `json:"elicitation"`
	}
	_ = json.Unmarshal(env.Params, &pm)
	_ = json.Unmarshal(pm.Meta[metaCaps], &caps)
	edited, ok := editParams(env, msg, []string{"_meta", metaCaps}, false, caps.Elicitation)
	if !ok {
		return msg
	}
	return edited
}

// editParams returns msg with params.<path>.elicitation declaring form and (unless
// legacy) url mode besides what old declares; the rest of the message keeps its bytes.
func editParams(env *jsonrpcio.Envelope, msg []byte, path []string, legacy bool, old json.RawMessage) ([]byte, bool) {
	elic := map[string]json.RawMessage{}
	if len(old) > 0 && string(old) != "null" {
		if json.Unmarshal(old, &elic) != nil {
			return nil, false
		}
		if len(elic) == 0 && !legacy {
			elic["form"] = json.RawMessage(`{}`) // {} meant form
		}
	}
	if !legacy {
		if _, ok := elic["form"]; !ok {
			elic["form"] = json.RawMessage(`{}`)
		}
		if _, ok := elic["url"]; !ok {
			elic["url"] = json.RawMessage(`{}`)
		}
	}
	eb, err := marshal(elic)
	if err != nil {
		return nil, false
	}
	params, ok := setPath(env.Params, append(path, "elicitation"), eb)
	if !ok {
		return nil, false
	}
	start, end := env.ParamsSpan()
	out := make([]byte, 0, len(msg)+len(params))
	out = append(out, msg[:start]...)
	out = append(out, params...)
	return append(out, msg[end:]...), true
}

// setPath returns the JSON object obj with the member at path set to v, creating the
// objects on the way.
func setPath(obj []byte, path []string, v json.RawMessage) ([]byte, bool) {
	m := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" {
		if json.Unmarshal(obj, &m) != nil || m == nil {
			return nil, false
		}
	}
	if len(path) == 1 {
		m[path[0]] = v
	} else {
		inner, ok := setPath(m[path[0]], path[1:], v)
		if !ok {
			return nil, false
		}
		m[path[0]] = inner
	}
	b, err := marshal(m)
	return b, err == nil
}

// noteInitialized notes the server's name and the negotiated protocol version.
func (p *Proxy) noteInitialized(result []byte) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	p.mu.Lock()
	p.serverInfo = r.ServerInfo.Name
	if r.ProtocolVersion != "" {
		p.protocol = r.ProtocolVersion
		p.legacy = r.ProtocolVersion < protocol.Version20251125
	}
	p.mu.Unlock()
	if sp, ok := p.up.(interface{ SetProtocol(string) }); ok && r.ProtocolVersion != "" {
		sp.SetProtocol(r.ProtocolVersion)
	}
	p.logf("server %q speaks %s", safe.Block(r.ServerInfo.Name), safe.Block(r.ProtocolVersion))
}

// marshal encodes v without escaping <, > and &, so the raw members it carries (a
// requestState, the host's params) keep their bytes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// noteServerMeta notes the server's name from a 2026-07-28 result's _meta, once.
func (p *Proxy) noteServerMeta(result []byte) {
	p.mu.Lock()
	known := p.serverInfo != ""
	p.mu.Unlock()
	if known || !bytes.Contains(result, []byte(metaServerInfo)) {
		return
	}
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var info struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r.Meta[metaServerInfo], &info) != nil {
		return
	}
	p.mu.Lock()
	p.serverInfo = info.Name
	p.mu.Unlock()
}

// namedHost tells Options.OnHost the host's name.
func (p *Proxy) namedHost(name string) {
	if name != "" && p.opts.OnHost != nil {
		p.opts.OnHost(name)
	}
}
