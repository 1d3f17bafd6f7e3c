package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport"
)

const (
	goodMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n---\nSkill body.\n"
	formMD = "Supporting content.\n"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillServer is an in-process server offering skills; it records every file read.
type skillServer struct {
	mu    sync.Mutex
	reads []string
	files map[string]string // uri -> content served
	list  []map[string]any  // skills/list entries
}

func (ss *skillServer) readsSoFar() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return slices.Clone(ss.reads)
}

type listParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
	URI    string `json:"uri,omitempty"`
}

type listResult struct {
	mcp.ResultBase
	Skills     []map[string]any `json:"skills,omitempty"`
	Skill      map[string]any   `json:"skill,omitempty"`
	NextCursor string           `json:"nextCursor,omitempty"`
}

// entry builds a skills/list entry for a skill at skill://NAME/ with the given files;
// the manifest describes manifest[uri] (defaults to the served content).
func entry(name string, fm map[string]any, manifest map[string]string) map[string]any {
	var res []any
	keys := make([]string, 0, len(manifest))
	for k := range manifest {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, uri := range keys {
		res = append(res, map[string]any{"uri": uri, "digest": digest(manifest[uri]), "size": len(manifest[uri])})
	}
	return map[string]any{"uri": "skill://" + name + "/SKILL.md", "frontmatter": fm, "resources": res}
}

// start serves ss over Streamable HTTP on 127.0.0.1 and connects a session to it.
func (ss *skillServer) start(t *testing.T, declare bool) *transport.Session {
	t.Helper()
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	if declare {
		caps.AddExtension(Extension, map[string]any{})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "skills", Version: "1.0.0"}, &mcp.ServerOptions{Capabilities: caps})
	for uri := range ss.files {
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			ss.mu.Lock()
			ss.reads = append(ss.reads, req.Params.URI)
			text := ss.files[req.Params.URI]
			ss.mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}}, nil
		})
	}
	must(t, mcp.AddReceivingCustomMethod(srv, "skills/list", func(_ context.Context, _ *mcp.ServerSession, p *listParams) (*listResult, error) {
		// Two pages, to check the client follows the cursor.
		if p.Cursor == "" && len(ss.list) > 1 {
			return &listResult{Skills: ss.list[:1], NextCursor: "page2"}, nil
		}
		if p.Cursor == "page2" {
			return &listResult{Skills: ss.list[1:]}, nil
		}
		return &listResult{Skills: ss.list}, nil
	}))
	must(t, mcp.AddReceivingCustomMethod(srv, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *listParams) (*listResult, error) {
		for _, e := range ss.list {
			if e["uri"] == p.URI {
				return &listResult{Skill: e}, nil
			}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such skill"}
	}))
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s, err := transport.Connect(context.Background(), config.Server{Name: "skills", URL: ts.URL, Kind: config.KindHTTP}, transport.Options{Protocol: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var fm = map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": map[string]any{"version": 2}}

// newServer serves pdf-processing with SKILL.md content skillMD while the manifest
// describes goodMD (so a different skillMD fails size or digest).
func newServer(skillMD string, manifestMD string, entryFM map[string]any) *skillServer {
	return &skillServer{
		files: map[string]string{
			"skill://pdf-processing/SKILL.md":            skillMD,
			"skill://pdf-processing/references/FORMS.md": formMD,
			"skill://other/SKILL.md":                     "---\nname: other\ndescription: Another\n---\n",
		},
		list: []map[string]any{
			entry("pdf-processing", entryFM, map[string]string{
				"skill://pdf-processing/SKILL.md":            manifestMD,
				"skill://pdf-processing/references/FORMS.md": formMD,
			}),
			entry("other", map[string]any{"name": "other", "description": "Another"}, map[string]string{
				"skill://other/SKILL.md": "---\nname: other\ndescription: Another\n---\n",
			}),
		},
	}
}

func TestListReadsNoSkillFile(t *testing.T) {
	ss := newServer(goodMD, goodMD, fm)
	s := ss.start(t, true)
	got, err := List(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name() != "pdf-processing" || got[1].Name() != "other" {
		t.Fatalf("listed %+v, want pdf-processing and other (both pages)", got)
	}
	if p := got[0]; p.Problem != "" || p.Description() != fm["description"] || p.Size() != int64(len(goodMD)+len(formMD)) || len(p.Files) != 2 {
		t.Errorf("entry = %+v", p)
	}
	if r := ss.readsSoFar(); len(r) != 0 {
		t.Errorf("listing read skill files %v; it must read none", r)
	}
}

func TestListWithoutExtension(t *testing.T) {
	s := newServer(goodMD, goodMD, fm).start(t, false)
	if _, err := List(context.Background(), s); !errors.Is(err, ErrNotOffered) {
		t.Errorf("err = %v, want ErrNotOffered", err)
	}
}

func TestLoadVerifiesBeforeUse(t *testing.T) {
	tampered := strings.Replace(goodMD, "Skill body.", "Evil body!!", 1)
	longer := goodMD + "extra bytes\n"
	otherFM := strings.Replace(goodMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
	intVersion := strings.Replace(goodMD, "version: 2", "version: \"2\"", 1)
	for _, tc := range []struct {
		name, served, manifest string
		check                  string
	}{
		{"good", goodMD, goodMD, ""},
		{"digest", tampered, goodMD, CheckDigest},
		{"size", longer, goodMD, CheckSize},
		// The manifest matches the served bytes; only the front matter gives it away.
		{"frontmatter", otherFM, otherFM, CheckFrontmatter},
		{"frontmatter type", intVersion, intVersion, CheckFrontmatter},
		{"no frontmatter", "Skill body.\n", "Skill body.\n", CheckFrontmatter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := newServer(tc.served, tc.manifest, fm)
			s := ss.start(t, true)
			ctx := context.Background()
			list, err := List(ctx, s)
			must(t, err)
			l, err := Load(ctx, s, list[0], nil)
			if tc.check == "" {
				must(t, err)
				if string(l.Content) != goodMD || !slices.Equal(l.Verified, []string{CheckSize, CheckDigest, CheckFrontmatter}) {
					t.Fatalf("loaded %q verified %v", l.Content, l.Verified)
				}
				if sup := l.Supporting(); len(sup) != 1 || sup[0].URI != "skill://pdf-processing/references/FORMS.md" {
					t.Errorf("supporting = %+v", sup)
				}
				if r := ss.readsSoFar(); !slices.Equal(r, []string{"skill://pdf-processing/SKILL.md"}) {
					t.Errorf("reads = %v, want SKILL.md only (no supporting file before asked)", r)
				}
				f, b, err := l.ReadFile(ctx, s, "references/FORMS.md")
				must(t, err)
				if string(b) != formMD || f.Size != int64(len(formMD)) {
					t.Errorf("FORMS.md = %q %+v", b, f)
				}
				var ve *VerifyError
				if _, _, err := l.ReadFile(ctx, s, "../other/SKILL.md"); !errors.As(err, &ve) || ve.Check != CheckUnlisted {
					t.Errorf("unlisted read: err = %v, want an unlisted verification failure", err)
				}
				if r := ss.readsSoFar(); len(r) != 2 {
					t.Errorf("reads = %v: the unlisted file must not be read", r)
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Check != tc.check || ve.URI != "skill://pdf-processing/SKILL.md" {
				t.Fatalf("err = %v, want a %s verification failure of SKILL.md", err, tc.check)
			}
			if l != nil {
				t.Error("a failed skill was returned")
			}
			if r := ss.readsSoFar(); !slices.Equal(r, []string{"skill://pdf-processing/SKILL.md"}) {
				t.Errorf("reads = %v, want SKILL.md only", r)
			}
		})
	}
}

func TestGetAndSupportingFileDigest(t *testing.T) {
	ss := newServer(goodMD, goodMD, fm)
	ss.files["skill://pdf-processing/references/FORMS.md"] = "Supportinq content.\n" // same length, other bytes
	s := ss.start(t, true)
	ctx := context.Background()
	sk, err := Get(ctx, s, "skill://pdf-processing/SKILL.md")
	must(t, err)
	l, err := Load(ctx, s, sk, nil)
	must(t, err)
	var ve *VerifyError
	if _, b, err := l.ReadFile(ctx, s, "skill://pdf-processing/references/FORMS.md"); !errors.As(err, &ve) || ve.Check != CheckDigest || b != nil {
		t.Errorf("tampered supporting file: %q, %v; want a digest failure and no content", b, err)
	}
	if _, err := Get(ctx, s, "skill://nope/SKILL.md"); err == nil {
		t.Error("skills/get of an unknown skill succeeded")
	}
}

func TestInvalidEntriesAreNotLoaded(t *testing.T) {
	for _, tc := range []struct {
		name, json, problem string
	}{
		{"no resources", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"}}`, "resources"},
		{"bad digest", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"md5:00","size":1}]}`, "digest"},
		{"outside", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":1},{"uri":"skill://b/x","digest":"sha256:` + strings.Repeat("0", 64) + `","size":1}]}`, "outside"},
		{"no SKILL.md listed", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[]}`, "SKILL.md"},
		{"too big", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":16777217}]}`, "bytes"},
		{"sizes overflow", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":9223372036854775807},{"uri":"skill://a/b","digest":"sha256:` + strings.Repeat("0", 64) + `","size":9223372036854775807}]}`, "bytes"},
		{"no name", `{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d"},"resources":"dynamic"}`, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := parseEntry([]byte(tc.json))
			if !strings.Contains(s.Problem, tc.problem) {
				t.Errorf("problem = %q, want it to mention %q", s.Problem, tc.problem)
			}
			var ve *VerifyError
			if _, err := Load(context.Background(), nil, s, nil); !errors.As(err, &ve) || ve.Check != CheckEntry {
				t.Errorf("Load = %v, want an entry failure before any read", err)
			}
		})
	}
	dyn := parseEntry([]byte(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}`))
	if dyn.Problem != "" || !dyn.Dynamic {
		t.Fatalf("dynamic entry = %+v", dyn)
	}
	if _, err := Load(context.Background(), nil, dyn, nil); err == nil || !strings.Contains(err.Error(), "dynamic") {
		t.Errorf("dynamic skill loaded without AllowDynamic: %v", err)
	}
}
