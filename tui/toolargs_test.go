package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
)

// bookSchema lists its properties out of alphabetical order, the required one first.
const bookSchema = `{"type":"object","properties":{"zone":{"type":"string","title":"Zone","description":"Where to sit"},"adults":{"type":"integer","title":"Adults"}},"required":["zone"]}`

func bookSession() *fakeSession {
	s := demoSession()
	s.tools = append(s.tools, &mcp.Tool{Name: "book", Description: "Book seats\nfor the show. \x1b[31mRED\x1b[0m",
		InputSchema: json.RawMessage(bookSchema), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	var got []map[string]any
	s.call = func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		got = append(got, args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s called with %d argument(s)", name, len(args))}}}, nil
	}
	return s
}

// TestToolArgumentForm: a tool's arguments are asked in a form of their own, titled
// with the tool, in the schema's order with the required fields marked, reviewed as the
// arguments (not an elicitation reply) and sent with Call; nothing declines. The
// values are remembered for the next call of the tool.
func TestToolArgumentForm(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			b := NewBridge()
			// One server only: with two, the status line shows whichever connected last.
			m := New(t.Context(), b, Options{Servers: demoServers()[:1], dial: connector(bookSession()), NoColor: true,
				Now: func() time.Time { return epoch }})
			tm := runProgramSized(t, m, b, size.w, size.h)
			waitScreen(t, tm, "demo       book")
			tm.Send(testkit.Key("<enter>")) // book, the first tool
			got := screenOf(t, tm, "Zone *")
			testkit.Golden(t, "tool_form_"+size.name, got)
			if !strings.Contains(got, "Arguments for tool book on demo") {
				t.Errorf("form not titled with the tool:\n%s", got)
			}
			if strings.Contains(got, "Input requested by") || strings.Contains(got, "decline") {
				t.Errorf("the argument form looks like an elicitation:\n%s", got)
			}
			if z, a := strings.Index(got, "Zone *"), strings.Index(got, "Adults"); a >= 0 && a < z {
				t.Errorf("fields not in the schema's order:\n%s", got)
			}
			typeInto(tm, "stalls")
			tm.Send(testkit.Key("<enter>"))
			waitScreen(t, tm, "┃ Adults")
			typeInto(tm, "2")
			tm.Send(testkit.Key("<enter>"))
			got = screenOf(t, tm, "Call sends these arguments")
			testkit.Golden(t, "tool_review_"+size.name, got)
			if strings.Contains(got, "Decline") || strings.Contains(got, `"action"`) {
				t.Errorf("review is not an argument review:\n%s", got)
			}
			if z, a := strings.Index(got, `"zone"`), strings.Index(got, `"adults"`); z < 0 || (a >= 0 && a < z) {
				t.Errorf("arguments not in the schema's order:\n%s", got)
			}
			tm.Send(testkit.Key("a"))
			waitScreen(t, tm, "book called with 2 argument(s)")
			tm.Send(testkit.Key("<enter>")) // the same tool again: last values pre-filled
			waitScreen(t, tm, "Zone *")
			tm.Send(testkit.Key("<enter>"))
			waitScreen(t, tm, "┃ Adults")
			tm.Send(testkit.Key("<enter>"))
			waitScreen(t, tm, `"zone": "stalls"`)
			tm.Send(testkit.Key("<down>")) // 60x15 scrolls the review
			waitScreen(t, tm, `"adults": 2`)
		})
	}
}

// screenOf waits for want and returns the whole screen.
func screenOf(t *testing.T, tm *teatest.TestModel, want string) string {
	t.Helper()
	waitScreen(t, tm, want)
	reply := make(chan string, 1)
	tm.Send(probeMsg{reply})
	return <-reply
}

func typeInto(tm *teatest.TestModel, s string) {
	for _, r := range s {
		tm.Send(testkit.Key(string(r)))
	}
}

// TestToolWithoutArgumentsCallsAtOnce: a read-only tool without arguments runs at once,
// no form and no question.
func TestToolWithoutArgumentsCallsAtOnce(t *testing.T) {
	sess := bookSession()
	sess.tools[1].Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true} // deploy
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
	h.run(h.m.Init())
	h.keys("<down>", "<enter>") // deploy: no arguments
	if h.m.args != nil || h.m.confirm != nil {
		t.Fatalf("a form or a question for a read-only tool without arguments:\n%s", h.screen())
	}
	if got := h.screen(); !strings.Contains(got, "deploy called with 0 argument(s)") {
		t.Errorf("deploy not called:\n%s", got)
	}
}

// TestToolWithoutArgumentsAsksUnlessReadOnly: a tool without arguments whose
// annotations do not say readOnlyHint: true, or say destructiveHint: true, asks before
// it runs; y runs it, any other key does not.
func TestToolWithoutArgumentsAsksUnlessReadOnly(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name string
		ann  *mcp.ToolAnnotations
	}{
		{"no annotations", nil},
		{"not read-only", &mcp.ToolAnnotations{Title: "Deploy"}},
		{"read-only but destructive", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := bookSession()
			sess.tools[1].Annotations = tc.ann // deploy
			h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
			h.keys("<down>", "<enter>")
			got := h.screen()
			if strings.Contains(got, "deploy called") {
				t.Fatalf("deploy ran without asking:\n%s", got)
			}
			last := lastLine(got)
			if !strings.Contains(last, "run deploy") || !strings.Contains(last, "y yes") {
				t.Fatalf("no question on the key line:\n%s", got)
			}
			h.keys("<enter>") // not y: not run
			if got := h.screen(); strings.Contains(got, "deploy called") {
				t.Fatalf("enter ran the tool:\n%s", got)
			}
			h.keys("<enter>", "y")
			if got := h.screen(); !strings.Contains(got, "deploy called with 0 argument(s)") {
				t.Errorf("y did not run deploy:\n%s", got)
			}
		})
	}
}

// lastLine is the last line of a screen.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestDescribeTool: d shows a tool's full description, annotations and schema, sanitized.
func TestDescribeTool(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(bookSession())})
	h.run(h.m.Init())
	h.keys("d")
	got := h.screen()
	testkit.Golden(t, "tool_describe", got)
	for _, want := range []string{"Tool book on demo", "for the show.", "readOnlyHint", `"zone": {`, "Where to sit"} {
		if !strings.Contains(got, want) {
			t.Errorf("description lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(h.m.View().Content, "\x1b[31m") {
		t.Errorf("server escape sequence reached the screen")
	}
	if z, a := strings.Index(got, `"zone"`), strings.Index(got, `"adults"`); a >= 0 && a < z {
		t.Errorf("schema not in the server's order:\n%s", got)
	}
	h.keys("<pgdown>")
	if got := h.screen(); !strings.Contains(got, `"required"`) || !strings.Contains(got, "lines 11-29 of 29") {
		t.Errorf("pgdown did not scroll to the end of the schema:\n%s", got)
	}
	h.keys("x")
	if strings.Contains(h.screen(), "Input schema") {
		t.Errorf("a key did not close the description")
	}
	if !strings.Contains(plain(h.m.help.FullHelpView(h.m.keys.FullHelp())), "describe") {
		t.Errorf("help does not show the describe key")
	}
}

// TestRealToolSchemaOrder: over a real transport, the form asks in the order the
// server's tools/list sent, not the decoded map's alphabetical one.
func TestRealToolSchemaOrder(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "booker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(bookSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked"}}}, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close) // after the program's cleanup has closed the session
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "booker", Kind: config.KindHTTP, URL: hs.URL, Protocol: "2025-11-25"}},
		NoColor: true,
	})
	tm := runProgram(t, m, b)
	waitScreen(t, tm, "booker     book")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "Arguments for tool book on booker")
	for _, r := range "front" {
		tm.Send(testkit.Key(string(r)))
	}
	tm.Send(testkit.Key("<enter>")) // zone, the first field
	tm.Send(testkit.Key("<enter>")) // adults, left empty
	waitScreen(t, tm, `"zone": "front"`)
	tm.Send(testkit.Key("a"))
	waitScreen(t, tm, "booked")
}
