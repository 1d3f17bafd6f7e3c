package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

func TestBridgeUnattached(t *testing.T) {
	_, err := NewBridge().Answer(t.Context(), &elicit.Request{Server: "demo"})
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Errorf("err = %v, want ErrUnanswered", err)
	}
}

func TestBridgeReply(t *testing.T) {
	b := NewBridge()
	msgs := make(chan tea.Msg, 4)
	b.attach(func(m tea.Msg) { msgs <- m })
	done := make(chan elicit.Response, 1)
	go func() {
		r, _ := b.Answer(t.Context(), &elicit.Request{Server: "demo", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
		done <- r
	}()
	m := (<-msgs).(elicitRequestMsg)
	if m.form == nil || len(m.form.Fields) != 1 {
		t.Fatalf("form not parsed off the UI goroutine: %+v", m.form)
	}
	m.reply <- elicit.Response{Action: elicit.Decline}
	if got := <-done; got.Action != elicit.Decline {
		t.Errorf("answer = %+v, want decline", got)
	}
}

func TestBridgeCancelledByServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stop    func(context.CancelFunc)
		ctx     func(context.Context) (context.Context, context.CancelFunc)
		wantWhy string
	}{
		{"cancel", func(c context.CancelFunc) { c() }, context.WithCancel, "cancelled by the server"},
		{"deadline", func(context.CancelFunc) {}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithDeadline(ctx, time.Now()) // already past: Answer sees it expired
		}, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBridge()
			msgs := make(chan tea.Msg, 4)
			b.attach(func(m tea.Msg) { msgs <- m })
			ctx, cancel := tc.ctx(t.Context())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := b.Answer(ctx, &elicit.Request{Server: "demo"})
				errc <- err
			}()
			req := (<-msgs).(elicitRequestMsg)
			tc.stop(cancel)
			gone := (<-msgs).(elicitGoneMsg)
			if gone.id != req.id || gone.why != tc.wantWhy {
				t.Errorf("gone = %+v, want id %d why %q", gone, req.id, tc.wantWhy)
			}
			if err := <-errc; err == nil {
				t.Error("Answer returned no error after its context ended")
			}
		})
	}
}

func TestBridgeDetachCancelsWaiting(t *testing.T) {
	b := NewBridge()
	msgs := make(chan tea.Msg, 4)
	b.attach(func(m tea.Msg) { msgs <- m })
	done := make(chan elicit.Response, 1)
	go func() {
		r, _ := b.Answer(t.Context(), &elicit.Request{Server: "demo"})
		done <- r
	}()
	<-msgs
	b.Detach()
	if got := <-done; got.Action != elicit.Cancel {
		t.Errorf("answer after detach = %+v, want cancel", got)
	}
}

// TestProgramEndToEnd runs the real program: a tool call whose server asks for input
// through the Bridge while the call is in flight, from the SDK-like goroutine.
func TestProgramEndToEnd(t *testing.T) {
	answerers := make(chan elicit.Answerer, 1)
	sess := &fakeSession{name: "demo", protocol: "2025-11-25",
		tools: []*mcp.Tool{{Name: "signup", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}}
	var bridge elicit.Answerer
	sess.call = func(ctx context.Context, name string, _ map[string]any) (*mcp.CallToolResult, error) {
		r, err := bridge.Answer(ctx, &elicit.Request{Server: "demo", Call: "tools/call signup", Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("welcome %v (%s)", r.Content["name"], r.Action)}}}, nil
	}
	b := NewBridge()
	opts := Options{
		Servers: []config.Server{{Name: "demo", Command: "demo"}},
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			answerers <- a
			return sess, nil
		},
		NoColor: true,
	}
	m := New(t.Context(), b, opts)
	m.ticks = false
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(80, 24))
	b.Attach(tm.GetProgram())
	bridge = <-answerers

	waitScreen(t, tm, "signup")
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once: the server asks
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Your name?")
	for _, r := range "ada" {
		tm.Send(testkit.Key(string(r)))
	}
	tm.Send(testkit.Key("<enter>")) // the last field: on to the review step
	waitScreen(t, tm, `"name": "ada"`)
	tm.Send(testkit.Key("a")) // accept
	waitScreen(t, tm, "welcome ada (accept)")
	tm.Send(testkit.Key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probed).Model
	if got := fm.calls.selectedText(); got != "welcome ada (accept)" {
		t.Errorf("result = %q", got)
	}
	if diff := cmp.Diff(0, len(fm.inbox.items)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

// probed wraps the root model for teatest: a probeMsg renders the whole current frame
// on the program's goroutine, so tests read full screens (the renderer only writes
// changed cells) without racing the model.
type probed struct{ *Model }

type probeMsg struct{ reply chan string }

func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- plain(p.Model.View().Content)
		return p, nil
	}
	_, cmd := p.Model.Update(msg)
	return p, cmd
}

// waitScreen waits until the current frame contains want, failing after 30 s.
func waitScreen(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	// A bound on a failure, not a pace: under -race on a loaded machine the program
	// can take seconds to get through thousands of queued messages.
	deadline := time.After(30 * time.Second)
	var last string
	for {
		reply := make(chan string, 1)
		tm.Send(probeMsg{reply})
		select {
		case last = <-reply:
			if strings.Contains(last, want) {
				return
			}
		case <-deadline:
			t.Fatalf("screen never showed %q:\n%s", want, last)
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("screen never showed %q:\n%s", want, last)
		}
	}
}

// TestProgramTwoCallsOutOfOrder runs two calls at once in the real program, each
// waiting on its own elicitation, and answers the second first.
func TestProgramTwoCallsOutOfOrder(t *testing.T) {
	var bridge elicit.Answerer
	ready := make(chan struct{})
	sess := &fakeSession{name: "demo", protocol: "2025-11-25",
		tools: []*mcp.Tool{{Name: "ask", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}}}
	sess.call = func(ctx context.Context, _ string, args map[string]any) (*mcp.CallToolResult, error) {
		r, err := bridge.Answer(ctx, &elicit.Request{Server: "demo", Call: fmt.Sprintf("tools/call ask %v", args["q"]),
			Message: fmt.Sprintf("Answer to %v?", args["q"]),
			Schema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%v=%v", args["q"], r.Content["a"])}}}, nil
	}
	b := NewBridge()
	m := New(t.Context(), b, Options{Servers: []config.Server{{Name: "demo", Command: "demo"}}, NoColor: true,
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			bridge = a
			close(ready)
			return sess, nil
		}})
	m.ticks = false
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(80, 24))
	b.Attach(tm.GetProgram())
	<-ready
	typeKeys := func(s string) {
		for _, r := range s {
			tm.Send(testkit.Key(string(r)))
		}
	}
	call := func(q string) {
		waitScreen(t, tm, "demo       ask")
		tm.Send(testkit.Key("<enter>"))
		waitScreen(t, tm, "Arguments for tool ask on demo")
		tm.Send(testkit.Key("<ctrl+u>")) // the last call's value is remembered
		typeKeys(q)
		tm.Send(testkit.Key("<enter>"))
		waitScreen(t, tm, `"q": "`+q+`"`)
		tm.Send(testkit.Key("a"))
		waitScreen(t, tm, "Answer to "+q+"?")
	}
	call("one")
	tm.Send(testkit.Key("<ctrl+b>")) // set the first request aside
	waitScreen(t, tm, "Inbox: 1 pending")
	tm.Send(testkit.Key("<tab>")) // Inbox -> Tools
	call("two")                   // opens by itself: nothing else is being edited
	typeKeys("2")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, `"a": "2"`)
	tm.Send(testkit.Key("a"))
	waitScreen(t, tm, "two=2")
	tm.Send(testkit.Key("i")) // the first, set aside, waits in the inbox
	waitScreen(t, tm, "Inbox: 1 pending")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, "Answer to one?")
	typeKeys("1")
	tm.Send(testkit.Key("<enter>"))
	waitScreen(t, tm, `"a": "1"`)
	tm.Send(testkit.Key("a"))
	waitScreen(t, tm, "one=1") // answered from the Inbox: the Tools tab, where the result is
	tm.Send(testkit.Key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probed).Model
	var got []string
	for _, c := range fm.calls.calls {
		got = append(got, c.text)
	}
	if diff := cmp.Diff([]string{"one=1", "two=2"}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestBridgeEventsKeepOrder: session notifications reach the program in the order the
// session reported them, even while the program is slow to take them, and reporting
// never waits for the program.
func TestBridgeEventsKeepOrder(t *testing.T) {
	b := NewBridge()
	release := make(chan struct{})
	got := make(chan string, 1000)
	b.attach(func(m tea.Msg) {
		<-release // the event loop is busy
		got <- m.(eventMsg).Text.Line()
	})
	const n = 500
	reported := make(chan struct{})
	go func() {
		for i := range n {
			b.event(transport.Event{Server: "demo", Kind: "progress", Text: safe.Untrusted(fmt.Sprint(i))})
		}
		close(reported)
	}()
	select {
	case <-reported:
	case <-time.After(10 * time.Second):
		t.Fatal("reporting events waited for the program")
	}
	close(release)
	for i := range n {
		select {
		case text := <-got:
			if text != fmt.Sprint(i) {
				t.Fatalf("event %d is %q, want %d: order lost", i, text, i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d never arrived", i)
		}
	}
}
