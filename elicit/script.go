package elicit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// ScriptEntry is one entry of an answers file (ARCHITECTURE.md §4).
type ScriptEntry struct {
	// Match selects the requests this entry answers; the zero Match matches every request.
	Match ScriptMatch `yaml:"match"`
	// Action is the answer: accept, decline or cancel.
	Action Action `yaml:"action"`
	// Content is the accepted form content; omitted fields take the schema defaults
	// and the Engine validates the result.
	Content map[string]any `yaml:"content,omitempty"`
	// Times limits how often the entry is used; 0 means without limit.
	Times int `yaml:"times,omitempty"`
	// Open (URL mode) opens the browser on accept; nil means true.
	Open *bool `yaml:"open,omitempty"`
	// Retry (-32042) is "complete" (retry after the completion notification, the
	// default) or "now".
	Retry string `yaml:"retry,omitempty"`
}

// ScriptMatch is the match part of an answers entry. Empty members match anything;
// Server, Tool and Message are globs where * matches any run of characters.
type ScriptMatch struct {
	Server  string `yaml:"server,omitempty"`
	Tool    string `yaml:"tool,omitempty"`
	Message string `yaml:"message,omitempty"`
	// Mode is "form" or "url".
	Mode Mode `yaml:"mode,omitempty"`
	// Fields are property names that must all be present in the requested schema.
	Fields []string `yaml:"fields,omitempty,flow"`
}

// ScriptOptions are the hooks of a Script; nil members are skipped.
type ScriptOptions struct {
	// Log receives one line per scripted answer (server, sanitized message, action);
	// nil discards the lines. Commands pass stderr.
	Log io.Writer
	// Open opens a URL-mode request's url on a scripted accept whose entry does not say
	// open: false. A failure is logged and the answer stays accept.
	Open func(ctx context.Context, url string) error
	// CheckURL analyses every URL-mode request; a scripted accept of a refused URL is
	// answered decline instead. The summary (full URL, real host, warnings) is logged
	// for every URL-mode answer; without CheckURL the raw URL is.
	CheckURL func(req *Request) (refused bool, summary string)
	// LookupEnv resolves the ${ELICITTY_SECRET_...} references a recorded file holds
	// for secret fields; nil means the process environment.
	LookupEnv func(string) (string, bool)
}

// Script answers requests from an answers file: every request is matched against the
// entries in order and the first match that has uses left answers it. It is safe for
// concurrent use. The zero value answers nothing; build one with ParseScript or
// LoadScript.
type Script struct {
	name    string
	entries []ScriptEntry
	lines   []int

	mu      sync.Mutex
	used    []int
	retries map[*Request]string
	opts    ScriptOptions
}

// LoadScript reads and parses an answers file and installs opts (nil means no hooks
// and no log).
func LoadScript(path string, opts *ScriptOptions) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read answers file: %w", err)
	}
	s, err := ParseScript(data, path)
	if err != nil {
		return nil, err
	}
	s.SetOptions(opts)
	return s, nil
}

// SetOptions installs the script's hooks; call it before the first Answer.
func (s *Script) SetOptions(opts *ScriptOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts = ScriptOptions{}
	if opts != nil {
		s.opts = *opts
	}
}

// Entries returns a copy of the parsed entries.
func (s *Script) Entries() []ScriptEntry { return append([]ScriptEntry(nil), s.entries...) }

// scriptError is a problem in an answers file, located by line and entry.
type scriptError struct {
	name  string
	line  int
	entry int
	field string
	msg   string
}

func (e *scriptError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.name, e.line)
	if e.entry > 0 {
		fmt.Fprintf(&b, "entry %d: ", e.entry)
	}
	if e.field != "" {
		b.WriteString(e.field + ": ")
	}
	b.WriteString(e.msg)
	return b.String()
}

// ParseScript parses an answers file's bytes (YAML, or JSON which is YAML too); name is
// used in errors, which name the file, line, entry (1-based) and key.
func ParseScript(data []byte, name string) (*Script, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &scriptError{name: name, line: 1, msg: "answers file is empty; want a list of entries"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		return nil, &scriptError{name: name, line: root.Line, msg: "answers file must be a list of entries"}
	}
	s := &Script{name: name, retries: map[*Request]string{}}
	for i, n := range root.Content {
		e, err := parseEntry(n, name, i+1)
		if err != nil {
			return nil, err
		}
		s.entries = append(s.entries, e)
		s.lines = append(s.lines, n.Line)
	}
	s.used = make([]int, len(s.entries))
	return s, nil
}

func parseEntry(n *yaml.Node, name string, idx int) (ScriptEntry, error) {
	var e ScriptEntry
	fail := func(at *yaml.Node, field, format string, args ...any) error {
		return &scriptError{name: name, line: at.Line, entry: idx, field: field, msg: fmt.Sprintf(format, args...)}
	}
	if n.Kind != yaml.MappingNode {
		return e, fail(n, "", "an entry must be a mapping with match and action, not %s", nodeKind(n))
	}
	haveAction := false
	var contentNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "match":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return e, fail(v, "match", "must be a mapping, not %s", nodeKind(v))
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				mk, mv := v.Content[j], v.Content[j+1]
				field := "match." + mk.Value
				switch mk.Value {
				case "server", "tool", "message":
					if mv.Kind != yaml.ScalarNode || isNull(mv) {
						return e, fail(mv, field, "must be a string, not %s", nodeKind(mv))
					}
					switch mk.Value {
					case "server":
						e.Match.Server = mv.Value
					case "tool":
						e.Match.Tool = mv.Value
					default:
						e.Match.Message = mv.Value
					}
				case "mode":
					if mv.Kind != yaml.ScalarNode || (mv.Value != "form" && mv.Value != "url") {
						return e, fail(mv, field, "must be form or url, not %s", describeNode(mv))
					}
					e.Match.Mode = Mode(mv.Value)
				case "fields":
					if mv.Kind != yaml.SequenceNode {
						return e, fail(mv, field, "must be a list of property names, not %s", nodeKind(mv))
					}
					for _, f := range mv.Content {
						if f.Kind != yaml.ScalarNode || isNull(f) {
							return e, fail(f, field, "must be a list of property names, not a list of %s", nodeKind(f))
						}
						e.Match.Fields = append(e.Match.Fields, f.Value)
					}
				default:
					return e, fail(mk, "match", "unknown key %q (want server, tool, message, mode or fields)", mk.Value)
				}
			}
		case "action":
			switch Action(v.Value) {
			case Accept, Decline, Cancel:
				if v.Kind == yaml.ScalarNode {
					e.Action = Action(v.Value)
					haveAction = true
					continue
				}
			}
			return e, fail(v, "action", "must be accept, decline or cancel, not %s", describeNode(v))
		case "content":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return e, fail(v, "content", "must be a mapping of property names to values, not %s", nodeKind(v))
			}
			contentNode = v
			budget := maxContentNodes
			e.Content = make(map[string]any, len(v.Content)/2)
			for j := 0; j+1 < len(v.Content); j += 2 {
				ck, cv := v.Content[j], v.Content[j+1]
				if ck.Kind != yaml.ScalarNode {
					return e, fail(ck, "content", "property names must be strings, not %s", nodeKind(ck))
				}
				val, err := nodeValue(cv, &budget)
				if err != nil {
					return e, fail(cv, "content."+ck.Value, "%v", err)
				}
				e.Content[ck.Value] = val
			}
		case "times":
			var t int
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&t) != nil || t < 1 {
				return e, fail(v, "times", "must be a positive whole number, not %s", describeNode(v))
			}
			e.Times = t
		case "open":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
				return e, fail(v, "open", "must be true or false, not %s", describeNode(v))
			}
			e.Open = &b
		case "retry":
			if v.Kind != yaml.ScalarNode || (v.Value != "complete" && v.Value != "now") {
				return e, fail(v, "retry", "must be complete or now, not %s", describeNode(v))
			}
			e.Retry = v.Value
		default:
			return e, fail(k, "", "unknown key %q (want match, action, content, times, open or retry)", k.Value)
		}
	}
	if !haveAction {
		return e, fail(n, "action", "missing (want accept, decline or cancel)")
	}
	if len(e.Content) == 0 {
		e.Content = nil // content: {} is an accept without content
	}
	if contentNode != nil && e.Action != Accept {
		return e, fail(contentNode, "content", "only an accept carries content, this entry says %s", e.Action)
	}
	if contentNode != nil && e.Match.Mode == ModeURL {
		return e, fail(contentNode, "content", "a url-mode answer carries no content")
	}
	return e, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if isNull(n) {
		return "null"
	}
	return fmt.Sprintf("the value %q", n.Value)
}

func describeNode(n *yaml.Node) string { return nodeKind(n) }

// maxContentNodes bounds the values of one entry's content, so YAML aliases cannot
// expand exponentially.
const maxContentNodes = 10000

// nodeValue converts a YAML node to the JSON-shaped values the engine validates:
// strings (timestamps stay the text written), int64, float64, bool, nil, []any and
// map[string]any.
func nodeValue(n *yaml.Node, budget *int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, errors.New("value too large (aliases expand to too many nodes)")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], budget)
	case yaml.AliasNode:
		return nodeValue(n.Alias, budget)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			out[n.Content[i].Value] = v
		}
		return out, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		err := n.Decode(&b)
		return b, err
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		var f float64
		err := n.Decode(&f)
		return f, err
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%s is not a JSON number", n.Value)
		}
		return f, nil
	}
	return n.Value, nil
}

// Answer implements Answerer. A request no entry matches returns an error wrapping
// ErrUnanswered that describes the request. Accept content is returned as written (a
// copy); the Engine merges defaults and validates it.
func (s *Script) Answer(ctx context.Context, req *Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	s.mu.Lock()
	idx := -1
	for i := range s.entries {
		e := &s.entries[i]
		if e.Times > 0 && s.used[i] >= e.Times {
			continue
		}
		if e.Match.matches(ctx, req) {
			idx = i
			s.used[i]++
			break
		}
	}
	opts := s.opts
	s.mu.Unlock()
	if idx < 0 {
		return Response{}, fmt.Errorf("%w: no entry in %s matches %s", ErrUnanswered, s.name, Describe(req))
	}
	e := s.entries[idx]
	resp := Response{Action: e.Action}
	note := ""
	if req.Mode == ModeURL {
		s.mu.Lock()
		s.retries[req] = e.Retry
		s.mu.Unlock()
		// Every scripted URL answer logs what the user would have seen: the full URL,
		// its real host and the warnings (the CheckURL summary), then what was done.
		summary := "url " + req.URL
		refused := false
		if opts.CheckURL != nil {
			refused, summary = opts.CheckURL(req)
		}
		outcome := ""
		switch {
		case resp.Action == Accept && refused:
			resp.Action = Decline
			outcome = "url refused, declined instead"
		case resp.Action == Accept && (e.Open == nil || *e.Open) && opts.Open != nil:
			if err := opts.Open(ctx, req.URL); err != nil {
				outcome = fmt.Sprintf("opening the url failed: %v", err)
			} else {
				outcome = "url opened"
			}
		case resp.Action == Accept:
			outcome = "url not opened"
		}
		note = summary
		if outcome != "" {
			note += "; " + outcome
		}
	} else if resp.Action == Accept && e.Content != nil {
		resp.Content = copyContent(e.Content)
		if err := expandSecrets(resp.Content, opts.LookupEnv); err != nil {
			return Response{}, fmt.Errorf("%s entry %d: %w", s.name, idx+1, err)
		}
	}
	if opts.Log != nil {
		line := fmt.Sprintf("elicitty: %s asked %q -> %s (%s entry %d)", oneLine(req.Server, 40), oneLine(req.Message, 120), resp.Action, s.name, idx+1)
		if note != "" {
			line += ": " + Sanitize(note)
		}
		fmt.Fprintln(opts.Log, line)
	}
	return resp, nil
}

// RetryPolicy returns the retry key ("complete" or "now") of the entry that last
// answered the URL-mode request req, for the -32042 driver; "complete" when none did.
// The lookup forgets req.
func (s *Script) RetryPolicy(req *Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.retries[req]
	delete(s.retries, req)
	if r == "" {
		return "complete"
	}
	return r
}

func (m ScriptMatch) matches(ctx context.Context, req *Request) bool {
	if m.Server != "" && !glob(m.Server, req.Server) {
		return false
	}
	if m.Tool != "" && !glob(m.Tool, req.Tool) {
		return false
	}
	if m.Message != "" && !glob(m.Message, req.Message) {
		return false
	}
	mode := req.Mode
	if mode == "" {
		mode = ModeForm
	}
	if m.Mode != "" && m.Mode != mode {
		return false
	}
	if len(m.Fields) > 0 {
		if mode != ModeForm {
			return false
		}
		form := FormOf(ctx, req)
		for _, name := range m.Fields {
			found := false
			for _, f := range form.Fields {
				if f.Name == name {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// glob matches s against pattern, where * matches any run of characters (also none)
// and every other character matches itself.
func glob(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			starP, starS = px, sx
			px++
		case px < len(pattern) && pattern[px] == s[sx]:
			px++
			sx++
		case starP >= 0:
			starS++
			px, sx = starP+1, starS
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// Describe summarises a request for error messages and logs: server, tool, mode and
// message (sanitized, on one line).
func Describe(req *Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q", oneLine(req.Server, 60))
	if req.Tool != "" {
		fmt.Fprintf(&b, ", tool %q", oneLine(req.Tool, 60))
	}
	if req.Mode == ModeURL {
		fmt.Fprintf(&b, ", url %q", oneLine(req.URL, 200))
	}
	fmt.Fprintf(&b, ", message %q", oneLine(req.Message, 200))
	return b.String()
}

// oneLine sanitizes s, folds whitespace runs to one space and cuts it to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(Sanitize(s)), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func copyContent(c map[string]any) map[string]any {
	out := make(map[string]any, len(c))
	for k, v := range c {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = copyValue(x[i])
		}
		return out
	case []string:
		return append([]string(nil), x...)
	case map[string]any:
		return copyContent(x)
	}
	return v
}
