package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/testkit"
)

// planSchema nests an object, which no form field renders: its arguments are typed as
// JSON.
const planSchema = `{"type":"object","properties":{
 "title":{"type":"string","minLength":3},
 "steps":{"type":"array","items":{"type":"string"}},
 "limits":{"type":"object","properties":{"cpu":{"type":"integer","minimum":1},"zone":{"enum":["eu","us"]}},"required":["zone","cpu"]},
 "dry":{"type":"boolean","default":true}},
 "required":["title","limits"]}`

func planSession(got *[]map[string]any) *fakeSession {
	s := demoSession()
	s.tools = append([]*mcp.Tool{{Name: "batch", Description: "Plan a batch job", InputSchema: json.RawMessage(planSchema)}}, s.tools...)
	s.call = func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		*got = append(*got, args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " called"}}}, nil
	}
	return s
}

func TestJSONSkeleton(t *testing.T) {
	want := `{
  "title": "",
  "limits": {
    "cpu": 0,
    "zone": "eu"
  }
}`
	if got := jsonSkeleton(json.RawMessage(planSchema)); got != want {
		t.Errorf("skeleton:\n%s\nwant:\n%s", got, want)
	}
	for _, raw := range []string{``, `not json`, `{"type":"object"}`, `{"properties":{"a":{}},"required":["a","b"]}`} {
		got := jsonSkeleton(json.RawMessage(raw))
		var v map[string]any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Errorf("skeleton of %q is not a JSON object: %s", raw, got)
		}
	}
}

// TestJSONEditor: a tool whose schema a form cannot render opens a multi-line JSON
// editor with the required members; a syntax error names its line and column, a schema
// violation names the member, and valid arguments are sent.
func TestJSONEditor(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			var got []map[string]any
			h := newHarness(t, Options{Servers: demoServers(), dial: connector(planSession(&got))})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.keys("<enter>") // batch, the first tool
			s := h.screen()
			testkit.Golden(t, "json_editor_"+size.name, s)
			for _, want := range []string{`"title": ""`, `"zone": "eu"`, "ctrl+s call", "esc cancel"} {
				if !strings.Contains(s, want) {
					t.Fatalf("editor lacks %q:\n%s", want, s)
				}
			}
			h.keys("<ctrl+s>") // title too short, cpu below its minimum
			s = h.screen()
			if !strings.Contains(s, "/title") || !strings.Contains(s, "/limits/cpu") || len(got) != 0 {
				t.Fatalf("schema violations not shown, or the call made (%v):\n%s", got, s)
			}
			// Break the JSON: a comma at the start of line 2.
			h.keys("<down>", "<home>")
			h.typeText(",")
			h.keys("<ctrl+s>")
			s = h.screen()
			testkit.Golden(t, "json_editor_error_"+size.name, s)
			if !strings.Contains(s, "line 2, column 1") || len(got) != 0 {
				t.Fatalf("no line and column for the syntax error:\n%s", s)
			}
			// The cursor is on the error: delete the comma, fill the title and the cpu.
			h.keys("<right>", "<backspace>", "<end>", "<left>", "<left>")
			h.typeText("Nightly")
			h.keys("<down>", "<down>", "<end>", "<left>", "<backspace>")
			h.typeText("4")
			h.keys("<ctrl+s>")
			if len(got) != 1 {
				t.Fatalf("no call made:\n%s", h.screen())
			}
			want := map[string]any{"title": "Nightly", "limits": map[string]any{"cpu": json.Number("4"), "zone": "eu"}}
			if diff := cmp.Diff(want, got[0]); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONSkeletonHostileKeys: property names and defaults from the server reach the
// editor with their invisible and bidi characters escaped, as the same JSON value.
func TestJSONSkeletonHostileKeys(t *testing.T) {
	raw := "{\"type\":\"object\",\"properties\":{\"a\\u202eb\":{\"type\":\"string\",\"default\":\"x\\u001b[31my\\u200b\"}},\"required\":[\"a\\u202eb\"]}"
	got := escapeUnprintable(jsonSkeleton(json.RawMessage(raw)))
	if strings.ContainsAny(got, "\u202e\u200b\x1b") {
		t.Fatalf("skeleton shows raw control or bidi characters: %q", got)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil || v["a\u202eb"] != "x\x1b[31my\u200b" {
		t.Errorf("escaped skeleton %s decodes to %#v (%v), want the schema's key and default", got, v, err)
	}
}
