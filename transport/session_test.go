package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
)

func TestPushElicitationKeepsServerOrder(t *testing.T) {
	schema := orderedSchema(t)
	a := newAnswerer(accept(map[string]any{"zeta": "stg"}))
	s := connectMem(t, newTestServer(&fixture{schema: schema}), Options{Answerer: a, Protocol: legacy, URLMode: true})
	res, rounds, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != `accept {"mid":true,"zeta":"stg"}` && got != `accept {"zeta":"stg"}` {
		t.Errorf("tool saw %q", got)
	}
	if len(rounds) != 0 {
		t.Errorf("rounds = %v, want none for a pushed request", rounds)
	}
	reqs := a.requests()
	if len(reqs) != 1 {
		t.Fatalf("answerer got %d requests", len(reqs))
	}
	r := reqs[0]
	if string(r.Schema) != string(schema) {
		t.Errorf("Schema = %s\nwant  %s", r.Schema, schema)
	}
	want := elicit.Request{Server: "mem", ServerInfo: "fixture", Origin: elicit.OriginPush, Call: "tools/call ask", Tool: "ask",
		Protocol: legacy, Mode: elicit.ModeForm, Message: "Deploy where?", URLDeclared: true}
	// The schema is parsed once, before asking: the answerer gets the parse.
	if r.Form == nil || len(r.Form.Fields) != 3 || r.Form.Fields[0].Name != "zeta" {
		t.Errorf("Form = %+v, want the parse of the schema in server order", r.Form)
	}
	got := *r
	got.Schema, got.Params, got.Form = nil, nil, nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(r.Params), `"message":"Deploy where?"`) {
		t.Errorf("Params = %s", r.Params)
	}
}

func TestPushViolationsReachWireAsBare32602(t *testing.T) {
	log := wire.New(100)
	vs := []elicit.Violation{{Path: "/alpha", Keyword: "maximum", Message: "must be at most 10"}}
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, &elicit.ViolationsError{Violations: vs}
	})
	s := connectMem(t, newTestServer(&fixture{schema: orderedSchema(t)}), Options{Answerer: a, Protocol: legacy, Log: log})
	_, _, err := s.CallTool(context.Background(), "ask", nil)
	var ve *elicit.ViolationsError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want the call to fail with the violations", err)
	}
	outs := findEntries(log, func(e wire.Entry) bool { return e.Dir == wire.Out && strings.Contains(string(e.Raw), `"error"`) })
	if len(outs) != 1 {
		t.Fatalf("found %d outgoing errors", len(outs))
	}
	var msg struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Errors []elicit.Violation `json:"errors"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(outs[0].Raw, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Error.Code != -32602 || msg.Error.Message != "elicitation response does not match requestedSchema" {
		t.Errorf("error = %d %q", msg.Error.Code, msg.Error.Message)
	}
	if diff := cmp.Diff(vs, msg.Error.Data.Errors); diff != "" {
		t.Errorf("data.errors (-want +got):\n%s", diff)
	}
}

func TestPushProtocolErrorIs32602WithReason(t *testing.T) {
	log := wire.New(100)
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, &elicit.ProtocolError{Reason: "missing url"}
	})
	s := connectMem(t, newTestServer(&fixture{schema: orderedSchema(t)}), Options{Answerer: a, Protocol: legacy, Log: log})
	if _, _, err := s.CallTool(context.Background(), "ask", nil); err != nil {
		t.Fatal(err)
	}
	outs := findEntries(log, func(e wire.Entry) bool {
		return e.Dir == wire.Out && strings.Contains(string(e.Raw), `"code":-32602`) && strings.Contains(string(e.Raw), `"missing url"`)
	})
	if len(outs) != 1 {
		t.Errorf("no bare -32602 with the reason on the wire")
	}
}

func TestPushUnansweredFailsTheCall(t *testing.T) {
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{}, elicit.ErrUnanswered
	})
	s := connectMem(t, newTestServer(&fixture{schema: orderedSchema(t)}), Options{Answerer: a, Protocol: legacy})
	_, _, err := s.CallTool(context.Background(), "ask", nil)
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Fatalf("err = %v, want one wrapping ErrUnanswered", err)
	}
}

func TestPushNoAnswererCancels(t *testing.T) {
	s := connectMem(t, newTestServer(&fixture{schema: orderedSchema(t)}), Options{Protocol: legacy})
	res, _, err := s.CallTool(context.Background(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "cancel null" {
		t.Errorf("tool saw %q, want cancel", got)
	}
}

func TestURLModeUndeclaredRefused(t *testing.T) {
	// The go-sdk server refuses URL elicitation itself when undeclared, so use -32042
	// without URL mode: the call must fail without asking anyone.
	a := newAnswerer(accept(nil))
	s := connectMem(t, newTestServer(&fixture{}), Options{Answerer: a, Protocol: legacy})
	_, _, err := s.CallTool(context.Background(), "linked", nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32042 {
		t.Fatalf("err = %v, want one wrapping the -32042", err)
	}
	if n := len(a.requests()); n != 0 {
		t.Errorf("answerer asked %d times", n)
	}
}

func TestListsAndInfo(t *testing.T) {
	s := connectMem(t, newTestServer(&fixture{}), Options{})
	tools, err := s.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"ask", "ask-async", "ask-short", "echo", "hang", "linked", "progress", "region", "slow-progress"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if s.ServerInfo() == nil || s.ServerInfo().Name != "fixture" {
		t.Errorf("ServerInfo = %+v", s.ServerInfo())
	}
	if s.Protocol() == "" {
		t.Error("Protocol() empty")
	}
	t.Logf("negotiated %s", s.Protocol())
	if _, err := s.Prompts(context.Background()); err != nil {
		t.Errorf("Prompts: %v", err)
	}
	if _, _, err := s.Resources(context.Background()); err != nil {
		t.Errorf("Resources: %v", err)
	}
}

func TestProtocolPinAndNegotiation(t *testing.T) {
	tests := []struct {
		pin, want, reason string
	}{
		{legacy, legacy, "pinned by the caller"},
		{"2025-06-18", "2025-06-18", "pinned by the caller"},
		{modern, modern, "pinned by the caller"},
		// A server that speaks both eras gets 2025-11-25, where tools can push requests.
		{"", legacy, "the server accepts initialize: 2025-11-25 is preferred"},
	}
	for _, tt := range tests {
		t.Run("pin="+tt.pin, func(t *testing.T) {
			s := connectMem(t, newTestServer(&fixture{}), Options{Protocol: tt.pin})
			if got := s.Protocol(); got != tt.want {
				t.Errorf("Protocol() = %q, want %q", got, tt.want)
			}
			if era := s.Era(); era.Version != tt.want || !strings.HasPrefix(era.Reason, tt.reason) {
				t.Errorf("Era() = %+v, want version %s and a reason starting %q", era, tt.want, tt.reason)
			}
			res, _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "hi"})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(t, res); got != "hi" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

func TestProgressTokensAndEvents(t *testing.T) {
	events := make(chan Event, 8)
	s := connectMem(t, newTestServer(&fixture{}), Options{Protocol: legacy, OnEvent: func(e Event) {
		if e.Kind == "progress" {
			events <- e
		}
	}})
	var toks []string
	for range 2 {
		res, _, err := s.CallTool(context.Background(), "progress", nil)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, resultText(t, res))
		if e := <-events; e.Text.Line() != "half way" || e.ID != toks[len(toks)-1] {
			t.Errorf("event = %+v, want progress for %s", e, toks[len(toks)-1])
		}
	}
	if toks[0] == toks[1] || toks[0] == "no token" {
		t.Errorf("progress tokens %v, want two distinct tokens", toks)
	}
}

// TestCapabilitiesPerPinnedVersion checks what the client declares: {} for 2025-06-18,
// {form, url} for later versions with URL mode on, {form} with it off.
func TestCapabilitiesPerPinnedVersion(t *testing.T) {
	tests := []struct {
		protocol string
		urlMode  bool
		want     string
	}{
		{"2025-06-18", true, `{}`},
		{"2025-11-25", true, `{"form":{},"url":{}}`},
		{"2025-11-25", false, `{"form":{}}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/url=%v", tt.protocol, tt.urlMode), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, nil)
			got := make(chan string, 1)
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if p, ok := req.GetParams().(*mcp.InitializeParams); ok && method == "initialize" {
						b, _ := json.Marshal(p.Capabilities.Elicitation)
						got <- string(b)
					}
					return next(ctx, method, req)
				}
			})
			connectMem(t, srv, Options{Protocol: tt.protocol, URLMode: tt.urlMode})
			if g := <-got; g != tt.want {
				t.Errorf("elicitation capability %s, want %s", g, tt.want)
			}
		})
	}
}

// TestProtocolPinIsKeptOrRefused: a pinned era is what the session speaks or a clear
// error naming what the server offers: no silent fallback when server/discover is
// refused, no accepted counter-offer.
func TestProtocolPinIsKeptOrRefused(t *testing.T) {
	// A legacy-only server refuses server/discover and offers 2025-11-25.
	_, tr := startRaw(t, func(rs *rawServer, m rawMsg) { handshake(rs, m, false) })
	_, err := Connect(context.Background(), config.Server{Name: "raw"}, Options{Protocol: "2026-07-28", Log: wire.New(50), transport: tr})
	var pm *ProtocolMismatchError
	if !errors.As(err, &pm) || !strings.Contains(err.Error(), "2026-07-28 pinned, but the server offers 2025-11-25") {
		t.Errorf("pin 2026-07-28 on a legacy server: err = %v", err)
	}
	// A server that counter-offers 2026-07-28 to a 2025-06-18 initialize.
	_, tr = startRaw(t, func(rs *rawServer, m rawMsg) {
		if m.Method == "initialize" {
			rs.reply(m.ID, `{"protocolVersion":"2026-07-28","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		}
	})
	_, err = Connect(context.Background(), config.Server{Name: "raw"}, Options{Protocol: "2025-06-18", Log: wire.New(50), transport: tr})
	if !errors.As(err, &pm) || !strings.Contains(err.Error(), "2025-06-18 pinned, but the server offers 2026-07-28") {
		t.Errorf("pin 2025-06-18, counter-offer 2026-07-28: err = %v", err)
	}
}
