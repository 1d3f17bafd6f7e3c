package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/elicitty/elicitty/tree"
)

// format is the layout of a config file.
type format int

const (
	// formatOwn is elicitty's own file: YAML or JSON, `servers:`, unknown keys are errors.
	formatOwn format = iota
	// formatMCPServers is Claude Desktop, Cursor and .mcp.json: JSON with `mcpServers`.
	formatMCPServers
	// formatVSCode is VS Code's .vscode/mcp.json and user mcp.json: JSON with comments,
	// `servers` and `inputs`.
	formatVSCode
	// formatClaudeLocal is Claude Code's ~/.claude.json project scope:
	// `projects[<working directory>].mcpServers`.
	formatClaudeLocal
	// formatWindsurf is Windsurf's mcp_config.json: `mcpServers`, `serverUrl` for HTTP.
	formatWindsurf
	// formatGemini is Gemini CLI's settings.json: `mcpServers`, `url` is SSE, `httpUrl`
	// Streamable HTTP, `timeout` in milliseconds.
	formatGemini
	// formatCodex is Codex's config.toml: TOML, `[mcp_servers.NAME]` tables.
	formatCodex
)

// serversKey is the key of the object of servers by name.
func (f format) serversKey() string {
	switch f {
	case formatOwn, formatVSCode:
		return "servers"
	case formatCodex:
		return "mcp_servers"
	}
	return "mcpServers"
}

// fileResult is what one file contributes to the catalog.
type fileResult struct {
	servers  []Server
	problems []Problem // imported files only: entries that could not be used
	sampling *Sampling // elicitty's own file only
}

// decodeFile parses one config file. For elicitty's own file every problem is an error
// (all of them, joined); for imported files a bad entry becomes a Problem and only a file
// that cannot be parsed at all is an error.
func decodeFile(file string, data []byte, f format, x *expander) (fileResult, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	root, err := parse(file, data, f)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = file
			return fileResult{}, ce
		}
		return fileResult{}, &Error{File: file, Msg: err.Error(), Err: err}
	}
	if f == formatVSCode {
		x.inputOK = true
	}
	d := &fileDecoder{file: file, strict: f == formatOwn, f: f, x: x}
	return d.decode(root, f)
}

// isJSON reports whether our own file is JSON: by extension, else by its first character.
func isJSON(file string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

type fileDecoder struct {
	file   string
	strict bool
	f      format
	x      *expander
	errs   []error // strict mode: every error in the file
}

func (d *fileDecoder) errAt(at tree.Location, field, msg string) *Error {
	return &Error{File: d.file, Line: at.Line, Col: at.Column, Field: field, Msg: msg}
}

func (d *fileDecoder) decode(root *tree.Node, f format) (fileResult, error) {
	var res fileResult
	if root == nil || root.Kind == tree.KindNull {
		return res, nil
	}
	if root.Kind != tree.KindObject {
		return res, d.errAt(root.Loc, "", "the top level must be an object, got "+kindName(root.Kind))
	}
	serversKey := f.serversKey()
	if f == formatClaudeLocal {
		var ok bool
		if root, serversKey, ok = claudeProject(root, d.x.work); !ok {
			return res, nil
		}
	}
	var servers *tree.Node
	for _, e := range members(root) {
		switch {
		case e.key == serversKey:
			servers = e.val
		case f == formatVSCode && e.key == "inputs":
			d.inputs(e.val)
		case d.strict && e.key == "$schema":
		case d.strict && e.key == "sampling":
			res.sampling = d.sampling(e.at, e.val)
		case d.strict:
			d.errs = append(d.errs, d.errAt(e.at, e.key, "unknown key (want servers or sampling)"))
		}
	}
	if servers != nil && servers.Kind != tree.KindNull {
		if servers.Kind != tree.KindObject {
			return res, d.errAt(servers.Loc, serversKey, "must be an object of servers by name, got "+kindName(servers.Kind))
		}
		for _, e := range members(servers) {
			sd := &serverDecoder{d: d, prefix: serversKey + "." + e.key, at: map[string]tree.Location{"": e.at}}
			if f == formatClaudeLocal {
				sd.prefix = "projects." + strconv.Quote(d.x.work) + ".mcpServers." + e.key
			}
			s, skip := sd.decode(e.key, e.val)
			if skip {
				continue
			}
			// A field that failed to decode would cascade; an untrusted entry is checked
			// once its references are expanded.
			if len(sd.errs) == 0 && !d.x.literal {
				for _, fe := range validateServer(s) {
					sd.fail(fe.field, fe.msg)
				}
			}
			if d.strict {
				d.errs = append(d.errs, sd.errs...)
			} else if len(sd.errs) > 0 {
				res.problems = append(res.problems, Problem{Source: d.file, Server: e.key, Err: errors.Join(sd.errs...)})
				continue
			}
			res.servers = append(res.servers, s)
		}
	}
	if len(d.errs) > 0 {
		return fileResult{}, errors.Join(d.errs...)
	}
	return res, nil
}

// inputs records VS Code `inputs` declarations; malformed ones are skipped.
func (d *fileDecoder) inputs(n *tree.Node) {
	if d.x.inputs == nil {
		d.x.inputs = map[string]input{}
	}
	if n.Kind != tree.KindArray {
		return
	}
	for _, item := range n.Items {
		if item.Kind != tree.KindObject {
			continue
		}
		var in input
		for _, e := range members(item) {
			if e.val.Kind != tree.KindString {
				continue
			}
			switch e.key {
			case "id":
				in.id = e.val.Str
			case "description":
				in.description = e.val.Str
			}
		}
		if in.id != "" {
			d.x.inputs[in.id] = in
		}
	}
}

// serverDecoder turns one server entry into a Server, remembering where each field was
// written so that validation errors can point at it.
type serverDecoder struct {
	d      *fileDecoder
	prefix string
	at     map[string]tree.Location // field path relative to the server -> position
	subst  map[string][2]string     // field -> {as written, as expanded} when they differ
	errs   []error
	// urlKey is the key the URL was written under when it is not "url" (Windsurf's
	// serverUrl, Gemini's httpUrl), so that errors name it.
	urlKey string
	// envHeaders are headers whose value comes from an environment variable (Codex),
	// applied after the entry's other headers.
	envHeaders [][2]string
}

// fail records an error on a field (relative path; "" for the entry itself).
func (sd *serverDecoder) fail(field, msg string) {
	if field == "url" && sd.urlKey != "" {
		field = sd.urlKey
	}
	at, ok := sd.at[field]
	for f := field; !ok && f != ""; {
		if i := strings.LastIndexAny(f, ".["); i >= 0 {
			f = f[:i]
		} else {
			f = ""
		}
		at, ok = sd.at[f]
	}
	// A message quotes a value as expanded; quote it as written instead, so that no
	// variable's value ever reaches an error.
	if sub, ok := sd.subst[field]; ok {
		msg = strings.ReplaceAll(msg, strconv.Quote(sub[1]), strconv.Quote(sub[0]))
	}
	full := sd.prefix
	if field != "" {
		if strings.HasPrefix(field, "[") {
			full += field
		} else {
			full += "." + field
		}
	}
	sd.errs = append(sd.errs, sd.d.errAt(at, full, msg))
}

// decode reads the entry; skip is true for an imported entry marked "disabled": true.
func (sd *serverDecoder) decode(name string, n *tree.Node) (s Server, skip bool) {
	s = Server{Name: name, Source: sd.d.file}
	if n.Kind != tree.KindObject {
		sd.fail("", "must be an object, got "+kindName(n.Kind))
		return s, false
	}
	for _, e := range members(n) {
		sd.at[e.key] = e.at
		switch e.key {
		case "command":
			s.Command = sd.str(e.key, e.val)
		case "args":
			s.Args = sd.strList(e.key, e.val)
		case "env":
			s.Env = sd.strMap(e.key, e.val)
		case "cwd":
			s.Cwd = sd.str(e.key, e.val)
		case "url":
			s.URL, sd.urlKey = sd.str(e.key, e.val), ""
			if sd.d.f == formatGemini && s.Kind == "" && !n.Has("type") {
				s.Kind = KindSSE // Gemini CLI: url is SSE, httpUrl Streamable HTTP
			}
		case "headers":
			s.Headers = sd.strMap(e.key, e.val)
		case "type":
			s.Kind = sd.kind(e.key, e.val)
		default:
			if !sd.d.strict {
				if e.key == "disabled" && e.val.Kind == tree.KindBool && e.val.Bool {
					return s, true
				}
				if sd.imported(&s, e) {
					return s, true
				}
				continue // other clients' keys (envFile, disabled, alwaysAllow, ...) are theirs
			}
			sd.own(&s, e)
		}
	}
	if sd.d.f == formatGemini && n.Has("httpUrl") && n.Has("url") {
		// Gemini CLI prefers httpUrl.
		s.URL, sd.urlKey = sd.str("httpUrl", n.At("httpUrl")), "httpUrl"
		if !n.Has("type") {
			s.Kind = KindHTTP
		}
	}
	if sd.d.f == formatCodex && len(sd.envHeaders) > 0 && s.Headers == nil {
		s.Headers = map[string]string{}
	}
	for _, h := range sd.envHeaders {
		s.Headers[h[0]] = h[1]
	}
	return s, false
}

// imported decodes the keys particular to one imported format; skip is true for an
// entry switched off (Codex `enabled = false`).
func (sd *serverDecoder) imported(s *Server, e entry) (skip bool) {
	switch {
	case sd.d.f == formatWindsurf && e.key == "serverUrl":
		s.URL, sd.urlKey = sd.str(e.key, e.val), e.key
	case sd.d.f == formatGemini && e.key == "httpUrl":
		s.URL, sd.urlKey = sd.str(e.key, e.val), e.key
		if s.Kind == "" {
			s.Kind = KindHTTP
		}
	case sd.d.f == formatGemini && e.key == "timeout":
		if ms := sd.integer(e.key, e.val); ms > 0 {
			s.Timeout = time.Duration(ms) * time.Millisecond
		}
	case sd.d.f != formatCodex:
	case e.key == "enabled":
		if b, ok := sd.boolean(e.key, e.val); ok && !b {
			return true
		}
	case e.key == "http_headers":
		hs := sd.strMap(e.key, e.val)
		if s.Headers == nil && len(hs) > 0 {
			s.Headers = map[string]string{}
		}
		for k, v := range hs {
			s.Headers[k] = v
		}
	case e.key == "env_http_headers":
		// header -> name of the environment variable holding its value
		names := sd.strMap(e.key, e.val)
		if e.val.Kind == tree.KindObject {
			for _, h := range members(e.val) {
				sd.envHeader(e.key+"."+h.key, h.key, names[h.key], "")
			}
		}
	case e.key == "bearer_token_env_var":
		sd.envHeader(e.key, "Authorization", sd.str(e.key, e.val), "Bearer ")
	case e.key == "startup_timeout_sec":
		s.HandshakeTimeout = sd.seconds(e.key, e.val)
	case e.key == "startup_timeout_ms":
		s.HandshakeTimeout = time.Duration(sd.integer(e.key, e.val)) * time.Millisecond
	case e.key == "tool_timeout_sec":
		s.Timeout = sd.seconds(e.key, e.val)
	}
	return false
}

// envHeader sets header to prefix + the value of the environment variable name, as Codex
// reads bearer_token_env_var and env_http_headers. An unset variable is an error.
func (sd *serverDecoder) envHeader(field, header, name, prefix string) {
	if name == "" {
		return
	}
	if !envName(name) {
		sd.fail(field, fmt.Sprintf("invalid environment variable name %q", name))
		return
	}
	if sd.d.x.literal {
		sd.envHeaders = append(sd.envHeaders, [2]string{header, prefix + "${" + name + "}"})
		return
	}
	v := sd.d.x.getenv(name)
	if v == "" {
		sd.fail(field, fmt.Sprintf("environment variable %q is not set", name))
		return
	}
	sd.envHeaders = append(sd.envHeaders, [2]string{header, prefix + v})
}

// envName reports whether s is a plausible environment variable name.
func envName(s string) bool {
	for i, r := range s {
		if !(r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}

// seconds decodes a number of seconds (Codex timeouts; fractions allowed).
func (sd *serverDecoder) seconds(field string, n *tree.Node) time.Duration {
	if n.Kind == tree.KindNull {
		return 0
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	if n.Kind != tree.KindNumber || err != nil || f < 0 || f > 1e6 {
		sd.fail(field, "must be a number of seconds")
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// own decodes the keys only elicitty's own file has.
func (sd *serverDecoder) own(s *Server, e entry) {
	switch e.key {
	case "protocol":
		s.Protocol = sd.str(e.key, e.val)
	case "timeout":
		s.Timeout = sd.duration(e.key, e.val)
	case "handshakeTimeout":
		s.HandshakeTimeout = sd.duration(e.key, e.val)
	case "urlWait":
		s.URLWait = sd.duration(e.key, e.val)
	case "validation":
		if b, ok := sd.boolean(e.key, e.val); ok {
			s.Validation = &b
		}
	case "maxRounds":
		s.MaxRounds = sd.integer(e.key, e.val)
	case "restart":
		s.Restart = RestartPolicy(sd.str(e.key, e.val))
	case "maxRestarts":
		s.MaxRestarts = sd.integer(e.key, e.val)
	case "urlPolicy":
		s.URLPolicy = sd.policy(e.key, e.val)
	case "oauth":
		s.OAuth = sd.oauth(e.key, e.val)
	case "roots":
		s.Roots = sd.strList(e.key, e.val)
	case "noRoots":
		s.NoRoots, _ = sd.boolean(e.key, e.val)
	case "headersOnRedirect":
		s.HeadersOnRedirect, _ = sd.boolean(e.key, e.val)
	case "logLevel":
		s.LogLevel = sd.str(e.key, e.val)
	case "experimental":
		s.Experimental = sd.strList(e.key, e.val)
	default:
		sd.fail(e.key, "unknown key (want command, args, env, cwd, url, headers, headersOnRedirect, type, protocol, timeout, handshakeTimeout, urlWait, validation, urlPolicy, maxRounds, restart, maxRestarts, oauth, roots, noRoots, logLevel or experimental)")
	}
}

// duration decodes a Go duration ("30s", "2m"); empty is zero.
func (sd *serverDecoder) duration(key string, val *tree.Node) time.Duration {
	t := sd.str(key, val)
	if t == "" {
		return 0
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		sd.fail(key, fmt.Sprintf("invalid duration %q (want e.g. 30s or 2m)", t))
		return 0
	}
	return d
}

// object calls each for every member of the object n with the member's field path,
// recording where the member stands. It reports whether n is an object: null is
// quietly none, any other kind a problem.
func (sd *serverDecoder) object(field string, n *tree.Node, each func(f string, e entry)) bool {
	if n.Kind == tree.KindNull {
		return false
	}
	if n.Kind != tree.KindObject {
		sd.fail(field, "must be an object, got "+kindName(n.Kind))
		return false
	}
	for _, e := range members(n) {
		f := field + "." + e.key
		sd.at[f] = e.at
		each(f, e)
	}
	return true
}

func (sd *serverDecoder) oauth(field string, n *tree.Node) *OAuth {
	o := &OAuth{}
	ok := sd.object(field, n, func(f string, e entry) {
		switch e.key {
		case "clientId":
			o.ClientID = sd.str(f, e.val)
		case "clientSecret":
			o.ClientSecret = sd.str(f, e.val)
		case "clientMetadataUrl":
			o.ClientMetadataURL = sd.str(f, e.val)
		case "scopes":
			o.Scopes = sd.strList(f, e.val)
		case "redirectPort":
			o.RedirectPort = sd.integer(f, e.val)
		case "grant":
			o.Grant = Grant(sd.str(f, e.val))
		case "privateKeyFile":
			o.PrivateKeyFile = sd.str(f, e.val)
		case "identityTokenFile":
			o.IdentityTokenFile = sd.str(f, e.val)
		case "identityTokenEnv":
			o.IdentityTokenEnv = sd.str(f, e.val)
		case "idp":
			o.IdP = sd.idp(f, e.val)
		case "dpop":
			o.DPoP, _ = sd.boolean(f, e.val)
		default:
			sd.fail(f, "unknown key (want clientId, clientSecret, clientMetadataUrl, scopes, redirectPort, grant, privateKeyFile, identityTokenFile, identityTokenEnv, idp or dpop)")
		}
	})
	if !ok {
		return nil
	}
	return o
}

func (sd *serverDecoder) idp(field string, n *tree.Node) *IdP {
	p := &IdP{}
	ok := sd.object(field, n, func(f string, e entry) {
		switch e.key {
		case "issuer":
			p.Issuer = sd.str(f, e.val)
		case "tokenEndpoint":
			p.TokenEndpoint = sd.str(f, e.val)
		case "clientId":
			p.ClientID = sd.str(f, e.val)
		case "clientSecret":
			p.ClientSecret = sd.str(f, e.val)
		default:
			sd.fail(f, "unknown key (want issuer, tokenEndpoint, clientId or clientSecret)")
		}
	})
	if !ok {
		return nil
	}
	return p
}

func (sd *serverDecoder) policy(field string, n *tree.Node) URLPolicy {
	var p URLPolicy
	sd.object(field, n, func(f string, e entry) {
		switch e.key {
		case "disabled":
			p.Disabled, _ = sd.boolean(f, e.val)
		case "httpsOnly":
			p.HTTPSOnly, _ = sd.boolean(f, e.val)
		case "allowedHosts":
			p.AllowedHosts = sd.strList(f, e.val)
		case "open":
			p.Open = URLOpen(sd.str(f, e.val))
		default:
			sd.fail(f, "unknown key (want disabled, allowedHosts, httpsOnly or open)")
		}
	})
	return p
}

// str reads a scalar as a string (numbers and booleans keep their text) and expands
// variables in it; null is the empty string.
func (sd *serverDecoder) str(field string, n *tree.Node) string {
	switch n.Kind {
	case tree.KindNull:
		return ""
	case tree.KindString, tree.KindNumber, tree.KindBool:
	default:
		sd.fail(field, "must be a string, got "+kindName(n.Kind))
		return ""
	}
	v, err := sd.d.x.expand(n.Str)
	if err != nil {
		sd.fail(field, err.Error())
		return ""
	}
	if v != n.Str {
		if sd.subst == nil {
			sd.subst = map[string][2]string{}
		}
		sd.subst[field] = [2]string{n.Str, v}
	}
	return v
}

func (sd *serverDecoder) strList(field string, n *tree.Node) []string {
	if n.Kind == tree.KindNull {
		return nil
	}
	if n.Kind != tree.KindArray {
		sd.fail(field, "must be a list of strings, got "+kindName(n.Kind))
		return nil
	}
	out := make([]string, 0, len(n.Items))
	for i, item := range n.Items {
		f := field + "[" + strconv.Itoa(i) + "]"
		sd.at[f] = item.Loc
		out = append(out, sd.str(f, item))
	}
	return out
}

func (sd *serverDecoder) strMap(field string, n *tree.Node) map[string]string {
	if n.Kind == tree.KindNull {
		return nil
	}
	if n.Kind != tree.KindObject {
		sd.fail(field, "must be an object of strings, got "+kindName(n.Kind))
		return nil
	}
	out := make(map[string]string, len(n.Keys))
	for _, e := range members(n) {
		f := field + "." + e.key
		sd.at[f] = e.at
		out[e.key] = sd.str(f, e.val)
	}
	return out
}

func (sd *serverDecoder) boolean(field string, n *tree.Node) (bool, bool) {
	if n.Kind == tree.KindNull {
		return false, false
	}
	if n.Kind != tree.KindBool {
		sd.fail(field, "must be true or false, got "+kindName(n.Kind))
		return false, false
	}
	return n.Bool, true
}

func (sd *serverDecoder) integer(field string, n *tree.Node) int {
	if n.Kind == tree.KindNull {
		return 0
	}
	i, err := strconv.Atoi(n.Str)
	if n.Kind != tree.KindNumber || err != nil {
		sd.fail(field, "must be a whole number")
		return 0
	}
	return i
}

// kind maps a "type" value. Other clients spell Streamable HTTP several ways.
func (sd *serverDecoder) kind(field string, n *tree.Node) Kind {
	raw := sd.str(field, n)
	t := strings.ToLower(raw)
	switch t {
	case "":
		return ""
	case "stdio", "http", "sse":
		return Kind(t)
	case "streamable-http", "streamablehttp", "streamable_http", "http-stream":
		if !sd.d.strict {
			return KindHTTP
		}
	}
	sd.fail(field, fmt.Sprintf("unknown type %q (want stdio, http or sse)", raw))
	return ""
}

// claudeProject finds Claude Code's entry for the project directory work in
// ~/.claude.json (`projects` is keyed by absolute path, with forward slashes on
// Windows) and returns it with the key of its servers.
func claudeProject(root *tree.Node, work string) (*tree.Node, string, bool) {
	projects := root.At("projects")
	if work == "" || projects == nil || projects.Kind != tree.KindObject {
		return nil, "", false
	}
	for _, key := range claudeProjectKeys(work) {
		if p, ok := projects.Get(key); ok && p.Kind == tree.KindObject {
			return p, "mcpServers", true
		}
	}
	return nil, "", false
}
