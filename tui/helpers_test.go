package tui

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// epoch is the pinned clock of model tests.
var epoch = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// fakeSession is a session whose answers come from its fields. call, when set, runs
// inside CallTool (on the command's goroutine) and may ask the answerer.
type fakeSession struct {
	name     string
	protocol string
	era      string // why protocol was chosen; "" shows nothing
	tools    []*mcp.Tool
	prompts  []*mcp.Prompt
	call     func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error)

	mu      sync.Mutex
	closed  bool
	retries int
}

func (s *fakeSession) Name() string     { return s.name }
func (s *fakeSession) Protocol() string { return s.protocol }
func (s *fakeSession) Era() transport.Era {
	return transport.Era{Version: s.protocol, Reason: s.era}
}
func (s *fakeSession) Capabilities() *mcp.ServerCapabilities {
	return &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}}
}
func (s *fakeSession) Tools(context.Context) ([]*mcp.Tool, error)     { return s.tools, nil }
func (s *fakeSession) Prompts(context.Context) ([]*mcp.Prompt, error) { return s.prompts, nil }
func (s *fakeSession) Resources(context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return nil, nil, nil
}
func (s *fakeSession) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, []transport.Round, error) {
	if s.call == nil {
		return nil, nil, errors.New("no such tool")
	}
	r, err := s.call(ctx, name, args)
	return r, nil, err
}
func (s *fakeSession) GetPrompt(context.Context, string, map[string]string) (*mcp.GetPromptResult, []transport.Round, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil, nil
}
func (s *fakeSession) ReadResource(context.Context, string) (*mcp.ReadResourceResult, []transport.Round, error) {
	return nil, nil, errors.New("no resources")
}
func (s *fakeSession) RetryNow() {
	s.mu.Lock()
	s.retries++
	s.mu.Unlock()
}
func (s *fakeSession) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// connector connects the named fake sessions; other names fail.
func connector(sessions ...*fakeSession) dialFunc {
	return func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (session, error) {
		for _, s := range sessions {
			if s.name == srv.Name {
				return s, nil
			}
		}
		return nil, &transport.ConnError{Server: srv.Name, Err: errors.New("dial tcp 127.0.0.1:9: connection refused")}
	}
}

// harness drives a Model synchronously: it runs commands on the test goroutine and
// feeds their messages back, recording the side-effect messages (bell, clipboard).
type harness struct {
	t      *testing.T
	m      *Model
	side   []tea.Msg
	budget int
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return epoch }
	}
	opts.NoColor = true
	if opts.NewForm == nil {
		opts.NewForm = func(req *elicit.Request, f *elicit.Form, so ScreenOptions) FormScreen {
			return newLocalForm(req, f, so)
		}
	}
	if opts.NewConsent == nil {
		opts.NewConsent = func(req *elicit.Request, so ScreenOptions) ConsentScreen { return newLocalConsent(req, so) }
	}
	m := New(t.Context(), NewBridge(), opts)
	m.ticks = false
	return &harness{t: t, m: m}
}

// send delivers msg and runs the resulting commands to completion.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	if h.budget++; h.budget > 10000 {
		h.t.Fatal("harness: endless chain of commands (a timer loop?)")
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
		return
	case tea.RawMsg:
		h.side = append(h.side, msg)
		return
	}
	// tea.Sequence's message is an unexported []Cmd.
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		for i := range v.Len() {
			h.run(v.Index(i).Interface().(tea.Cmd))
		}
		return
	}
	if strings.Contains(reflect.TypeOf(msg).String(), "Clipboard") {
		h.side = append(h.side, msg)
		return
	}
	h.send(msg)
}

// keys types each key: a single rune, or a named key in angle brackets ("<enter>").
func (h *harness) keys(seq ...string) {
	h.t.Helper()
	for _, s := range seq {
		h.send(testkit.Key(s))
	}
}

// typeText types every rune of s.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == ' ' {
			h.keys("<space>")
			continue
		}
		h.keys(string(r))
	}
}

// screen is the current frame without ANSI sequences and trailing spaces.
func (h *harness) screen() string { return plain(h.m.View().Content) }

func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// request injects an elicitation as the bridge would and returns its reply channel.
func (h *harness) request(id reqID, req *elicit.Request) chan elicit.Response {
	h.t.Helper()
	reply := make(chan elicit.Response, 1)
	var f *elicit.Form
	if req.Mode != elicit.ModeURL {
		f = elicit.Parse(req.Schema, req.Protocol)
	}
	h.send(elicitRequestMsg{id: id, req: req, form: f, reply: reply})
	return reply
}

// replied returns the answer sent on reply, failing when there is none.
func replied(t *testing.T, reply chan elicit.Response) elicit.Response {
	t.Helper()
	select {
	case r := <-reply:
		return r
	default:
		t.Fatal("no answer was sent")
		return elicit.Response{}
	}
}

func noReply(t *testing.T, reply chan elicit.Response) {
	t.Helper()
	select {
	case r := <-reply:
		t.Fatalf("unexpected answer %+v", r)
	default:
	}
}

// fakeOpener records the URLs it is asked to open.
type fakeOpener struct{ opened []string }

func (o *fakeOpener) Open(_ context.Context, u string) error {
	o.opened = append(o.opened, u)
	return nil
}

// wantStepAtLink fails unless s, the waiting screen of a link the user only copied,
// speaks of the step at the link, offers o open, and names no browser and no reopen.
func wantStepAtLink(t *testing.T, s string) {
	t.Helper()
	if !strings.Contains(s, "Waiting for the step at the link") || !strings.Contains(s, "o open ·") {
		t.Errorf("the waiting screen does not offer to open the copied link:\n%s", s)
	}
	if strings.Contains(s, "browser") || strings.Contains(s, "reopen") {
		t.Errorf("the waiting screen speaks of a browser though nothing was opened:\n%s", s)
	}
}
