package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/transport/wire"
)

// rawToolsPage1 and rawToolsPage2 are a two-page tools/list, byte for byte: schemas whose
// property order is not sorted, a number go-sdk's map would turn into a float, a tool
// whose x-mcp-header annotation go-sdk rejects (on an object property), a task tool and
// a null entry.
const (
	rawToolsPage1 = `{"tools":[` +
		`{"name":"first","description":"One.","inputSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","maximum":12345678901234567890}}}},` +
		`null,` +
		`{"name":"headed","inputSchema":{"type":"object","properties":{"where":{"type":"object","x-mcp-header":"Where"}}}},` +
		`{"name":"tasked","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"},"outputSchema":{"type":"object","properties":{"b":{},"a":{}}}}` +
		`],"nextCursor":"p2"}`
	rawToolsPage2 = `{"tools":[{"name":"last","title":"Last","inputSchema":{"type":"object","properties":{"m":{"type":"boolean"},"b":{"type":"boolean"}}}}]}`
)

// TestToolsKeepsWhatTheServerSent lists two pages from a hand-written server: every tool
// is listed in server order, with its schemas exactly as sent, including the one whose
// annotations go-sdk rejects, and the wire log shows the responses as received.
func TestToolsKeepsWhatTheServerSent(t *testing.T) {
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/list" {
			return
		}
		if strings.Contains(string(m.Params), `"p2"`) {
			rs.reply(m.ID, rawToolsPage2)
		} else {
			rs.reply(m.ID, rawToolsPage1)
		}
	})
	log := wire.New(100)
	s := connectRaw(t, tr, Options{Log: log})
	tools, err := s.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); got != "first headed tasked last" {
		t.Fatalf("tools = %q, want first headed tasked last", got)
	}
	schema := func(v any) string {
		raw, ok := v.(json.RawMessage)
		if !ok {
			t.Fatalf("schema is %T, want the raw JSON as sent", v)
		}
		return string(raw)
	}
	if got, want := schema(tools[0].InputSchema), `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","maximum":12345678901234567890}}}`; got != want {
		t.Errorf("first's input schema = %s, want %s", got, want)
	}
	if got, want := schema(tools[2].OutputSchema), `{"type":"object","properties":{"b":{},"a":{}}}`; got != want {
		t.Errorf("tasked's output schema = %s, want %s", got, want)
	}
	if tools[0].OutputSchema != nil {
		t.Errorf("first has output schema %v, want none", tools[0].OutputSchema)
	}
	if tools[3].Title != "Last" || tools[0].Description != "One." {
		t.Errorf("title %q, description %q: not decoded", tools[3].Title, tools[0].Description)
	}
	if got := s.TaskSupport("tasked"); got != TaskSupportRequired {
		t.Errorf("TaskSupport(tasked) = %q", got)
	}
	if got := string(s.InputSchemas()["last"]); got != `{"type":"object","properties":{"m":{"type":"boolean"},"b":{"type":"boolean"}}}` {
		t.Errorf("InputSchemas()[last] = %s", got)
	}
	if err := s.headerRefusal("headed"); err == nil {
		t.Error("headed's invalid x-mcp-header annotation is not refused")
	}
	var logged []string
	for _, e := range findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.In && e.Method == "tools/list" }) {
		logged = append(logged, string(e.Raw))
	}
	if len(logged) != 2 || !strings.Contains(logged[0], rawToolsPage1) || !strings.Contains(logged[1], rawToolsPage2) {
		t.Errorf("the wire log does not hold the responses as received: %q", logged)
	}
}

// TestToolsServedFromCache lists twice from a 2026-07-28 server whose list may be cached
// (ttlMs): go-sdk answers the second listing from its cache, and it still has every tool
// with its schema.
func TestToolsServedFromCache(t *testing.T) {
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, true) || m.Method != "tools/list" {
			return
		}
		rs.reply(m.ID, `{"resultType":"complete","ttlMs":60000,"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"y":{},"x":{}}}},{"name":"b","inputSchema":{"type":"object"}}]}`)
	})
	s := connectRaw(t, tr, Options{Protocol: modern})
	for i := range 2 {
		tools, err := s.Tools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) != 2 || tools[1].Name != "b" {
			t.Fatalf("listing %d: %d tools", i+1, len(tools))
		}
		if raw, _ := tools[0].InputSchema.(json.RawMessage); string(raw) != `{"type":"object","properties":{"y":{},"x":{}}}` {
			t.Fatalf("listing %d: a's schema = %v", i+1, tools[0].InputSchema)
		}
	}
	if n := len(rs.received("tools/list")); n != 1 {
		t.Errorf("the server got %d tools/list requests, want 1 (the second listing from go-sdk's cache)", n)
	}
}

// TestToolsRepeatedCursorFails: a server whose pages lead back to a cursor already
// followed would be listed forever; the listing fails instead.
func TestToolsRepeatedCursorFails(t *testing.T) {
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if handshake(rs, m, false) || m.Method != "tools/list" {
			return
		}
		rs.reply(m.ID, `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"again"}`)
	})
	s := connectRaw(t, tr, Options{})
	_, err := s.Tools(context.Background())
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v, want the repeated cursor named", err)
	}
}

// TestLightToolsResult: go-sdk's copy of a page keeps every member but the tools whose
// input schema cannot hold an x-mcp-header annotation.
func TestLightToolsResult(t *testing.T) {
	pg, light, err := decodeToolPage(json.RawMessage(`{"_meta":{"k":1},"tools":[{"name":"plain","inputSchema":{"type":"object"}},{"name":"h","inputSchema":{"properties":{"p":{"X-MCP-Header":"P"}}}}],"nextCursor":"c","ttlMs":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"_meta":{"k":1},"tools":[{"name":"h","inputSchema":{"properties":{"p":{"X-MCP-Header":"P"}}}}],"nextCursor":"c","ttlMs":5}`; string(light) != want {
		t.Errorf("light result = %s\nwant %s", light, want)
	}
	if len(pg.tools) != 2 || !pg.headerTools["h"] || pg.headerTools["plain"] {
		t.Errorf("page: %d tools, header tools %v", len(pg.tools), pg.headerTools)
	}
	if _, _, err := decodeToolPage(json.RawMessage(`{"tools":[{"name":5}]}`)); err == nil {
		t.Error("a tool name that is a number decoded: go-sdk refuses it")
	}
	if _, light, _ := decodeToolPage(json.RawMessage(`{"tools":[{"name":"h","inputSchema":{"x-mcp-header":1}}]}`)); light != nil {
		t.Errorf("every tool needed by go-sdk, yet the result was rewritten: %s", light)
	}
	// No tool needed by go-sdk: the tools array is emptied, every other member as sent;
	// an empty array is left as sent.
	for in, want := range map[string]string{
		`{"tools":[{"name":"a"},null,{"name":"b"}],"nextCursor":"2"}`: `{"tools":[],"nextCursor":"2"}`,
		`{ "nextCursor" : "x", "tools" : [ {"name":"a"} ] , "z":[1]}`: `{ "nextCursor" : "x", "tools" : [] , "z":[1]}`,
		`{"tools":[ ],"nextCursor":"2"}`:                              ``,
		`{"tools":[]}`:                                                ``,
	} {
		if _, light, err := decodeToolPage(json.RawMessage(in)); err != nil || string(light) != want {
			t.Errorf("light result of %s = %q, %v; want %q", in, light, err, want)
		}
	}
}

func TestMayHaveHeader(t *testing.T) {
	for in, want := range map[string]bool{
		`{"type":"object"}`:                              false,
		`{"properties":{"a":{"x-mcp-header":"A"}}}`:      true,
		`{"properties":{"a":{"X-Mcp-HEADER":"A"}}}`:      true,
		`{"properties":{"a":{"\u0078-mcp-header":"A"}}}`: true,
		`{"description":"x-mcp-head"}`:                   false,
	} {
		if got := mayHaveHeader([]byte(in)); got != want {
			t.Errorf("mayHaveHeader(%s) = %v, want %v", in, got, want)
		}
	}
	if !bytes.Contains([]byte(rawToolsPage1), []byte("x-mcp-header")) {
		t.Fatal("the test page lost its annotated tool")
	}
}
