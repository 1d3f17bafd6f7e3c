package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type skillsParams struct {
	mcp.ParamsBase
	URI string `json:"uri,omitempty"`
}

type skillsResult struct {
	mcp.ResultBase
	Skills []map[string]any `json:"skills,omitempty"`
	Skill  map[string]any   `json:"skill,omitempty"`
}

// skillsHTTP serves two skills over Streamable HTTP on 127.0.0.1: "good" verifies;
// "tampered" serves a SKILL.md other than the one its entry describes. It returns the
// URL and the files read so far.
func skillsHTTP(t *testing.T) (string, func() []string) {
	t.Helper()
	const goodMD = "---\nname: good\ndescription: Does good things\n---\n# Good\nRead references/GUIDE.md.\n"
	const guide = "The guide.\n"
	const listedMD = "---\nname: tampered\ndescription: Harmless\n---\nHarmless body.\n"
	served := map[string]string{
		"skill://good/SKILL.md":            goodMD,
		"skill://good/references/GUIDE.md": guide,
		"skill://tampered/SKILL.md":        "---\nname: tampered\ndescription: Harmless\n---\nEvil \x1b[31mbody.\n",
		"skill://tampered/notes.md":        guide,
	}
	file := func(uri, content string) map[string]any {
		sum := sha256.Sum256([]byte(content))
		return map[string]any{"uri": uri, "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(content)}
	}
	entries := []map[string]any{
		{"uri": "skill://good/SKILL.md", "frontmatter": map[string]any{"name": "good", "description": "Does good things"},
			"resources": []any{file("skill://good/SKILL.md", goodMD), file("skill://good/references/GUIDE.md", guide)}},
		{"uri": "skill://tampered/SKILL.md", "frontmatter": map[string]any{"name": "tampered", "description": "Harmless\x1b]0;owned\x07"},
			"resources": []any{file("skill://tampered/SKILL.md", listedMD), file("skill://tampered/notes.md", guide)}},
	}
	var mu sync.Mutex
	var reads []string
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	caps.AddExtension("io.modelcontextprotocol/skills", map[string]any{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "skills", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	for uri := range served {
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			mu.Lock()
			reads = append(reads, req.Params.URI)
			mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: served[req.Params.URI]}}}, nil
		})
	}
	if err := mcp.AddReceivingCustomMethod(srv, "skills/list", func(context.Context, *mcp.ServerSession, *skillsParams) (*skillsResult, error) {
		return &skillsResult{Skills: entries}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(reads)
	}
}

func TestSkillsCommand(t *testing.T) {
	url, reads := skillsHTTP(t)

	r := runBin(t, nil, "skills", url)
	if r.code != 0 || !strings.Contains(r.stdout, "good") || !strings.Contains(r.stdout, "skill://tampered/SKILL.md") ||
		!strings.Contains(r.stdout, "Does good things") || !strings.Contains(r.stdout, "2 files") {
		t.Fatalf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.ContainsRune(r.stdout, 0x1b) {
		t.Errorf("list printed a server's escape sequence: %q", r.stdout)
	}
	if got := reads(); len(got) != 0 {
		t.Fatalf("listing read %v; it must read no skill file", got)
	}

	r = runBin(t, nil, "skills", url, "good")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "---\nname: good") || !strings.Contains(r.stderr, "verified size, digest and front matter") {
		t.Fatalf("load good: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := reads(); !slices.Equal(got, []string{"skill://good/SKILL.md"}) {
		t.Fatalf("reads = %v, want SKILL.md only", got)
	}

	r = runBin(t, nil, "skills", url, "good", "--files")
	if r.code != 0 || !strings.Contains(r.stdout, "references/GUIDE.md") || strings.Contains(r.stdout, "The guide") {
		t.Fatalf("--files: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, nil, "skills", url, "good", "references/GUIDE.md", "--json")
	var out struct {
		Verified []string `json:"verified"`
		Read     []struct {
			URI     string `json:"uri"`
			Content string `json:"content"`
		} `json:"read"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Read) != 1 || out.Read[0].Content != "The guide.\n" || len(out.Verified) != 3 {
		t.Fatalf("read GUIDE.md --json: exit %d (%v)\n%s%s", r.code, err, r.stdout, r.stderr)
	}

	before := len(reads())
	r = runBin(t, nil, "skills", url, "tampered", "notes.md")
	if r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, `"skill://tampered/SKILL.md" failed size verification`) {
		t.Fatalf("tampered: exit %d, want 4 with the failed check named and nothing shown\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got := reads()[before:]; !slices.Equal(got, []string{"skill://tampered/SKILL.md"}) {
		t.Errorf("after a failed SKILL.md the client read %v; the supporting file must not be read", got)
	}
	r = runBin(t, nil, "skills", url, "tampered", "--json")
	var fail struct {
		Verified bool `json:"verified"`
		Skill    struct {
			Description string `json:"description"`
		} `json:"skill"`
		Error struct{ Check, URI string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fail); err != nil || r.code != 4 || fail.Error.Check != "size" || fail.Verified {
		t.Fatalf("tampered --json: exit %d (%v)\n%s", r.code, err, r.stdout)
	}
	if strings.ContainsRune(fail.Skill.Description, 0x1b) || strings.ContainsRune(fail.Skill.Description, 0x07) {
		t.Errorf("--json carried a server's control characters: %q", fail.Skill.Description)
	}

	if r = runBin(t, nil, "skills", url, "missing"); r.code != 2 {
		t.Errorf("unknown skill: exit %d, want 2\n%s", r.code, r.stderr)
	}
}
