package elicit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tree"
)

// ScriptEntry is one entry of an answers file (docs/architecture.md, "Answers files").
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
	// Kind is "sampling" for an entry that answers sampling/createMessage requests;
	// "" (or "elicitation") answers elicitations. An entry answers one kind only.
	Kind string `yaml:"kind,omitempty"`
	// Reply is the assistant reply of a sampling accept.
	Reply *ScriptReply `yaml:"reply,omitempty"`
	// Approve "auto" sends the draft of the configured sampling command without
	// asking (a sampling accept without reply).
	Approve string `yaml:"approve,omitempty"`
}

// ScriptReply is the reply of a sampling entry: Text, or the contents of File (relative
// to the answers file), sent with Model ("" means DefaultModel).
type ScriptReply struct {
	Text  string `yaml:"text,omitempty"`
	File  string `yaml:"file,omitempty"`
	Model string `yaml:"model,omitempty"`
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

// MaxAnswersFile caps the size of an answers file (LoadScript): 4 MiB.
const MaxAnswersFile = boundedfile.DefaultMax

// LoadScript reads and parses an answers file and installs opts (nil means no hooks
// and no log). The read is bounded: a regular file only (a FIFO or device is refused
// without blocking), at most MaxAnswersFile, nesting checked before parsing.
func LoadScript(path string, opts *ScriptOptions) (*Script, error) {
	data, err := boundedfile.Read(path, MaxAnswersFile)
	if err != nil {
		return nil, fmt.Errorf("read answers file: %w", err)
	}
	if err := boundedfile.Nesting(path, data, boundedfile.YAML, 0); err != nil {
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

// maxScriptNodes bounds the values an answers file may expand to, so YAML aliases
// cannot expand exponentially.
const maxScriptNodes = 100_000

// ParseScript parses an answers file's bytes (YAML, or JSON which is YAML too); name is
// used in errors, which name the file, line, entry (1-based) and key.
func ParseScript(data []byte, name string) (*Script, error) {
	r, err := tree.ParseYAML(data, &tree.Options{MaxNodes: maxScriptNodes})
	if err != nil {
		var te *tree.Error
		switch {
		case errors.As(err, &te) && te.Kind == tree.Syntax && te.Err != nil:
			return nil, fmt.Errorf("%s: %w", name, te.Err)
		case errors.As(err, &te) && te.Kind == tree.Limit:
			return nil, &scriptError{name: name, line: te.Loc.Line, msg: "value too large (aliases expand to too many nodes)"}
		case errors.As(err, &te):
			return nil, &scriptError{name: name, line: te.Loc.Line, msg: te.Msg}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	root := r.Root
	if root == nil {
		return nil, &scriptError{name: name, line: 1, msg: "answers file is empty; want a list of entries"}
	}
	if root.Kind != tree.KindArray {
		return nil, &scriptError{name: name, line: root.Loc.Line, msg: "answers file must be a list of entries"}
	}
	s := &Script{name: name, retries: map[*Request]string{}}
	for i, n := range root.Items {
		p := entryParser{name: name, idx: i + 1}
		e, err := p.parse(n)
		if err != nil {
			return nil, err
		}
		s.entries = append(s.entries, e)
		s.lines = append(s.lines, n.Loc.Line)
	}
	s.used = make([]int, len(s.entries))
	return s, nil
}

// entryParser parses one entry of an answers file; its errors name the entry.
type entryParser struct {
	name string
	idx  int
}

func (p entryParser) fail(at *tree.Node, field, format string, args ...any) error {
	return &scriptError{name: p.name, line: at.Loc.Line, entry: p.idx, field: field, msg: fmt.Sprintf(format, args...)}
}

// parse reads the keys of entry n, then checks that they fit together.
func (p entryParser) parse(n *tree.Node) (ScriptEntry, error) {
	var e ScriptEntry
	if n.Kind != tree.KindObject {
		return e, p.fail(n, "", "an entry must be a mapping with match and action, not %s", nodeKind(n))
	}
	var contentNode *tree.Node
	for i, k := range n.Keys {
		v := n.Values[i]
		var err error
		switch k {
		case "match":
			e.Match, err = p.match(v)
		case "action":
			e.Action, err = p.action(v)
		case "content":
			if v.Kind != tree.KindNull {
				contentNode = v
				e.Content, err = p.content(v)
			}
		case "times":
			e.Times, err = p.times(v)
		case "open":
			if v.Kind != tree.KindBool {
				err = p.fail(v, "open", "must be true or false, not %s", nodeKind(v))
			}
			e.Open = &v.Bool
		case "retry":
			if !isScalar(v) || (v.Str != "complete" && v.Str != "now") {
				err = p.fail(v, "retry", "must be complete or now, not %s", nodeKind(v))
			}
			e.Retry = v.Str
		case "kind":
			if !isScalar(v) || (v.Str != kindSampling && v.Str != "elicitation") {
				err = p.fail(v, "kind", "must be elicitation or sampling, not %s", nodeKind(v))
			}
			if v.Str == kindSampling {
				e.Kind = kindSampling
			}
		case "reply":
			e.Reply, err = p.reply(v)
		case "approve":
			if !isScalar(v) || (v.Str != "auto" && v.Str != "ask") {
				err = p.fail(v, "approve", "must be auto or ask, not %s", nodeKind(v))
			}
			if v.Str == "auto" {
				e.Approve = "auto"
			}
		default:
			err = &scriptError{name: p.name, line: n.KeyLocs[i].Line, entry: p.idx,
				msg: fmt.Sprintf("unknown key %q (want match, action, content, times, open, retry, kind, reply or approve)", k)}
		}
		if err != nil {
			return e, err
		}
	}
	return e, p.check(n, e, contentNode)
}

// check applies the rules between keys: an action is required, only an accept of a
// form carries content.
func (p entryParser) check(n *tree.Node, e ScriptEntry, contentNode *tree.Node) error {
	if e.Action == "" {
		return p.fail(n, "action", "missing (want accept, decline or cancel)")
	}
	if contentNode != nil && e.Action != Accept {
		return p.fail(contentNode, "content", "only an accept carries content, this entry says %s", e.Action)
	}
	if contentNode != nil && e.Match.Mode == ModeURL {
		return p.fail(contentNode, "content", "a url-mode answer carries no content")
	}
	return p.checkSampling(n, e, contentNode)
}

// match reads the match mapping of an entry.
func (p entryParser) match(v *tree.Node) (ScriptMatch, error) {
	var m ScriptMatch
	if v.Kind == tree.KindNull {
		return m, nil
	}
	if v.Kind != tree.KindObject {
		return m, p.fail(v, "match", "must be a mapping, not %s", nodeKind(v))
	}
	for i, k := range v.Keys {
		mv := v.Values[i]
		field := "match." + k
		switch k {
		case "server", "tool", "message":
			if !isScalar(mv) {
				return m, p.fail(mv, field, "must be a string, not %s", nodeKind(mv))
			}
			switch k {
			case "server":
				m.Server = mv.Str
			case "tool":
				m.Tool = mv.Str
			default:
				m.Message = mv.Str
			}
		case "mode":
			if !isScalar(mv) || (mv.Str != "form" && mv.Str != "url") {
				return m, p.fail(mv, field, "must be form or url, not %s", nodeKind(mv))
			}
			m.Mode = Mode(mv.Str)
		case "fields":
			if mv.Kind != tree.KindArray {
				return m, p.fail(mv, field, "must be a list of property names, not %s", nodeKind(mv))
			}
			for _, f := range mv.Items {
				if !isScalar(f) {
					return m, p.fail(f, field, "must be a list of property names, not a list of %s", nodeKind(f))
				}
				m.Fields = append(m.Fields, f.Str)
			}
		default:
			return m, &scriptError{name: p.name, line: v.KeyLocs[i].Line, entry: p.idx, field: "match",
				msg: fmt.Sprintf("unknown key %q (want server, tool, message, mode or fields)", k)}
		}
	}
	return m, nil
}

// action reads accept, decline or cancel.
func (p entryParser) action(v *tree.Node) (Action, error) {
	if isScalar(v) {
		switch a := Action(v.Str); a {
		case Accept, Decline, Cancel:
			return a, nil
		}
	}
	return "", p.fail(v, "action", "must be accept, decline or cancel, not %s", nodeKind(v))
}

// content reads the content mapping of an accept; content: {} is an accept without
// content (nil).
func (p entryParser) content(v *tree.Node) (map[string]any, error) {
	if v.Kind != tree.KindObject {
		return nil, p.fail(v, "content", "must be a mapping of property names to values, not %s", nodeKind(v))
	}
	if len(v.Keys) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(v.Keys))
	for i, k := range v.Keys {
		val, err := nodeValue(v.Values[i])
		if err != nil {
			return nil, p.fail(v.Values[i], "content."+k, "%v", err)
		}
		out[k] = val
	}
	return out, nil
}

// times reads a positive whole number.
func (p entryParser) times(v *tree.Node) (int, error) {
	if v.Kind != tree.KindNumber || v.Tag != "!!int" || !v.IsInt() || v.Num < 1 || v.Num > math.MaxInt32 {
		return 0, p.fail(v, "times", "must be a positive whole number, not %s", nodeKind(v))
	}
	return int(v.Num), nil
}

// isScalar reports whether n is a string, number or boolean (not null).
func isScalar(n *tree.Node) bool {
	return n.Kind == tree.KindString || n.Kind == tree.KindNumber || n.Kind == tree.KindBool
}

// nodeKind describes a value in errors: "a mapping", "a list", "null" or the value.
func nodeKind(n *tree.Node) string {
	switch n.Kind {
	case tree.KindObject:
		return "a mapping"
	case tree.KindArray:
		return "a list"
	case tree.KindNull:
		return "null"
	}
	return fmt.Sprintf("the value %q", n.Str)
}

// nodeValue converts a YAML value to the JSON-shaped values the engine validates:
// strings (timestamps stay the text written), int64, float64, bool, nil, []any and
// map[string]any.
func nodeValue(n *tree.Node) (any, error) {
	switch n.Kind {
	case tree.KindNull:
		return nil, nil
	case tree.KindBool:
		return n.Bool, nil
	case tree.KindString:
		return n.Str, nil
	case tree.KindNumber:
		if n.Tag == "!!int" {
			if i, err := strconv.ParseInt(n.Str, 0, 64); err == nil {
				return i, nil
			}
		}
		if math.IsInf(n.Num, 0) || math.IsNaN(n.Num) {
			return nil, fmt.Errorf("%s is not a JSON number", n.Str)
		}
		return n.Num, nil
	case tree.KindArray:
		out := make([]any, 0, len(n.Items))
		for _, c := range n.Items {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	out := make(map[string]any, len(n.Keys))
	for i, k := range n.Keys {
		v, err := nodeValue(n.Values[i])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
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
		if e.matches(req) {
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
	if req.Mode == ModeSampling {
		var err error
		if resp, note, err = s.sample(req, e, idx); err != nil {
			return Response{}, err
		}
	} else if req.Mode == ModeURL {
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
		form := req.ParsedForm()
		vs := unknownKeys(e.Content, form, fmt.Sprintf("%s entry %d", s.name, idx+1))
		resp.Content = copyContent(e.Content)
		if err := expandSecrets(resp.Content, opts.LookupEnv); err != nil {
			return Response{}, fmt.Errorf("%s entry %d: %w", s.name, idx+1, err)
		}
		files, err := s.readFiles(resp.Content, form)
		if err != nil {
			return Response{}, fmt.Errorf("%s entry %d: %w", s.name, idx+1, err)
		}
		resp.Files = files
		for _, list := range files {
			for _, fi := range list {
				if note != "" {
					note += "; "
				}
				note += "file " + fi.String()
			}
		}
		if len(vs) > 0 && !req.NoValidate {
			// Every violation of the entry at once, not only its unknown keys.
			vs = append(vs, form.Check(form.Merge(resp.Content))...)
			return Response{}, &ViolationsError{Violations: vs}
		}
	}
	if opts.Log != nil {
		line := fmt.Sprintf("elicitty: %s asked %q -> %s (%s entry %d)", oneLine(req.ServerLabel(), 80), oneLine(req.Message, 120), resp.Action, s.name, idx+1)
		if note != "" {
			line += ": " + safe.Block(note)
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

func (e *ScriptEntry) matches(req *Request) bool {
	if (e.Kind == kindSampling) != (req.Mode == ModeSampling) {
		return false
	}
	return e.Match.matches(req)
}

func (m ScriptMatch) matches(req *Request) bool {
	if m.Server != "" && !glob(m.Server, req.Server) && (req.ServerInfo == "" || !glob(m.Server, req.ServerInfo)) {
		return false
	}
	if m.Tool != "" && !glob(m.Tool, req.Tool) {
		return false
	}
	if m.Message != "" && !glob(m.Message, req.Message) && !anyGlob(m.Message, req.Sampling) {
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
		form := req.ParsedForm()
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
	if req.ServerInfo != "" && req.ServerInfo != req.Server {
		fmt.Fprintf(&b, " (serverInfo %q)", oneLine(req.ServerInfo, 60))
	}
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
	s = strings.Join(strings.Fields(safe.Block(s)), " ")
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
