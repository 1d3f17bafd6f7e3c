package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/transport/wire"
)

// FuzzServerText feeds server-controlled strings (log entries, tool results) through
// the Log tab and the result renderer: nothing the server sends may reach the terminal
// as a control sequence, and the pane keeps its size.
func FuzzServerText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]52;c;aGk=\x07", "\x1b[2J\x1b[H", "bell\a", "é\u202etxt.exe", `{"a":[1,2,{"b":null}]}`, "\x9b31m"} {
		f.Add(s, s, []byte(`{"jsonrpc":"2.0","id":1}`))
	}
	f.Fuzz(checkServerText)
}

func checkServerText(t *testing.T, method, text string, raw []byte) {
	st := newStyles(true)
	l := newLogPane(10, &st)
	l.SetSize(60, 12)
	e := wire.Entry{Seq: 1, Server: "demo", Dir: wire.In, Method: method, ID: text, Text: text}
	if json.Valid(raw) {
		e.Raw = raw
	}
	l.add([]wire.Entry{e, {Seq: 2, Server: "demo", Dir: wire.Stderr, Text: text}})
	l.move(-1)
	l.toggleOpen()
	res := renderToolResult(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.ResourceLink{Name: method, URI: text}}})
	for name, out := range map[string]string{"log": ansi.Strip(l.View()), "result": res} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 }); i >= 0 {
			t.Fatalf("%s view holds control character %q at %d: %q", name, out[i], i, out)
		}
	}
	if got := strings.Count(l.View(), "\n") + 1; got != 12 {
		t.Fatalf("log view is %d lines, want 12", got)
	}
}
