package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// templateSession is the demo fake with a resource template and a prompt whose
// arguments the server completes; it records what it is asked.
type templateSession struct {
	*fakeSession
	mu      sync.Mutex
	asked   []string // "arg=value" per completion/complete
	refs    []transport.CompletionRef
	read    []string
	prompts []map[string]string
	// plain makes the server offer no completions.
	plain bool
}

func newTemplateSession() *templateSession {
	s := &templateSession{fakeSession: demoSession()}
	s.fakeSession.prompts = []*mcp.Prompt{{Name: "greet", Description: "Greets NAME",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "Who to greet", Required: true}}}}
	return s
}

func (s *templateSession) Capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{},
		Resources: &mcp.ResourceCapabilities{}, Completions: &mcp.CompletionCapabilities{}}
}

func (s *templateSession) Resources(context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return []*mcp.Resource{{URI: "demo://readme", Name: "readme", Description: "About the demo"}},
		[]*mcp.ResourceTemplate{{URITemplate: "demo://items/{id}", Name: "item", Title: "Demo item", MIMEType: "text/plain",
			Description: "A made-up item; any id works."}}, nil
}

func (s *templateSession) ReadResource(_ context.Context, uri string) (*mcp.ReadResourceResult, []transport.Round, error) {
	s.mu.Lock()
	s.read = append(s.read, uri)
	s.mu.Unlock()
	id, ok := strings.CutPrefix(uri, "demo://items/")
	if !ok {
		return nil, nil, errors.New("no such resource")
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "item " + id}}}, nil, nil
}

func (s *templateSession) GetPrompt(_ context.Context, name string, args map[string]string) (*mcp.GetPromptResult, []transport.Round, error) {
	s.mu.Lock()
	s.prompts = append(s.prompts, args)
	s.mu.Unlock()
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + args["name"] + "."}}}}, nil, nil
}

func (s *templateSession) SupportsCompletions() bool { return !s.plain }

func (s *templateSession) Complete(_ context.Context, ref transport.CompletionRef, arg, value string, _ map[string]string) (transport.Completion, error) {
	s.mu.Lock()
	s.asked = append(s.asked, arg+"="+value)
	s.refs = append(s.refs, ref)
	s.mu.Unlock()
	from := []string{"1", "2", "3", "4", "7", "12", "42", "404", "4096"}
	if ref.Prompt != "" {
		from = []string{"Ada", "Alan", "Grace"}
	}
	c := transport.Completion{Values: []string{}}
	for _, v := range from {
		if strings.HasPrefix(v, value) {
			c.Values = append(c.Values, v)
		}
	}
	return c, nil
}

func (s *templateSession) record() (asked []string, refs []transport.CompletionRef, read []string, prompts []map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...), append([]transport.CompletionRef(nil), s.refs...), append([]string(nil), s.read...), s.prompts
}

func dialTemplate(s *templateSession) dialFunc {
	return func(_ context.Context, srv config.Server, _ elicit.Answerer, _ func(transport.Event)) (session, error) {
		if srv.Name == s.name {
			return s, nil
		}
		return nil, errors.New("connection refused")
	}
}

// TestTemplateForm: Enter on a resource template opens a form of its variables; what
// is typed brings the server's suggestions, listed under the field with the input and
// the Read button still in view; down and enter take one, and enter reads the URI the
// template makes.
func TestTemplateForm(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			s := newTemplateSession()
			b := NewBridge()
			m := New(t.Context(), b, Options{Servers: demoServers()[:1], dial: dialTemplate(s), NoColor: true,
				Now: func() time.Time { return epoch }})
			tm := runProgramSized(t, m, b, size.w, size.h)
			waitScreen(t, tm, "demo       deploy") // the catalog (tools, prompts, resources) is in
			tm.Send(testkit.Key("<tab>"))
			tm.Send(testkit.Key("<tab>"))
			waitScreen(t, tm, "demo://items/{id}")
			tm.Send(testkit.Key("<enter>")) // the template, first by name
			waitScreen(t, tm, "    7\n")    // ids are suggested at once
			typeInto(tm, "4")
			got := screenOf(t, tm, "    404") // the suggestions for "4" (those for "" stop before it)
			testkit.Golden(t, "template_suggest_"+size.name, got)
			for _, want := range []string{"resources/read demo://items/{id} on demo", "> id* 4▏", "    42", "[ Read ]"} {
				if !strings.Contains(got, want) {
					t.Errorf("screen lacks %q:\n%s", want, got)
				}
			}
			tm.Send(testkit.Key("<down>"))
			tm.Send(testkit.Key("<down>"))
			waitScreen(t, tm, "› 42")
			tm.Send(testkit.Key("<enter>")) // take 42
			waitScreen(t, tm, "URI: demo://items/42")
			tm.Send(testkit.Key("<enter>")) // read
			waitScreen(t, tm, "item 42")
			tm.Send(testkit.Key("<enter>")) // the template again: the last id is filled in
			waitScreen(t, tm, "> id* 42▏")
			tm.Send(testkit.Key("<esc>")) // the list of suggestions
			tm.Send(testkit.Key("<esc>")) // the form: nothing typed, nothing to lose
			waitScreen(t, tm, "demo       demo://readme")
			asked, refs, read, _ := s.record()
			if diff := cmp.Diff([]string{"demo://items/42"}, read); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
			if len(asked) == 0 || asked[len(asked)-1] != "id=4" || refs[0] != (transport.CompletionRef{Resource: "demo://items/{id}"}) {
				t.Errorf("completions asked %q for %v; want the last for id=4 on the template", asked, refs)
			}
		})
	}
}

// TestPromptArgumentCompletions: a prompt's argument form offers the server's
// completions; tab takes the first.
func TestPromptArgumentCompletions(t *testing.T) {
	s := newTemplateSession()
	b := NewBridge()
	m := New(t.Context(), b, Options{Servers: demoServers()[:1], dial: dialTemplate(s), NoColor: true,
		Now: func() time.Time { return epoch }})
	tm := runProgramSized(t, m, b, 80, 24)
	waitScreen(t, tm, "demo       deploy") // the catalog (tools, prompts, resources) is in
	tm.Send(testkit.Key("<tab>"))
	waitScreen(t, tm, "greet")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "Grace")
	typeInto(tm, "A")
	got := screenWhere(t, tm, "the suggestions for A", func(s string) bool {
		return strings.Contains(s, "    Alan") && !strings.Contains(s, "Grace")
	})
	if !strings.Contains(got, "prompts/get greet on demo") || !strings.Contains(got, "[ Get ]") {
		t.Errorf("prompt form:\n%s", got)
	}
	tm.Send(testkit.Key("<tab>")) // the first suggestion
	waitScreen(t, tm, "name* Ada▏")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "Say hello to Ada.")
	_, refs, _, prompts := s.record()
	if diff := cmp.Diff([]map[string]string{{"name": "Ada"}}, prompts); diff != "" {
		t.Errorf("prompt arguments (-want +got):\n%s", diff)
	}
	if len(refs) == 0 || refs[0] != (transport.CompletionRef{Prompt: "greet"}) {
		t.Errorf("completion refs = %v", refs)
	}
}

// TestTemplateDescribe: d on a template shows its URI template, variables and MIME type.
func TestTemplateDescribe(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: dialTemplate(newTemplateSession())})
	h.run(h.m.Init())
	h.keys("<tab>", "<tab>", "d")
	got := h.screen()
	testkit.Golden(t, "template_describe", got)
	for _, want := range []string{"Resource template demo://items/{id} on demo", "URI template", "Variables", "id", "MIME type", "text/plain", "Demo item"} {
		if !strings.Contains(got, want) {
			t.Errorf("description lacks %q:\n%s", want, got)
		}
	}
}

// TestCompleteFormDebounce: keys typed in a row ask once, for the last value; a
// completion for an older value is dropped; what the server sends is shown on one
// line each.
func TestCompleteFormDebounce(t *testing.T) {
	var asked []string
	complete := func(_ context.Context, arg, value string, others map[string]string) (transport.Completion, error) {
		asked = append(asked, value)
		return transport.Completion{Values: []string{value + "0", value + "\x1b[2J\n1"}}, nil
	}
	st := newStyles(true)
	f := newCompleteForm(t.Context(), "demo://items/{id}", "", "Read", []argSpec{{name: "id", required: true}}, nil, complete, &st, ScreenOptions{Width: 40, Height: 10})
	f.Init()
	var ticks []tea.Msg
	for _, k := range []string{"4", "0"} {
		cmd := f.Update(testkit.Key(k))
		ticks = append(ticks, tickOf(t, cmd))
	}
	if cmd := f.Update(ticks[0]); cmd != nil {
		t.Error("an older key's tick asked the server")
	}
	cmd := f.Update(ticks[1])
	if cmd == nil {
		t.Fatal("the last key's tick did not ask the server")
	}
	msg := cmd()
	if diff := cmp.Diff([]string{"40"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	f.Update(testkit.Key("5")) // the value changes before the answer arrives
	f.Update(msg)
	if f.open {
		t.Error("suggestions for an older value were shown")
	}
	f.Update(completionMsg{form: f, seq: f.seq, field: 0, c: transport.Completion{Values: []string{"4050", "405\x1b[2J\n1"}}})
	if diff := cmp.Diff([]string{"4050", "405 1"}, f.sugg); diff != "" || !f.open {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
	if strings.Contains(f.View(), "\x1b[2J") {
		t.Error("a server's control sequence reached the screen")
	}
}

// tickOf runs cmd, which must be the debounce tick, and returns its message.
func tickOf(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command after a key")
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c == nil {
				continue
			}
			if m, ok := c().(completeTickMsg); ok {
				return m
			}
		}
	}
	if m, ok := msg.(completeTickMsg); ok {
		return m
	}
	t.Fatalf("command gave %T, not a debounce tick", msg)
	return nil
}

// screenWhere waits until the frame satisfies ok, failing after 5 s, and returns it.
func screenWhere(t *testing.T, tm *teatest.TestModel, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		reply := make(chan string, 1)
		tm.Send(probeMsg{reply})
		if last = <-reply; ok(last) {
			return last
		}
		time.Sleep(5 * time.Millisecond) // polls the frame; it is not what the test waits for
	}
	t.Fatalf("screen never showed %s:\n%s", what, last)
	return ""
}

// TestAccessibleReadTemplate: in line mode, read with a JSON object fills a template.
func TestAccessibleReadTemplate(t *testing.T) {
	s := newTemplateSession()
	opts := Options{Servers: demoServers(), Accessible: true, dial: dialTemplate(s)}
	opts.defaults()
	in := iotest.OneByteReader(strings.NewReader("read demo demo://items/{id} {\"id\":42}\nread demo demo://items/{id}\nquit\n"))
	var out bytes.Buffer
	if err := runAccessible(t.Context(), opts, in, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"item 42", `"demo://items/{id}" needs id`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, _, read, _ := s.record(); !cmp.Equal([]string{"demo://items/42"}, read) {
		t.Errorf("read %q", read)
	}
}

// TestCompleteFormKeepsInputAndButton: in a short screen with many fields and a long
// suggestion list, the focused input, its first suggestions and the button are in view.
func TestCompleteFormKeepsInputAndButton(t *testing.T) {
	st := newStyles(true)
	var fields []argSpec
	for _, n := range []string{"owner", "repo", "branch", "path", "line", "column"} {
		fields = append(fields, argSpec{name: n, required: true})
	}
	f := newCompleteForm(t.Context(), "demo://{owner}/{repo}/{branch}/{path}/{line}/{column}", "A long description of the template",
		"Read", fields, map[string]any{"column": "7"}, nil, &st, ScreenOptions{Width: 45, Height: 11})
	for range 5 {
		f.Update(testkit.Key("<down>"))
	}
	var many []string
	for i := range 30 {
		many = append(many, fmt.Sprint("7", i))
	}
	f.Update(completionMsg{form: f, seq: f.seq, field: 5, c: transport.Completion{Values: many, Total: 120}})
	got := f.View()
	if n := strings.Count(got, "\n") + 1; n != 11 {
		t.Errorf("view has %d lines, want 11:\n%s", n, got)
	}
	for _, want := range []string{"> column* 7▏", "    70", "    72", "[ Read ]", "more", "↓ choose"} {
		if !strings.Contains(got, want) {
			t.Errorf("view lacks %q:\n%s", want, got)
		}
	}
	f.Update(testkit.Key("<esc>")) // closes the list, not the form
	if _, done := f.Done(); done || f.open {
		t.Errorf("esc with the list open: done %v, list open %v", done, f.open)
	}
}

// TestCompleteFormTabBeforeSuggestions: tab pressed before the suggestions for what was
// typed have come asks at once and takes the first; with none it moves on.
func TestCompleteFormTabBeforeSuggestions(t *testing.T) {
	st := newStyles(true)
	complete := func(_ context.Context, arg, value string, _ map[string]string) (transport.Completion, error) {
		if arg == "b" {
			return transport.Completion{}, nil
		}
		return transport.Completion{Values: []string{value + "1", value + "2"}}, nil
	}
	f := newCompleteForm(t.Context(), "", "", "Get", []argSpec{{name: "a"}, {name: "b"}}, nil, complete, &st, ScreenOptions{Width: 40, Height: 10})
	f.Init()
	f.Update(testkit.Key("x")) // its debounce tick is never delivered
	cmd := f.Update(testkit.Key("<tab>"))
	if cmd == nil {
		t.Fatal("tab before the suggestions asked nothing")
	}
	f.Update(cmd())
	if got := f.inputs[0].Value(); got != "x1" || f.focus != 0 {
		t.Errorf("after tab: a = %q, focus %d; want x1 on the same field", got, f.focus)
	}
	f.Update(testkit.Key("<down>")) // to b
	f.Update(testkit.Key("y"))
	cmd = f.Update(testkit.Key("<tab>"))
	f.Update(cmd())
	if f.focus != 2 {
		t.Errorf("tab with no suggestions: focus %d, want the button", f.focus)
	}
}

// TestTemplateWithoutCompletions: a server without completions still gets its template
// filled, with no suggestion list.
func TestTemplateWithoutCompletions(t *testing.T) {
	s := newTemplateSession()
	s.plain = true
	h := newHarness(t, Options{Servers: demoServers(), dial: dialTemplate(s)})
	h.run(h.m.Init())
	h.keys("<tab>", "<tab>", "<enter>")
	h.typeText("a b")
	got := h.screen()
	if !strings.Contains(got, "URI: demo://items/a%20b") || strings.Contains(got, "choose") {
		t.Errorf("form:\n%s", got)
	}
	h.keys("<enter>")
	if _, _, read, _ := s.record(); !cmp.Equal([]string{"demo://items/a%20b"}, read) {
		t.Errorf("read %q, want the id percent-encoded", read)
	}
	if asked, _, _, _ := s.record(); len(asked) != 0 {
		t.Errorf("completions asked of a server without them: %q", asked)
	}
}
