package elicit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/elicitty/elicitty/internal/safe"
)

// Recorder is an Answerer that records every answer its inner Answerer gives, for
// --record FILE. What it writes is an answers file (ScriptEntry list) that replays the
// session: one entry per answer, matched on server, tool and message, used once, in
// answer order. Place it inside the Engine (NewEngine(NewRecorder(bridge), ...)) so the
// recorded content is what the user gave; the replay merges defaults again. Answers
// that end in an error are not recorded. The zero value is not usable; build one with
// NewRecorder. It is safe for concurrent use.
type Recorder struct {
	inner Answerer

	mu      sync.Mutex
	entries []ScriptEntry
	secrets []string // SecretEnv names written instead of values
}

// NewRecorder wraps inner.
func NewRecorder(inner Answerer) *Recorder { return &Recorder{inner: inner} }

// Answer implements Answerer: it asks inner and records a successful answer.
func (r *Recorder) Answer(ctx context.Context, req *Request) (Response, error) {
	resp, err := r.inner.Answer(ctx, req)
	if err != nil {
		return resp, err
	}
	e := ScriptEntry{Match: matchFor(req), Action: resp.Action, Times: 1}
	var refs []string
	if req.Mode == ModeSampling {
		e.Kind = kindSampling
		if resp.Action == Accept && resp.Sample != nil {
			e.Reply = &ScriptReply{Text: resp.Sample.Text, Model: resp.Sample.Model}
		}
	}
	if resp.Action == Accept && req.Mode != ModeURL && req.Form != nil && len(resp.Content) > 0 {
		e.Content = copyContent(resp.Content)
		// What the user typed into a secret field is not written: a reference to an
		// environment variable is, which the answers-file loader expands.
		for _, fld := range req.Form.Fields {
			if fld.Kind == KindFile {
				recordFile(e.Content, fld, resp.Files[fld.Name])
				continue
			}
			if s, ok := e.Content[fld.Name].(string); ok && fld.Secret && s != "" {
				env := SecretEnv(fld.Name)
				e.Content[fld.Name] = "${" + env + "}"
				refs = append(refs, env)
			}
		}
	}
	r.mu.Lock()
	r.entries = append(r.entries, e)
	for _, env := range refs {
		if !slices.Contains(r.secrets, env) {
			r.secrets = append(r.secrets, env)
		}
	}
	r.mu.Unlock()
	return resp, nil
}

// Entries returns the answers recorded so far.
func (r *Recorder) Entries() []ScriptEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ScriptEntry(nil), r.entries...)
}

// SecretEnvs returns the environment variables the recorded answers refer to instead
// of the secrets the user typed, in first-use order; a replay needs them set.
func (r *Recorder) SecretEnvs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.secrets...)
}

// WriteTo writes the recorded answers as an answers file (YAML).
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	data, err := marshalEntries(r.Entries())
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// WriteFile writes the recorded answers to path, replacing it.
func (r *Recorder) WriteFile(path string) error {
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write answers file: %w", err)
	}
	return nil
}

// marshalEntries encodes entries as YAML that carries no raw control, bidi or
// zero-width character a server sent (in a message, a tool name, a default): strings
// holding one are double-quoted and the character written as a \u escape, so the file
// is safe to print and still matches what it was recorded from.
func marshalEntries(entries []ScriptEntry) ([]byte, error) {
	if len(entries) == 0 {
		return []byte("[]\n"), nil
	}
	var doc yaml.Node
	if err := doc.Encode(entries); err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	quoteUnsafe(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode answers: %w", err)
	}
	return escapeUnsafe(buf.Bytes()), nil
}

// quoteUnsafe double-quotes every string scalar under n that holds a character
// safe.Unsafe reports, so that escapeUnsafe may write it as an escape.
func quoteUnsafe(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && strings.IndexFunc(n.Value, safe.Unsafe) >= 0 {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteUnsafe(c)
	}
}

// escapeUnsafe writes the unsafe characters yaml left raw (it treats bidi, zero-width
// and separators as printable) as \u escapes; they only occur in double-quoted scalars.
func escapeUnsafe(b []byte) []byte {
	if bytes.IndexFunc(b, func(r rune) bool { return r != '\n' && safe.Unsafe(r) }) < 0 {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if r != '\n' && safe.Unsafe(r) {
			fmt.Fprintf(&out, "\\u%04X", r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// matchFor builds the match that selects req: server, tool and message, and url mode.
func matchFor(req *Request) ScriptMatch {
	m := ScriptMatch{Server: req.MatchName(), Tool: req.Tool, Message: req.Message}
	if req.Mode == ModeURL {
		m.Mode = ModeURL
	}
	return m
}

// UnansweredEntry returns the answers-file entry (YAML, a one-item list) that would
// answer req: a match on its server, tool and message, and an accept whose content
// holds the schema defaults and type-appropriate placeholders for required fields
// without one. Headless commands print it when they exit 3.
func UnansweredEntry(req *Request) string {
	e := ScriptEntry{Match: matchFor(req), Action: Accept}
	if req.Mode == ModeSampling {
		e.Kind = kindSampling
		e.Reply = &ScriptReply{Text: "the reply to send", Model: DefaultModel}
	} else if req.Mode == ModeURL {
		f := false
		e.Open = &f
	} else {
		e.Content = AutoAccept(req).Content
		for _, fld := range req.ParsedForm().Fields {
			if fld.Kind == KindFile && fld.Required {
				if e.Content == nil {
					e.Content = map[string]any{}
				}
				e.Content[fld.Name] = map[string]any{"file": "PATH/TO/FILE"}
			}
		}
	}
	data, err := marshalEntries([]ScriptEntry{e})
	if err != nil {
		return fmt.Sprintf("# could not build an answers entry: %v\n", err)
	}
	return string(data)
}

// recordFile writes a file field as file: PATH (the path as chosen, made absolute),
// never its contents; a value whose path is unknown is left out of the record.
func recordFile(content map[string]any, fld Field, files []FileInfo) {
	if _, ok := content[fld.Name]; !ok {
		return
	}
	var list []any
	for _, fi := range files {
		if fi.Path == "" {
			delete(content, fld.Name)
			return
		}
		p := fi.Path
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		list = append(list, map[string]any{"file": p})
	}
	switch {
	case len(list) == 0:
		delete(content, fld.Name)
	case fld.File != nil && fld.File.Multi:
		content[fld.Name] = list
	default:
		content[fld.Name] = list[0]
	}
}
