package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

// BenchmarkFirstFrame measures New plus the first View, with two servers connecting.
func BenchmarkFirstFrame(b *testing.B) {
	opts := Options{Servers: demoServers(), dial: connector(demoSession()), NoColor: true}
	for b.Loop() {
		m := New(b.Context(), NewBridge(), opts)
		_ = m.View()
	}
}

func fiftyFields() json.RawMessage {
	var props []string
	for i := range 50 {
		switch i % 5 {
		case 0:
			props = append(props, fmt.Sprintf(`"text%d":{"type":"string","title":"Text %d","maxLength":40}`, i, i))
		case 1:
			props = append(props, fmt.Sprintf(`"int%d":{"type":"integer","minimum":0,"maximum":100}`, i))
		case 2:
			props = append(props, fmt.Sprintf(`"bool%d":{"type":"boolean","default":true}`, i))
		case 3:
			props = append(props, fmt.Sprintf(`"pick%d":{"type":"string","enum":["a","b","c","d"]}`, i))
		case 4:
			props = append(props, fmt.Sprintf(`"multi%d":{"type":"array","items":{"type":"string","enum":["x","y","z"]}}`, i))
		}
	}
	return json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
}

// BenchmarkView50FieldForm measures the whole screen's View with tui/form's Model
// for a 50-field form open.
func BenchmarkView50FieldForm(b *testing.B) {
	opts := Options{Servers: demoServers(), dial: connector(demoSession()), NoColor: true, NewForm: newForm}
	m := New(b.Context(), NewBridge(), opts)
	m.ticks = false
	req := &elicit.Request{Server: "demo", Message: "Fifty questions.", Schema: fiftyFields()}
	f := elicit.Parse(req.Schema, "")
	if len(f.Fields) != 50 {
		b.Fatalf("parsed %d fields", len(f.Fields))
	}
	m.Update(elicitRequestMsg{id: 1, req: req, form: f, reply: make(chan elicit.Response, 1)})
	if m.active == nil {
		b.Fatal("form not open")
	}
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkLog100k feeds 100,000 entries to the Log tab (kept: 5000) and reports the
// live heap afterwards.
func BenchmarkLog100k(b *testing.B) {
	raw := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	for b.Loop() {
		l := newLogPane(5000, &styles{})
		batch := make([]wire.Entry, 100)
		for seq := 0; seq < 100_000; seq += len(batch) {
			for i := range batch {
				batch[i] = wire.Entry{Seq: uint64(seq + i + 1), Server: "demo", Dir: wire.Out, Method: "tools/call", Size: len(raw), Raw: append(json.RawMessage(nil), raw...)}
			}
			l.add(batch)
		}
		if len(l.ring) != 5000 {
			b.Fatalf("kept %d entries", len(l.ring))
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
		runtime.KeepAlive(l)
	}
}

// tenThousandTools is a listing of 10,000 tools, as catalogMsg carries it.
func tenThousandTools() catalogMsg {
	tools := make([]*mcp.Tool, 10_000)
	schemas := map[string]json.RawMessage{}
	for i := range tools {
		raw := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}}}`)
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("tool-%d", i), Description: fmt.Sprintf("Tool number %d of 10000.", i), InputSchema: raw}
		schemas[tools[i].Name] = raw
	}
	return catalogMsg{server: "demo", tools: tools, schemas: schemas}
}

// benchModel is the TUI on the demo servers at 120x40, without periodic commands.
func benchModel(b *testing.B) *Model {
	opts := Options{Servers: demoServers(), dial: connector(demoSession()), NoColor: true, NewForm: newForm}
	m := New(b.Context(), NewBridge(), opts)
	m.ticks = false
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// BenchmarkCatalog10kTools measures a listing of 10,000 tools reaching the Tools tab
// (catalogMsg, its items sorted and filtered) and the next frame.
func BenchmarkCatalog10kTools(b *testing.B) {
	m, list := benchModel(b), tenThousandTools()
	for b.Loop() {
		m.Update(list)
		_ = m.View()
	}
}

// BenchmarkCatalog10kKey measures one Down key in a Tools tab of 10,000 tools and the
// frame after it: what a person waits for between keys.
func BenchmarkCatalog10kKey(b *testing.B) {
	m := benchModel(b)
	m.Update(tenThousandTools())
	benchKey(b, m, tea.KeyPressMsg{Code: tea.KeyDown})
}

// benchKey measures key and the frame after it on m.
func benchKey(b *testing.B, m *Model, key tea.KeyPressMsg) {
	_ = m.View()
	for b.Loop() {
		m.Update(key)
		_ = m.View()
	}
}

// BenchmarkPending1000Key measures one Down key in a one-field form while 999 more
// requests wait in the inbox, and the frame after it.
func BenchmarkPending1000Key(b *testing.B) {
	m := benchModel(b)
	schema := json.RawMessage(`{"type":"object","properties":{"pick":{"type":"string","enum":["a","b","c","d","e","f"]}}}`)
	for i := range 1000 {
		req := &elicit.Request{Server: "demo", Message: fmt.Sprintf("Request %d.", i), Schema: schema}
		m.Update(elicitRequestMsg{id: reqID(i + 1), req: req, form: elicit.Parse(schema, ""), reply: make(chan elicit.Response, 1)})
	}
	if m.active == nil {
		b.Fatal("form not open")
	}
	benchKey(b, m, tea.KeyPressMsg{Code: tea.KeyDown})
}

// BenchmarkLogKey measures one Up key in the Log tab after 100,000 server stderr lines
// (5,000 kept), and the frame after it.
func BenchmarkLogKey(b *testing.B) {
	m := benchModel(b)
	batch := make([]wire.Entry, 1000)
	for seq := 0; seq < 100_000; seq += len(batch) {
		for i := range batch {
			batch[i] = wire.Entry{Seq: uint64(seq + i + 1), Server: "demo", Dir: wire.Stderr, Text: fmt.Sprintf("log line %d", seq+i+1)}
		}
		m.log.add(batch)
	}
	m.tab = tabLog
	benchKey(b, m, tea.KeyPressMsg{Code: tea.KeyUp})
}
