package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
)

// maxListedPages bounds the tools/list pages a session keeps by cursor (a server that
// sends a new cursor on every page and every listing cannot grow it without end).
const maxListedPages = 1024

// toolPage is one tools/list page as elicitty decoded it from the bytes received: the
// tools in server order, each input and output schema kept as sent (json.RawMessage,
// property order and numbers untouched, decoded only when a tool is opened), and each
// tool's execution.taskSupport.
type toolPage struct {
	tools   []*mcp.Tool
	support map[string]string
	// headerTools are the tools handed to go-sdk in its copy of the page (those whose
	// input schema may carry x-mcp-header annotations), by name.
	headerTools map[string]bool
	// inputFiles holds each tool's inputFiles as sent (earlier SEP-2356 draft), by name.
	inputFiles map[string]json.RawMessage
}

// listedTool is a tool as a tools/list result sends it: mcp.Tool, whose fields go-sdk's
// decoder fills as go-sdk would, but with the schemas and execution kept as sent.
type listedTool struct {
	mcp.Tool
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Execution    json.RawMessage `json:"execution,omitempty"`
	// InputFiles is the earlier SEP-2356 draft's map of file arguments (files.go).
	InputFiles json.RawMessage `json:"inputFiles,omitempty"`
}

// decodeToolPage decodes a raw tools/list result once, with go-sdk's own decoder and
// flags (case-sensitive member names), keeping the schemas raw. It also returns the
// result to hand go-sdk: the same members, with "tools" holding only the tools whose
// input schema may carry x-mcp-header annotations (go-sdk needs them to write
// Mcp-Param-* headers), so go-sdk does not decode every schema into maps a second time.
// It fails where go-sdk's decoding of the page would fail. result must be valid JSON:
// the tap hands it the result of a message parseEnvelope accepted.
func decodeToolPage(result json.RawMessage) (*toolPage, json.RawMessage, error) {
	var res struct {
		Tools []*listedTool `json:"tools"`
	}
	if _, err := sjson.Parse(result, &res, sjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return nil, nil, fmt.Errorf("decode tools/list result: %w", err)
	}
	pg := &toolPage{tools: make([]*mcp.Tool, 0, len(res.Tools)), support: map[string]string{}, headerTools: map[string]bool{}}
	var keep []int // indexes, in the raw tools array, of the tools go-sdk gets
	for i, lt := range res.Tools {
		if lt == nil {
			continue // go-sdk drops a null tool too
		}
		t := &lt.Tool
		if len(lt.InputSchema) > 0 && string(lt.InputSchema) != "null" {
			t.InputSchema = lt.InputSchema
		}
		if len(lt.OutputSchema) > 0 && string(lt.OutputSchema) != "null" {
			t.OutputSchema = lt.OutputSchema
		}
		if ex := lt.Execution; len(ex) > 0 && ex[0] == '{' {
			if ts, ok := topSpans(ex)["taskSupport"]; ok {
				if v := jsonrpcio.JSONString(ex[ts.start:ts.end]); v != "" {
					pg.support[t.Name] = v
				}
			}
		}
		if f := lt.InputFiles; len(f) > 0 && f[0] == '{' {
			if pg.inputFiles == nil {
				pg.inputFiles = map[string]json.RawMessage{}
			}
			pg.inputFiles[t.Name] = f
		}
		if mayHaveHeader(lt.InputSchema) {
			keep = append(keep, i)
			pg.headerTools[t.Name] = true
		}
		pg.tools = append(pg.tools, t)
	}
	return pg, lightToolsResult(result, keep), nil
}

// lightToolsResult returns result with its "tools" array cut down to the elements at
// keep, every other member as sent; result is valid JSON.
func lightToolsResult(result json.RawMessage, keep []int) json.RawMessage {
	sp, ok := spansOf(result)["tools"] // valid JSON (see decodeToolPage): not checked again
	if !ok || result[sp.start] != '[' {
		return nil
	}
	arr := result[sp.start:sp.end]
	if len(keep) == 0 { // the usual page: no element is kept, none needs finding
		if emptyArray(arr) {
			return nil // no tool at all: the result as sent
		}
		out := make([]byte, 0, sp.start+len(result)-sp.end+2)
		out = append(out, result[:sp.start]...)
		out = append(out, "[]"...)
		return append(out, result[sp.end:]...)
	}
	elems := arraySpans(arr)
	if len(keep) == len(elems) {
		return nil // go-sdk needs every tool: the result as sent
	}
	out := make([]byte, 0, sp.start+len(result)-sp.end+64)
	out = append(out, result[:sp.start]...)
	out = append(out, '[')
	for n, i := range keep {
		if n > 0 {
			out = append(out, ',')
		}
		e := elems[i]
		out = append(out, result[sp.start+e.start:sp.start+e.end]...)
	}
	out = append(out, ']')
	return append(out, result[sp.end:]...)
}

// emptyArray reports whether a valid JSON array has no element.
func emptyArray(arr []byte) bool {
	s := jsonrpcio.Scanner{B: arr}
	s.Space()
	if !s.Eat('[') {
		return false
	}
	s.Space()
	return s.Eat(']')
}

// arraySpans returns the byte ranges of the elements of a valid JSON array.
func arraySpans(arr []byte) []span {
	s := jsonrpcio.Scanner{B: arr}
	s.Space()
	if !s.Eat('[') {
		return nil
	}
	var out []span
	s.Space()
	for !s.Eat(']') && s.Pos < len(s.B) {
		s.Space()
		vs := s.Pos
		s.SkipValue()
		out = append(out, span{vs, s.Pos})
		s.Space()
		s.Eat(',')
		s.Space()
	}
	return out
}

// mayHaveHeader reports whether a raw input schema may hold an x-mcp-header member:
// the name in any letter case (encoding/json matches member names without case), or
// any \u escape, which could spell it. A schema without either has none, and needs no
// decoding to tell.
func mayHaveHeader(raw []byte) bool {
	return bytes.Contains(raw, []byte(`\u`)) || containsFoldASCII(raw, "x-mcp-header")
}

// containsFoldASCII reports whether b contains the lower-case ASCII word w in any
// letter case.
func containsFoldASCII(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for j < len(w) && b[i+j]|0x20 == w[j]|0x20 {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// noteToolsList decodes each raw tools/list result once as it arrives (from the tap,
// with the cursor its request sent) and keeps the page by cursor for Tools; it returns
// the light result go-sdk gets instead (nil: the result as sent).
func (s *Session) noteToolsList(cursor string, result json.RawMessage) json.RawMessage {
	pg, light, err := decodeToolPage(result)
	if s.http != nil && pg != nil {
		s.http.params.noteTools(pg.tools)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		// go-sdk decodes the page as sent and fails or lists it: Tools uses its list.
		delete(s.listed, cursor)
		return nil
	}
	if s.listed == nil || len(s.listed) >= maxListedPages {
		s.listed = map[string]*toolPage{}
	}
	s.listed[cursor] = pg
	return light
}

// Tools lists every tool (all pages), in server order. The tools are elicitty's own
// decoding of the bytes received (noteToolsList): each InputSchema and OutputSchema is
// the json.RawMessage the server sent. go-sdk still sends each request (cursor, _meta)
// and reads the page's cursor, and keeps the tools it needs for x-mcp-header.
func (s *Session) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	if c := s.Capabilities(); c != nil && c.Tools == nil {
		return nil, nil
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	schemas := map[string]json.RawMessage{}
	support := map[string]string{}
	out, err := listAll(ctx, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		res, err := s.client().ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		s.mu.Lock()
		pg := s.listed[cursor] // from the wire, or the page go-sdk served from its cache
		s.mu.Unlock()
		if pg == nil {
			// elicitty could not decode the page; go-sdk did (it drops the tools whose
			// x-mcp-header annotations it rejects).
			pg = &toolPage{tools: res.Tools}
			for _, t := range res.Tools {
				if raw, err := json.Marshal(t.InputSchema); err == nil {
					schemas[t.Name] = raw
				}
			}
		} else {
			s.noteRejected(pg, res.Tools)
		}
		for _, t := range pg.tools {
			if raw, ok := t.InputSchema.(json.RawMessage); ok {
				schemas[t.Name] = raw
			}
		}
		for k, v := range pg.support {
			support[k] = v
		}
		return pg.tools, res.NextCursor, nil
	})
	if err != nil {
		return out, s.listErr(ctx, "tools/list", err)
	}
	s.toolsListed.Store(true)
	s.mu.Lock()
	s.schemas = schemas
	s.taskSupport = support
	s.mu.Unlock()
	s.noteHeaderProblems(out)
	return out, nil
}

// noteRejected logs the tools of a page that go-sdk dropped from its copy (it rejects
// some x-mcp-header annotations): a client that inspects servers lists them anyway.
func (s *Session) noteRejected(pg *toolPage, kept []*mcp.Tool) {
	if len(pg.headerTools) == 0 {
		return
	}
	have := make(map[string]bool, len(kept))
	for _, t := range kept {
		have[t.Name] = true
	}
	for _, t := range pg.tools {
		if pg.headerTools[t.Name] && !have[t.Name] {
			s.tap.log.Notef(s.server.Name, "tool %q has x-mcp-header annotations go-sdk rejects; listed anyway", t.Name)
		}
	}
}
