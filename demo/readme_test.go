package demo

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadmeNamesTheListedTools: demo://readme names exactly the tools the server lists,
// those add_tool added included.
func TestReadmeNamesTheListedTools(t *testing.T) {
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
