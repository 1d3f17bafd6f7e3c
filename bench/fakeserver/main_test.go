package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// client drives a server over pipes, one JSON line at a time.
type client struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func newClient(t *testing.T, s *server) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s.out = bufio.NewWriter(outW)
	done := make(chan error, 1)
	go func() { done <- s.serve(inR) }()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close() // a write nobody reads fails instead of blocking
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("serve did not end at the end of its input")
		}
	})
	return &client{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<16)}
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read returns the next message the server writes.
func (c *client) read() map[string]any {
	c.t.Helper()
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("not JSON: %q: %v", line, err)
	}
	return m
}

func newServer(tools, enum, fields, pending int) *server {
	s := &server{pages: pages(tools, enum > 0, fields > 0, pending > 0), enum: enum, fields: fields, pending: pending, waiting: map[string]chan reply{}}
	if enum > 0 {
		s.pickSchema = pickSchema(enum, false)
	}
	if fields > 0 {
		s.fillSchema = fillSchema(fields)
	}
	return s
}

// TestListAndCall: initialize echoes the client's version, tools/list pages through
// every tool by cursor (the extra tools last), a tool-N call answers "ok", an unknown
// method is refused.
func TestListAndCall(t *testing.T) {
	c := newClient(t, newServer(250, 3, 0, 2))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if r := c.read()["result"].(map[string]any); r["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize answered %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var names []string
	cursor := ""
	for id := 2; ; id++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		res := c.read()["result"].(map[string]any)
		for _, tl := range res["tools"].([]any) {
			tool := tl.(map[string]any)
			names = append(names, tool["name"].(string))
			if tool["name"] == "tool-7" && (tool["description"] != "Tool number 7 of 250." || tool["inputSchema"].(map[string]any)["type"] != "object") {
				t.Errorf("tool-7 is %v", tool)
			}
		}
		next, _ := res["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(names) != 252 || names[0] != "tool-0" || names[249] != "tool-249" || names[250] != "pick" || names[251] != "flood" {
		t.Fatalf("listed %d tools (%v ... %v)", len(names), names[:2], names[len(names)-3:])
	}
	c.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"tool-3","arguments":{}}}`)
	if m := c.read(); m["id"] != "c" || !strings.Contains(fmt.Sprint(m["result"]), "ok") {
		t.Errorf("tools/call answered %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":9,"method":"nope"}`)
	if m := c.read(); m["error"].(map[string]any)["code"] != float64(-32601) {
		t.Errorf("unknown method answered %v", m)
	}
}

// TestPickAndFlood: the pick tool asks for one of its options and returns the action;
// the flood tool sends all its requests at once and returns every action.
func TestPickAndFlood(t *testing.T) {
	c := newClient(t, newServer(0, 3, 0, 2))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	c.read()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pick"}}`)
	req := c.read()
	p := req["params"].(map[string]any)
	schema, _ := json.Marshal(p["requestedSchema"])
	if req["method"] != "elicitation/create" || p["message"] != "Pick one" || p["mode"] != "form" ||
		string(schema) != `{"properties":{"pick":{"enum":["option-0","option-1","option-2"],"title":"Pick one","type":"string"}},"required":["pick"],"type":"object"}` {
		t.Fatalf("pick sent %v", req)
	}
	id, _ := json.Marshal(req["id"])
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"pick":"option-1"}}}`, id))
	if m := c.read(); m["id"] != float64(2) || !strings.Contains(fmt.Sprint(m["result"]), "accept") {
		t.Fatalf("pick answered %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood"}}`)
	var ids []string
	for range 2 {
		r := c.read()
		if r["method"] != "elicitation/create" || !strings.HasPrefix(r["params"].(map[string]any)["message"].(string), "Request ") {
			t.Fatalf("flood sent %v", r)
		}
		b, _ := json.Marshal(r["id"])
		ids = append(ids, string(b))
	}
	for _, id := range ids {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"decline"}}`, id))
	}
	if m := c.read(); m["id"] != float64(3) || !strings.Contains(fmt.Sprint(m["result"]), "decline decline") {
		t.Fatalf("flood answered %v", m)
	}
}

// TestFill: the fill tool asks for a form of its fields, in order, and returns the action;
// it is listed after tool-N.
func TestFill(t *testing.T) {
	c := newClient(t, newServer(2, 0, 3, 0))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	c.read()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if tools := c.read()["result"].(map[string]any)["tools"].([]any); len(tools) != 3 || tools[2].(map[string]any)["name"] != "fill" {
		t.Fatalf("listed %v", tools)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fill"}}`)
	req := c.read()
	p := req["params"].(map[string]any)
	want := `{"type":"object","properties":{"field-0":{"type":"string","title":"Field 0"},"field-1":{"type":"string","title":"Field 1"},"field-2":{"type":"string","title":"Field 2"}}}`
	if req["method"] != "elicitation/create" || p["message"] != "Fill the form" || string(fillSchema(3)) != want || !json.Valid(fillSchema(3)) {
		t.Fatalf("fill sent %v", req)
	}
	id, _ := json.Marshal(req["id"])
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"cancel"}}`, id))
	if m := c.read(); m["id"] != float64(3) || !strings.Contains(fmt.Sprint(m["result"]), "cancel") {
		t.Fatalf("fill answered %v", m)
	}
}

// TestTitledPickSchema: with -titled the pick tool offers the same values as a oneOf
// of {const, title} choices.
func TestTitledPickSchema(t *testing.T) {
	var schema struct {
		Properties struct {
			Pick struct {
				OneOf []struct{ Const, Title string }
				Enum  []string
			}
		}
	}
	if err := json.Unmarshal(pickSchema(3, true), &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Properties.Pick
	if len(p.OneOf) != 3 || p.Enum != nil || p.OneOf[2].Const != "option-2" || p.OneOf[2].Title != "Option 2" {
		t.Errorf("titled pick schema: %+v", p)
	}
}
