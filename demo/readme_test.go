package demo

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsAfterAdd connects to a new demo server, calls add_tool once and returns the
// session and the tools it then lists.
func toolsAfterAdd(t *testing.T) (*mcp.ClientSession, *mcp.ListToolsResult) {
	t.Helper()
	s, _ := newDemo(t)
	cs := connect(t, s, "2025-11-25", inMemory, nil)
	ctx := testCtx(t)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_tool"}); err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, tools
}

// TestReadmeNamesTheListedTools: demo://readme names exactly the tools the server lists,
// those add_tool added included.
func TestReadmeNamesTheListedTools(t *testing.T) {
	cs, tools := toolsAfterAdd(t)
	ctx := testCtx(t)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://readme"})
	if err != nil {
		t.Fatal(err)
	}
	text := rr.Contents[0].Text
	if want := "Tools: " + strings.Join(names, ", ") + ".\n"; !strings.Contains(text, want) || !strings.Contains(text, "added_1") {
		t.Errorf("readme:\n%s\nlacks %q", text, want)
	}
}

// TestToolAnnotations: every tool says whether it changes anything. Those that only
// compute or ask are read-only (a client runs them without asking first); those that
// change the demo's state (add_tool, the account links, deploy) are not, and say they
// only add.
func TestToolAnnotations(t *testing.T) {
	_, tools := toolsAfterAdd(t)
	changing := map[string]bool{"add_tool": true, "deploy": true, "link_account": true, "needs_link": true, "mrtr_url": true}
	seen := 0
	for _, tl := range tools.Tools {
		a := tl.Annotations
		if a == nil {
			t.Errorf("%s has no annotations", tl.Name)
			continue
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint %v, want false (the demo's world is closed)", tl.Name, a.OpenWorldHint)
		}
		if changing[tl.Name] {
			seen++
			if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("%s changes the demo's state, only adding: readOnlyHint %v, destructiveHint %v", tl.Name, a.ReadOnlyHint, a.DestructiveHint)
			}
		} else if !a.ReadOnlyHint {
			t.Errorf("%s changes nothing but is not marked read-only", tl.Name)
		}
	}
	if seen != len(changing) {
		t.Errorf("saw %d of the %d tools that change state", seen, len(changing))
	}
}

// TestReadmeNamesEveryPromptAndResource: demo://readme names every prompt, resource
// and resource template the server lists.
func TestReadmeNamesEveryPromptAndResource(t *testing.T) {
	s, _ := newDemo(t)
	cs := connect(t, s, "2025-11-25", inMemory, nil)
	ctx := testCtx(t)
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://readme"})
	if err != nil {
		t.Fatal(err)
	}
	text := rr.Contents[0].Text
	var names []string
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		names = append(names, r.URI)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range tmpls.ResourceTemplates {
		names = append(names, tm.URITemplate)
	}
	for _, n := range names {
		if !strings.Contains(text, n) {
			t.Errorf("readme does not name %s:\n%s", n, text)
		}
	}
}
