package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

// infoSession is a fake session that says what it is (serverInfo).
type infoSession struct{ *fakeSession }

func (s infoSession) ServerInfo() *mcp.Implementation {
	return &mcp.Implementation{Name: "demo-server", Title: "Demo \x1b[31mServer", Version: "1.2.3"}
}

// TestNarrowLayout: at 60x15 the servers pane does not keep a quarter of the width on
// every tab (its words were cut mid-word); the lists take the whole width and the
// status bar counts the servers. Every line fits.
func TestNarrowLayout(t *testing.T) {
	h := started(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	got := h.screen()
	if strings.Contains(got, "│") || strings.Contains(got, "Servers") {
		t.Errorf("the servers pane is drawn at 60 columns:\n%s", got)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if !strings.HasPrefix(lines[1], "demo       deploy  Deploy the service") {
		t.Errorf("the list does not start at the left edge:\n%s", got)
	}
	if status := lines[len(lines)-2]; !strings.Contains(status, "●1 ✗1") {
		t.Errorf("the status bar does not count the servers: %q", status)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := h.screen(); !strings.Contains(got, "Servers") {
		t.Errorf("the servers pane is not drawn at 80 columns:\n%s", got)
	}
}

// TestKeyLinesFit: at 60 columns the key lines show whole keys (the lower-priority
// ones dropped), never a key cut by "…".
func TestKeyLinesFit(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := started(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			check := func(what, line string) {
				t.Helper()
				if strings.HasSuffix(strings.TrimSpace(line), "…") || ansi.StringWidth(line) > size.w {
					t.Errorf("%s: the key line is cut: %q", what, line)
				}
			}
			check("Tools", lastLine(h.screen()))
			if l := lastLine(h.screen()); !strings.Contains(l, "? help") || !strings.Contains(l, "q quit") {
				t.Errorf("the key line lacks help and quit: %q", l)
			}
			h.keys("e") // server details
			s := strings.Split(strings.TrimSuffix(h.screen(), "\n"), "\n")
			check("details", s[len(s)-3])
			h.keys("<esc>")
			h.keys("i")
			check("Inbox", lastLine(h.screen()))
		})
	}
}

// TestResultWrapsAtWords: a tool's text result wraps at word boundaries, not mid-word.
func TestResultWrapsAtWords(t *testing.T) {
	const text = "Deployment of the payments service finished successfully; rollback instructions are in the runbook at docs/runbooks/payments-rollback.md."
	sess := demoSession()
	sess.tools = []*mcp.Tool{{Name: "status", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}}
	sess.call = func(context.Context, string, map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.keys("<enter>")
			got := mainArea(h.screen())
			for _, word := range strings.Fields(text) {
				if !strings.Contains(got, strings.TrimSuffix(word, ".")) {
					t.Errorf("the word %q is cut:\n%s", word, got)
				}
			}
		})
	}
}

// TestTwoLocalServersToldApart: two servers on 127.0.0.1 read apart in the lists and
// the servers pane: the port is kept where the name is cut.
func TestTwoLocalServersToldApart(t *testing.T) {
	a, b := demoSession(), demoSession()
	a.name, b.name = "127.0.0.1:18765", "127.0.0.1:18766"
	servers := []config.Server{{Name: a.name, URL: "http://127.0.0.1:18765/mcp"}, {Name: b.name, URL: "http://127.0.0.1:18766/mcp"}}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := newHarness(t, Options{Servers: servers, dial: connector(a, b)})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			got := h.screen()
			visible(t, got, "127…:18765 deploy", "127…:18766 deploy")
		})
	}
}

// TestServerDetails: e shows how the server is reached (command or URL), what it says
// it is (serverInfo, sanitized) and the last lines it wrote on stderr.
func TestServerDetails(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			sess := demoSession()
			h := newHarness(t, Options{Servers: demoServers(), dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, ev func(transport.Event)) (session, error) {
				if srv.Name == "demo" {
					return infoSession{sess}, nil
				}
				return connector()(ctx, srv, a, ev)
			}})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.send(logEntriesMsg{
				{Seq: 1, Server: "demo", Dir: wire.Stderr, Text: "listening on stdio"},
				{Seq: 2, Server: "broken", Dir: wire.Stderr, Text: "not this one"},
				{Seq: 3, Server: "demo", Dir: wire.Stderr, Text: "warning: cache is cold\x1b[2J"},
			})
			h.keys("e")
			got := h.screen()
			visible(t, got, "command: elicitty serve", "server: Demo Server 1.2.3", "listening on stdio", "warning: cache is cold")
			if strings.Contains(got, "not this one") || strings.Contains(h.m.View().Content, "\x1b[2J") || strings.Contains(h.m.View().Content, "\x1b[31m") {
				t.Errorf("another server's stderr or an escape sequence shown:\n%s", got)
			}
			h.keys("<esc>", "s", "s") // broken
			h.keys("e")
			visible(t, h.screen(), "url: http://127.0.0.1:9/mcp")
		})
	}
}

// TestResultSummariesStayOneLine: a newline or control in an image's MIME type or a
// resource link's name cannot print a line that looks like elicitty's: line breaks
// show escaped (safe.Field), controls and bidi characters go.
func TestResultSummariesStayOneLine(t *testing.T) {
	got := renderToolResult(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{MIMEType: "image/png\nelicitty: all good\u202e", Data: []byte{1}},
		&mcp.AudioContent{MIMEType: "audio/wav\r\x1b[2Jx", Data: []byte{1}},
		&mcp.ResourceLink{Name: "doc\nelicitty: fake", URI: "file:///a\u2028b"},
	}})
	want := `[image image/png\nelicitty: all good, 1 bytes]` + "\n" + `[audio audio/wav\rx, 1 bytes]` + "\n" + `[resource link doc\nelicitty: fake file:///a\u2028b]`
	if got != want {
		t.Errorf("summaries:\n got %q\nwant %q", got, want)
	}
}

// TestWordWrap: words move to the next line whole; a word longer than a line is cut
// after a slash or the like, and starts where it falls when half a line is left.
func TestWordWrap(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want []string
	}{
		{"rollback instructions are in docs/runbooks/rollback.md", 30, []string{"rollback instructions are in", "docs/runbooks/rollback.md"}},
		{"can push elicitation/create", 16, []string{"can push", "elicitation/", "create"}},
		{`accepted: {"name":"Grace","seats":5}`, 20, []string{`accepted: {"name":`, `"Grace","seats":5}`}},
		{"  indented text wraps under its indent", 16, []string{"  indented text", "  wraps under", "  its indent"}},
	} {
		if got := wordWrap(tc.s, tc.w); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wordWrap(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}
