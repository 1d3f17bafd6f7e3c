package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// TestProgramNoValidate runs the real program and form behind an Engine that does not
// validate (--no-validate, as the command wires it): a required field can be left empty
// and Accept sends the content that fails the schema.
func TestProgramNoValidate(t *testing.T) {
	answerers := make(chan elicit.Answerer, 1)
	sess := &fakeSession{name: "demo", protocol: "2025-11-25",
		tools: []*mcp.Tool{{Name: "signup", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}}
	var engine elicit.Answerer
	sess.call = func(ctx context.Context, name string, _ map[string]any) (*mcp.CallToolResult, error) {
		r, err := engine.Answer(ctx, &elicit.Request{Server: "demo", Protocol: "2025-11-25", Call: "tools/call signup", Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("sent %d field(s) (%s)", len(r.Content), r.Action)}}}, nil
	}
	b := NewBridge()
	m := New(t.Context(), b, Options{
		Servers: []config.Server{{Name: "demo", Command: "demo"}},
		dial: func(ctx context.Context, srv config.Server, a elicit.Answerer, _ func(transport.Event)) (session, error) {
			answerers <- a
			return sess, nil
		},
		NoColor: true,
	})
	m.ticks = false
	tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(80, 24))
	b.Attach(tm.GetProgram())
	engine = elicit.NewEngine(<-answerers, &elicit.EngineOptions{NoValidate: true})

	waitScreen(t, tm, "signup")
	tm.Send(testkit.Key("<enter>")) // a tool without arguments is called at once: the server asks
	tm.Send(testkit.Key("y"))       // not marked read-only: y runs it
	waitScreen(t, tm, "Your name?")
	tm.Send(testkit.Key("<enter>")) // the required field left empty: on to the review step
	waitScreen(t, tm, "Accept sends")
	tm.Send(testkit.Key("a")) // accept, enabled despite the missing field
	waitScreen(t, tm, "sent 0 field(s) (accept)")
	tm.Send(testkit.Key("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
}
