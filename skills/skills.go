// Package skills lists and loads the skills a server serves through the Skills extension
// (io.modelcontextprotocol/skills, SEP-2640): skills/list and skills/get give each skill's
// entry (its SKILL.md URI, front matter and a manifest of files with sha256 digests and
// sizes), and the files themselves are read with resources/read.
//
// Listing reads no file. Load reads SKILL.md and verifies its size, digest and front
// matter against the entry before returning anything; ReadFile reads one supporting file
// of a loaded skill, only if the entry lists it, and verifies it the same way.
package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/transport"
)

// Extension is the extension identifier servers declare in capabilities.extensions.
const Extension = "io.modelcontextprotocol/skills"

// Limits every host must support (SEP-2640 "Limits"); larger skills are declined.
const (
	MaxFiles     = 512
	MaxTotalSize = 16 << 20
)

// Bounds on a listing, so a server cannot make a listing endless.
const (
	maxPages   = 100
	maxEntries = 10000
)

// ErrNotOffered reports a server that does not declare the Skills extension.
var ErrNotOffered = errors.New("server does not offer skills (no " + Extension + " extension in its capabilities)")

// Conn is what this package needs of a session; *transport.Session implements it.
type Conn interface {
	Capabilities() *mcp.ServerCapabilities
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, []transport.Round, error)
}

var _ Conn = (*transport.Session)(nil)

// File is one file of a skill's manifest.
type File struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Skill is one skill entry as the server sent it, checked but not trusted.
type Skill struct {
	// URI is the URI of the skill's SKILL.md.
	URI string
	// Frontmatter is the entry's front matter, decoded from JSON (nil when absent).
	Frontmatter map[string]any
	// Files is the manifest (SKILL.md included); nil when Dynamic.
	Files []File
	// Dynamic is set when the server publishes no digests ("resources": "dynamic").
	Dynamic bool
	// Problem says why the entry cannot be loaded; "" for a valid entry.
	Problem string
}

// Name returns the skill's name: the front matter name, else the URI's last directory.
func (s *Skill) Name() string {
	if n, ok := s.Frontmatter["name"].(string); ok && n != "" {
		return n
	}
	root := s.Root()
	return root[strings.LastIndexByte(root, '/')+1:]
}

// Description returns the front matter description, or "".
func (s *Skill) Description() string {
	d, _ := s.Frontmatter["description"].(string)
	return d
}

// Root returns the skill's directory URI: URI without its /SKILL.md suffix.
func (s *Skill) Root() string { return strings.TrimSuffix(s.URI, "/SKILL.md") }

// Size returns the sum of the manifest's sizes (0 when Dynamic).
func (s *Skill) Size() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Size
	}
	return n
}

// file returns the manifest entry for uri.
func (s *Skill) file(uri string) (File, bool) {
	for _, f := range s.Files {
		if f.URI == uri {
			return f, true
		}
	}
	return File{}, false
}

// Offered reports whether c's server declares the Skills extension.
func Offered(c Conn) bool {
	caps := c.Capabilities()
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[Extension]
	return ok
}

// List returns every skill the server lists (all pages). It reads no skill file.
func List(ctx context.Context, c Conn) ([]Skill, error) {
	if !Offered(c) {
		return nil, ErrNotOffered
	}
	var out []Skill
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return out, fmt.Errorf("skills/list: more than %d pages", maxPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.Request(ctx, "skills/list", params)
		if err != nil {
			return out, err
		}
		var res struct {
			Skills     []json.RawMessage `json:"skills"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return out, fmt.Errorf("skills/list: invalid result: %w", err)
		}
		for _, e := range res.Skills {
			if len(out) == maxEntries {
				return out, fmt.Errorf("skills/list: more than %d skills", maxEntries)
			}
			out = append(out, parseEntry(e))
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return out, fmt.Errorf("skills/list: the server repeated cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// Get returns the entry of the skill whose SKILL.md is at uri (skills/get), for a
// skill the listing does not show.
func Get(ctx context.Context, c Conn, uri string) (Skill, error) {
	if !Offered(c) {
		return Skill{}, ErrNotOffered
	}
	raw, err := c.Request(ctx, "skills/get", map[string]any{"uri": uri})
	if err != nil {
		return Skill{}, err
	}
	var res struct {
		Skill json.RawMessage `json:"skill"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Skill) == 0 {
		return Skill{}, fmt.Errorf("skills/get: invalid result: no skill entry")
	}
	s := parseEntry(res.Skill)
	if s.URI != uri && s.Problem == "" {
		s.Problem = fmt.Sprintf("skills/get answered for %q, not the requested URI", s.URI)
	}
	return s, nil
}

var digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// parseEntry decodes one entry and records the first reason it cannot be loaded.
func parseEntry(raw json.RawMessage) Skill {
	var e struct {
		URI         *string         `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return Skill{Problem: "the entry is not a JSON object"}
	}
	var s Skill
	if e.URI != nil {
		s.URI = *e.URI
	}
	_ = json.Unmarshal(e.Frontmatter, &s.Frontmatter)
	problem := func(format string, args ...any) Skill {
		if s.Problem == "" {
			s.Problem = fmt.Sprintf(format, args...)
		}
		return s
	}
	switch {
	case s.URI == "":
		return problem("the entry has no uri")
	case !strings.HasSuffix(s.URI, "/SKILL.md") || !strings.Contains(s.URI, "://"):
		return problem("uri does not name a SKILL.md")
	case s.Frontmatter == nil:
		return problem("the entry has no frontmatter object")
	}
	if n, _ := s.Frontmatter["name"].(string); n == "" {
		return problem("frontmatter has no name")
	}
	if d, _ := s.Frontmatter["description"].(string); d == "" {
		return problem("frontmatter has no description")
	}
	var dyn string
	if json.Unmarshal(e.Resources, &dyn) == nil {
		if dyn != "dynamic" {
			return problem("resources is neither a list nor \"dynamic\"")
		}
		s.Dynamic = true
		return s
	}
	var files []json.RawMessage
	if len(e.Resources) == 0 || json.Unmarshal(e.Resources, &files) != nil || files == nil {
		return problem("resources is neither a list nor \"dynamic\"")
	}
	var total int64
	seen := map[string]bool{}
	for i, fr := range files {
		var f File
		if err := json.Unmarshal(fr, &f); err != nil {
			return problem("resources[%d] is not a file entry (uri, digest, integer size)", i)
		}
		s.Files = append(s.Files, f)
		switch {
		case f.URI == "":
			return problem("resources[%d] has no uri", i)
		case seen[f.URI]:
			return problem("resources lists %q twice", f.URI)
		case !digestRE().MatchString(f.Digest):
			return problem("resources[%d] digest is not sha256:<64 lowercase hex>", i)
		case f.Size < 0:
			return problem("resources[%d] size is negative", i)
		case f.Size > MaxTotalSize:
			return problem("%q is %d bytes, more than the %d every host supports", f.URI, f.Size, MaxTotalSize)
		case f.URI != s.URI && !within(s.Root(), f.URI):
			return problem("resources lists %q, which is outside the skill", f.URI)
		}
		seen[f.URI] = true
		total += f.Size
	}
	switch {
	case !seen[s.URI]:
		return problem("resources does not list the SKILL.md itself")
	case len(s.Files) > MaxFiles:
		return problem("the skill has %d files, more than the %d every host supports", len(s.Files), MaxFiles)
	case total > MaxTotalSize:
		return problem("the skill's files total %d bytes, more than the %d every host supports", total, MaxTotalSize)
	}
	return s
}

// within reports whether uri names a file under the directory root (no dot segments).
func within(root, uri string) bool {
	rest, ok := strings.CutPrefix(uri, root+"/")
	if !ok || rest == "" {
		return false
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
