package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	legacy = "2025-11-25"
	modern = "2026-07-28"
)

// A link is how a test client reaches the demo server.
type link string

const (
	inMemory link = "memory"
	viaHTTP  link = "http"
)

var (
	eras  = []string{legacy, modern}
	links = []link{inMemory, viaHTTP}
)

// testCtx bounds a test's waits so a broken flow fails instead of hanging.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wireCount counts, on the server side, the elicitation/create requests the
// server pushed and the MRTR retries (requests carrying inputResponses or a
// requestState) it received, so tests can tell which era's path ran.
type wireCount struct {
	mu      sync.Mutex
	pushes  int
	retries int
}

func (w *wireCount) get() (pushes, retries int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pushes, w.retries
}

func newDemo(t *testing.T) (*Server, *wireCount) {
	t.Helper()
	s, err := New(&Options{Logf: t.Logf})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	w := &wireCount{}
	s.MCP().AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "elicitation/create" {
				w.mu.Lock()
				w.pushes++
				w.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	s.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			retry := false
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParamsRaw:
				retry = p.RequestState != "" || p.InputResponses != nil
			case *mcp.GetPromptParams:
				retry = p.RequestState != "" || p.InputResponses != nil
			case *mcp.ReadResourceParams:
				retry = p.RequestState != "" || p.InputResponses != nil
			}
			if retry {
				w.mu.Lock()
				w.retries++
				w.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return s, w
}

// connect opens a client session to s in the given era over the given link.
func connect(t *testing.T, s *Server, era string, l link, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, s, era, l, mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, opts))
}

// connectClient connects the client c to the demo server.
func connectClient(t *testing.T, s *Server, era string, l link, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ctx := testCtx(t)
	var ct mcp.Transport
	switch l {
	case inMemory:
		c, st := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatalf("server connect: %v", err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	case viaHTTP:
		srv := httptest.NewServer(s.HTTPHandler())
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}
	}
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("client connect (%s, %s): %v", era, l, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// each runs f for every era and link.
func each(t *testing.T, f func(t *testing.T, era string, l link)) {
	for _, era := range eras {
		for _, l := range links {
			t.Run(era+"/"+string(l), func(t *testing.T) { f(t, era, l) })
		}
	}
}

// properties returns the property names of a requested schema.
func properties(p *mcp.ElicitParams) map[string]any {
	m, _ := p.RequestedSchema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	return props
}

// answerer answers every form by the first of its properties found in
// content, so one handler serves chained and parallel forms.
func answerer(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if action != "accept" {
			return &mcp.ElicitResult{Action: action}, nil
		}
		out := map[string]any{}
		for k := range properties(req.Params) {
			if v, ok := content[k]; ok {
				out[k] = v
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: out}, nil
	}
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// checkEra asserts that the server used the era's path: pushes in legacy,
// retries in 2026-07-28.
func checkEra(t *testing.T, w *wireCount, era string, wantPushes, wantRetries int) {
	t.Helper()
	pushes, retries := w.get()
	if era == modern {
		wantPushes = 0
	} else {
		wantRetries = 0
	}
	if pushes != wantPushes || retries != wantRetries {
		t.Errorf("server saw %d elicitation/create pushes and %d MRTR retries, want %d and %d", pushes, retries, wantPushes, wantRetries)
	}
}

func TestFormAllKinds(t *testing.T) {
	answer := map[string]any{
		"name": "Grace Hopper", "seats": 3, "email": "grace@example.com", "region": "us-east",
		"homepage": "https://example.com/grace", "budget": 12.5, "size": "L", "birthday": "1906-12-09",
		"tags": []any{"db", "ops"}, "color": "g", "meeting": "2026-11-30T09:30:00Z",
		// subscribe and features are left out: subscribe has a default, features has none.
	}
	want := map[string]any{
		"action": "accept",
		"content": map[string]any{
			"name": "Grace Hopper", "seats": 3.0, "email": "grace@example.com", "region": "us-east",
			"homepage": "https://example.com/grace", "budget": 12.5, "size": "L", "birthday": "1906-12-09",
			"tags": []any{"db", "ops"}, "color": "g", "meeting": "2026-11-30T09:30:00Z", "subscribe": true,
		},
	}
	each(t, func(t *testing.T, era string, l link) {
		s, w := newDemo(t)
		var got *mcp.ElicitParams
		cs := connect(t, s, era, l, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			got = req.Params
			return answerer("accept", answer)(ctx, req)
		}})
		res := call(t, cs, "form_all_kinds", nil)
		if res.IsError {
			t.Fatalf("tool error: %s", text(res))
		}
		if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
			t.Errorf("structuredContent (-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(text(res), `accepted: {"birthday":"1906-12-09",`) {
			t.Errorf("text = %q, want the accepted content", text(res))
		}
		if got == nil || got.Mode != "form" || len(properties(got)) != 13 {
			t.Errorf("elicitation params = %+v, want a form with 13 properties", got)
		}
		checkEra(t, w, era, 1, 1)
	})
}

func TestAllKindsSchemaOrder(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(string(allKindsSchema)))
	var got []string
	depth := 0
	inProps := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
				if depth == 1 {
					inProps = false
				}
			}
		case string:
			if depth == 1 && v == "properties" {
				inProps = true
			} else if inProps && depth == 2 && dec.More() {
				got = append(got, v)
				// Skip the property's schema.
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	want := []string{"name", "seats", "email", "region", "homepage", "budget", "size", "birthday", "tags", "subscribe", "color", "meeting", "features"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("property order (-want +got):\n%s", diff)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		action, want string
	}{
		{"decline", "declined"},
		{"cancel", "cancelled"},
	} {
		for _, tool := range []string{"form_all_kinds", "deploy", "confirm_only", "secret_warning", "mrtr_one", "mrtr_multi", "mrtr_parallel", "link_account"} {
			t.Run(tc.action+"/"+tool, func(t *testing.T) {
				each(t, func(t *testing.T, era string, l link) {
					s, _ := newDemo(t)
					cs := connect(t, s, era, l, &mcp.ClientOptions{Capabilities: formAndURL(), ElicitationHandler: answerer(tc.action, nil)})
					res := call(t, cs, tool, nil)
					if got := text(res); got != tc.want || res.IsError {
						t.Errorf("result = %q (isError %v), want %q", got, res.IsError, tc.want)
					}
					if diff := cmp.Diff(map[string]any{"action": tc.action}, res.StructuredContent); diff != "" {
						t.Errorf("structuredContent (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

func TestChainedAndSimpleForms(t *testing.T) {
	answers := map[string]any{"env": "prod", "replicas": 3, "confirm": true, "api_token": "s3cr3t-token-value", "answer": "yes"}
	for _, tc := range []struct {
		tool    string
		args    any
		want    string
		pushes  int
		retries int
	}{
		{"deploy", map[string]any{"service": "web"}, "deployed web to prod with 3 replicas", 2, 2},
		{"confirm_only", nil, "confirmed", 1, 1},
		{"secret_warning", nil, "received a token of 18 characters", 1, 1},
		{"elicit_n", map[string]any{"n": 5}, "answered 5 forms", 5, 5},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			each(t, func(t *testing.T, era string, l link) {
				s, w := newDemo(t)
				cs := connect(t, s, era, l, &mcp.ClientOptions{ElicitationHandler: answerer("accept", answers)})
				res := call(t, cs, tc.tool, tc.args)
				if got := text(res); got != tc.want || res.IsError {
					t.Errorf("result = %q (isError %v), want %q", got, res.IsError, tc.want)
				}
				checkEra(t, w, era, tc.pushes, tc.retries)
			})
		})
	}
}

func TestDeployNotConfirmed(t *testing.T) {
	s, _ := newDemo(t)
	cs := connect(t, s, modern, inMemory, &mcp.ClientOptions{ElicitationHandler: answerer("accept", map[string]any{"env": "dev", "confirm": false})})
	res := call(t, cs, "deploy", nil)
	want := map[string]any{"action": "accept", "service": "api", "env": "dev", "replicas": 2.0, "confirmed": false}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
	if got := text(res); got != "not deployed: not confirmed" {
		t.Errorf("text = %q", got)
	}
}

func TestMRTRTools(t *testing.T) {
	answers := map[string]any{"color": "green", "name": "Ada", "age": 36, "ok": true, "city": "Paris", "days": 4}
	for _, tc := range []struct {
		tool    string
		want    string
		pushes  int
		retries int
	}{
		{"mrtr_one", "you picked green", 1, 1},
		{"mrtr_multi", "Ada is 36 (confirmed)", 3, 3},
		{"mrtr_parallel", "4 days in Paris", 2, 1},
		{"mrtr_shed", "done", 0, 1},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			each(t, func(t *testing.T, era string, l link) {
				s, w := newDemo(t)
				cs := connect(t, s, era, l, &mcp.ClientOptions{ElicitationHandler: answerer("accept", answers)})
				res := call(t, cs, tc.tool, nil)
				if got := text(res); got != tc.want || res.IsError {
					t.Errorf("result = %q (isError %v), want %q", got, res.IsError, tc.want)
				}
				pushes, retries := w.get()
				if era == legacy {
					// go-sdk's conversion re-invokes the handler inside the
					// counting middleware, so legacy clients show no retries.
					if pushes != tc.pushes || retries != 0 {
						t.Errorf("legacy: %d pushes, %d retries; want %d, 0", pushes, retries, tc.pushes)
					}
					return
				}
				if pushes != 0 || retries != tc.retries {
					t.Errorf("2026-07-28: %d pushes, %d retries; want 0, %d", pushes, retries, tc.retries)
				}
			})
		})
	}
}

func TestMRTRPromptAndResource(t *testing.T) {
	answers := map[string]any{"topic": "the sea", "section": "usage"}
	each(t, func(t *testing.T, era string, l link) {
		s, w := newDemo(t)
		cs := connect(t, s, era, l, &mcp.ClientOptions{ElicitationHandler: answerer("accept", answers)})
		ctx := testCtx(t)
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mrtr_prompt"})
		if err != nil {
			t.Fatalf("get prompt: %v", err)
		}
		if got := pr.Messages[0].Content.(*mcp.TextContent).Text; got != "Write a haiku about the sea." {
			t.Errorf("prompt text = %q", got)
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://mrtr/resource"})
		if err != nil {
			t.Fatalf("read resource: %v", err)
		}
		if got := rr.Contents[0].Text; got != "Usage: read it again to be asked again." {
			t.Errorf("resource text = %q", got)
		}
		pushes, retries := w.get()
		if era == modern && (pushes != 0 || retries != 2) {
			t.Errorf("2026-07-28: %d pushes, %d retries; want 0, 2", pushes, retries)
		}
		if era == legacy && pushes != 2 {
			t.Errorf("legacy: %d pushes, want 2", pushes)
		}
	})
}

// approve presses the consent page's Approve button the way a browser
// would: it loads the page, checks the button, and posts the form.
func approve(t *testing.T, pageURL string) {
	t.Helper()
	resp, err := http.Get(pageURL)
	if err != nil {
		t.Errorf("get consent page: %v", err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="approve"`) {
		t.Errorf("consent page: status %d, body %q", resp.StatusCode, body)
		return
	}
	resp, err = http.PostForm(pageURL+"/approve", url.Values{})
	if err != nil {
		t.Errorf("approve: %v", err)
		return
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="status"`) {
		t.Errorf("approve: status %d, body %q", resp.StatusCode, body)
	}
}

// formAndURL declares both elicitation modes.
func formAndURL() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
		Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
}

// urlFlowClient is a client whose elicitation handler accepts URL requests
// and reports their URL and id; its completion handler reports ids.
type urlFlowClient struct {
	urls      chan *mcp.ElicitParams
	completed chan string
}

func newURLFlowClient() *urlFlowClient {
	return &urlFlowClient{urls: make(chan *mcp.ElicitParams, 4), completed: make(chan string, 4)}
}

func (u *urlFlowClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: formAndURL(),
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			u.urls <- req.Params
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			u.completed <- req.Params.ElicitationID
		},
	}
}

func TestURLFlows(t *testing.T) {
	for _, tool := range []string{"link_account", "mrtr_url"} {
		t.Run(tool, func(t *testing.T) {
			each(t, func(t *testing.T, era string, l link) {
				s, _ := newDemo(t)
				u := newURLFlowClient()
				cs := connect(t, s, era, l, u.options())
				ctx := testCtx(t)
				type outcome struct {
					res *mcp.CallToolResult
					err error
				}
				done := make(chan outcome, 1)
				go func() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
					done <- outcome{res, err}
				}()
				var p *mcp.ElicitParams
				select {
				case p = <-u.urls:
				case <-ctx.Done():
					t.Fatal("no URL elicitation arrived")
				}
				if p.Mode != "url" || !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
					t.Fatalf("elicitation = %+v, want url mode on 127.0.0.1", p)
				}
				if (era == legacy) != (p.ElicitationID != "") {
					t.Errorf("elicitationId = %q in era %s", p.ElicitationID, era)
				}
				// The user approves in the browser after consenting in the client.
				approve(t, p.URL)
				var o outcome
				select {
				case o = <-done:
				case <-ctx.Done():
					t.Fatal("call did not finish after approval")
				}
				if o.err != nil || text(o.res) != "linked" {
					t.Fatalf("call = %v, %v; want linked", o.res, o.err)
				}
				if era == legacy {
					select {
					case id := <-u.completed:
						if id != p.ElicitationID {
							t.Errorf("completion for %q, want %q", id, p.ElicitationID)
						}
					case <-ctx.Done():
						t.Error("no notifications/elicitation/complete")
					}
				} else if len(u.completed) != 0 {
					t.Errorf("2026-07-28 client got a completion notification")
				}
			})
		})
	}
}

func TestNeedsLinkLegacy(t *testing.T) {
	for _, l := range links {
		t.Run(string(l), func(t *testing.T) {
			s, _ := newDemo(t)
			u := newURLFlowClient()
			cs := connect(t, s, legacy, l, u.options())
			ctx := testCtx(t)
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "needs_link"})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
				t.Fatalf("first call error = %v, want -32042", err)
			}
			var data struct {
				Elicitations []*mcp.ElicitParams `json:"elicitations"`
			}
			if err := json.Unmarshal(je.Data, &data); err != nil || len(data.Elicitations) != 1 {
				t.Fatalf("data = %s (%v), want one elicitation", je.Data, err)
			}
			e := data.Elicitations[0]
			if e.Mode != "url" || e.ElicitationID == "" || e.URL != s.ConsentURL(e.ElicitationID) {
				t.Fatalf("elicitation = %+v", e)
			}
			// Still not approved: the same requirement comes back.
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "needs_link"})
			var je2 *jsonrpc.Error
			if !errors.As(err, &je2) || je2.Code != mcp.CodeURLElicitationRequired || !strings.Contains(string(je2.Data), e.ElicitationID) {
				t.Fatalf("second call error = %v, want -32042 for %s", err, e.ElicitationID)
			}
			approve(t, e.URL)
			select {
			case id := <-u.completed:
				if id != e.ElicitationID {
					t.Errorf("completion for %q, want %q", id, e.ElicitationID)
				}
			case <-ctx.Done():
				t.Fatal("no notifications/elicitation/complete after approval")
			}
			res := call(t, cs, "needs_link", nil)
			if text(res) != "linked" || res.IsError {
				t.Errorf("after approval: %q (isError %v), want linked", text(res), res.IsError)
			}
		})
	}
}

func TestNeedsLinkModernAsksURLInput(t *testing.T) {
	s, w := newDemo(t)
	u := newURLFlowClient()
	u.urls = make(chan *mcp.ElicitParams, 1)
	opts := u.options()
	opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		approve(t, req.Params.URL) // the browser step finishes before the answer
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	cs := connect(t, s, modern, viaHTTP, opts)
	res := call(t, cs, "needs_link", nil)
	if text(res) != "linked" {
		t.Errorf("result = %q, want linked", text(res))
	}
	checkEra(t, w, modern, 0, 1)
}

// tampered returns state with its first character changed, so the signed body differs.
// (Overwriting the signature's last characters could leave it valid: those may already
// hold the written value, and the last one carries padding bits the decoder ignores.)
func tampered(state string) string {
	c := byte('A')
	if state[0] == c {
		c = 'B'
	}
	return string(c) + state[1:]
}

// TestManualMRTR drives the 2026-07-28 rounds by hand, as elicitty's own
// driver does, and checks the server's handling of requestState.
func TestManualMRTR(t *testing.T) {
	s, _ := newDemo(t)
	cs := connect(t, s, modern, viaHTTP, &mcp.ClientOptions{
		ElicitationHandler: answerer("accept", nil),
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx := testCtx(t)
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_multi"})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round = %+v, %v; want input_required", first, err)
	}
	if _, ok := first.InputRequests["name"]; !ok || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("first round asks %v with state %q", first.InputRequests, first.RequestState)
	}
	nameAnswer := mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Lin"}}}

	for _, tc := range []struct {
		name  string
		tool  string
		state string
		resp  mcp.InputResponseMap
	}{
		{"tampered state", "mrtr_multi", tampered(first.RequestState), nameAnswer},
		{"state of another tool", "mrtr_one", first.RequestState, nameAnswer},
		{"answer to nothing asked", "mrtr_multi", first.RequestState, mcp.InputResponseMap{"age": &mcp.ElicitResult{Action: "accept"}}},
		{"responses without state", "mrtr_multi", "", nameAnswer},
		{"invalid content", "mrtr_multi", first.RequestState, mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": 7}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, RequestState: tc.state, InputResponses: tc.resp})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("error = %v, want -32602", err)
			}
		})
	}

	second, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_multi", RequestState: first.RequestState, InputResponses: nameAnswer})
	if err != nil || !second.NeedsInput() {
		t.Fatalf("second round = %+v, %v", second, err)
	}
	age, ok := second.InputRequests["age"].(*mcp.ElicitParams)
	if !ok || age.Message != "Hello Lin, how old are you?" {
		t.Fatalf("second round asks %+v", second.InputRequests)
	}
	third, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_multi", RequestState: second.RequestState,
		InputResponses: mcp.InputResponseMap{"age": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"age": 40}}}})
	if err != nil || !third.NeedsInput() {
		t.Fatalf("third round = %+v, %v", third, err)
	}
	last, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_multi", RequestState: third.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}}) // no content: the default (true) applies
	if err != nil || last.NeedsInput() {
		t.Fatalf("last round = %+v, %v", last, err)
	}
	if got := text(last); got != "Lin is 40 (not confirmed)" {
		// Accept without content carries no "ok"; the server applies defaults
		// only to content it received, as go-sdk's Elicit does.
		t.Errorf("result = %q", got)
	}

	shed, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_shed"})
	if err != nil || !shed.NeedsInput() || len(shed.InputRequests) != 0 || shed.RequestState == "" {
		t.Fatalf("shed round = %+v, %v; want state-only input_required", shed, err)
	}
	done, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mrtr_shed", RequestState: shed.RequestState})
	if err != nil || done.NeedsInput() || text(done) != "done" {
		t.Fatalf("after shed = %+v, %v", done, err)
	}
}

func TestPlainFeatures(t *testing.T) {
	each(t, func(t *testing.T, era string, l link) {
		s, _ := newDemo(t)
		progress := make(chan float64, 10)
		cs := connect(t, s, era, l, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		}})
		ctx := testCtx(t)
		if got := text(call(t, cs, "echo", map[string]any{"text": "héllo"})); got != "héllo" {
			t.Errorf("echo = %q", got)
		}
		add := call(t, cs, "add", map[string]any{"a": 2, "b": 0.5})
		if diff := cmp.Diff(map[string]any{"sum": 2.5}, add.StructuredContent); diff != "" || text(add) != "2.5" {
			t.Errorf("add = %q, structured diff (-want +got):\n%s", text(add), diff)
		}
		p := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3, "interval_ms": 1}}
		p.SetProgressToken("tok")
		res, err := cs.CallTool(ctx, p)
		if err != nil || text(res) != "finished 3 steps" {
			t.Fatalf("slow = %v, %v", res, err)
		}
		// Progress may be delivered after the result; wait for all three.
		var gotProgress []float64
		for len(gotProgress) < 3 {
			select {
			case p := <-progress:
				gotProgress = append(gotProgress, p)
			case <-ctx.Done():
				t.Fatalf("progress so far %v, want 3 notifications", gotProgress)
			}
		}
		if diff := cmp.Diff([]float64{1, 2, 3}, gotProgress); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}

		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ada." {
			t.Errorf("greet = %+v, %v", pr, err)
		}
		for uri, want := range map[string]string{"demo://items/42": "item 42", "demo://readme": "elicitty demo server"} {
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || !strings.HasPrefix(rr.Contents[0].Text, want) {
				t.Errorf("read %s = %+v, %v", uri, rr, err)
			}
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
			if tl.Description == "" {
				t.Errorf("tool %s has no description", tl.Name)
			}
		}
		want := []string{"add", "add_tool", "confirm_only", "deploy", "echo", "elicit_n", "form_all_kinds", "link_account", "list_roots", "log_messages", "mrtr_multi",
			"mrtr_one", "mrtr_parallel", "mrtr_shed", "mrtr_url", "needs_link", "secret_warning", "slow", "summarize", "upload_file"}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
}

func TestElicitNBounds(t *testing.T) {
	s, _ := newDemo(t)
	cs := connect(t, s, legacy, inMemory, &mcp.ClientOptions{ElicitationHandler: answerer("accept", nil)})
	for _, n := range []int{0, 1001} {
		_, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "elicit_n", Arguments: map[string]any{"n": n}})
		if err == nil {
			t.Errorf("elicit_n n=%d succeeded, want an error", n)
		}
	}
	res := call(t, cs, "elicit_n", map[string]any{"n": 3})
	if text(res) != "answered 3 forms" {
		t.Errorf("elicit_n 3 = %q", text(res))
	}
}

func TestLegacySSE(t *testing.T) {
	s, _ := newDemo(t)
	srv := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sse-test", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: answerer("accept", map[string]any{"color": "blue"})}).
		Connect(testCtx(t), &mcp.SSEClientTransport{Endpoint: srv.URL + "/sse"}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := text(call(t, cs, "mrtr_one", nil)); got != "you picked blue" {
		t.Errorf("mrtr_one over SSE = %q", got)
	}
}

func TestServeStdio(t *testing.T) {
	s, _ := newDemo(t)
	ctx := testCtx(t)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(ctx, sr, sw) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: answerer("accept", nil)}).
		Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := text(call(t, cs, "confirm_only", nil)); got != "confirmed" {
		t.Errorf("confirm_only over stdio = %q", got)
	}
	cs.Close()
	sw.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio = %v, want nil after the client left", err)
		}
	case <-ctx.Done():
		t.Error("ServeStdio did not return after the client left")
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "example.com:80", "192.0.2.1:0", "nonsense"} {
		if _, err := New(&Options{ConsentAddr: addr}); err == nil {
			t.Errorf("New with ConsentAddr %q succeeded", addr)
		}
	}
	s, _ := newDemo(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "localhost6:0"} {
		if err := s.ServeHTTP(testCtx(t), addr); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("ServeHTTP(%q) = %v, want a loopback error", addr, err)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"localhost:8080", "127.0.0.1:8080"},
		{"[::1]:9", "[::1]:9"},
		{"127.1.2.3:80", "127.1.2.3:80"},
		{"0.0.0.0:80", ""},
		{"[::]:80", ""},
		{":80", ""},
		{"10.0.0.1:80", ""},
		{"example.com:80", ""},
		{"127.0.0.1", ""},
	} {
		got, err := loopback(tc.in)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("loopback(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	lines := make(chan string, 16)
	s, err := New(&Options{Logf: func(format string, args ...any) { lines <- fmt.Sprintf(format, args...) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithCancel(testCtx(t))
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, "127.0.0.1:0") }()
	var endpoint string
	for endpoint == "" {
		select {
		case l := <-lines:
			if _, rest, ok := strings.Cut(l, "MCP endpoint "); ok {
				endpoint, _, _ = strings.Cut(rest, " ")
			}
		case <-ctx.Done():
			t.Fatal("ServeHTTP never logged its endpoint")
		}
	}
	for _, era := range eras {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("%s: connect %s: %v", era, endpoint, err)
		}
		if got := text(call(t, cs, "echo", map[string]any{"text": era})); got != era {
			t.Errorf("%s: echo = %q", era, got)
		}
		cs.Close()
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeHTTP after cancel = %v, want nil", err)
		}
	case <-testCtx(t).Done():
		t.Error("ServeHTTP did not return after cancel")
	}
}

func TestConsentPage(t *testing.T) {
	s, _ := newDemo(t)
	c := s.consents.create(`<script>alert("x")</script> & more`, nil)
	base := s.ConsentURL("")
	get := func(t *testing.T, method, u string, header http.Header) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		if host := header.Get("Host"); host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	unknown := "AAAAAAAAAAAAAAAAAAAAAAAAAA"
	for _, tc := range []struct {
		name, method, url string
		header            http.Header
		want              int
	}{
		{"unknown id", "GET", base + unknown, nil, 404},
		{"malformed id", "GET", base + "..%2F..%2Fetc", nil, 404},
		{"approve unknown id", "POST", base + unknown + "/approve", nil, 404},
		{"approve malformed id", "POST", base + "x/approve", nil, 404},
		{"cross-site approve", "POST", base + c.id + "/approve", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"foreign origin approve", "POST", base + c.id + "/approve", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"rebinding host", "GET", base + c.id, http.Header{"Host": {"evil.example"}}, 403},
		{"approve by GET", "GET", base + c.id + "/approve", nil, 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, body := get(t, tc.method, tc.url, tc.header); code != tc.want {
				t.Errorf("status = %d, want %d (%s)", code, tc.want, body)
			}
		})
	}
	if c.approved() {
		t.Fatal("a refused request approved the consent")
	}
	code, body := get(t, "GET", s.ConsentURL(c.id), nil)
	if code != 200 || strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("page: %d, message not escaped:\n%s", code, body)
	}
	if !strings.Contains(body, fmt.Sprintf(`action="/consent/%s/approve"`, c.id)) || !strings.Contains(body, `<button id="approve"`) {
		t.Errorf("page lacks the approve form:\n%s", body)
	}
	code, _ = get(t, "POST", s.ConsentURL(c.id)+"/approve", http.Header{"Sec-Fetch-Site": {"same-origin"}})
	if code != 200 {
		t.Errorf("same-origin approve: %d", code)
	}
	// The page answers before the approval takes effect (see consentHandler), so the
	// approval is awaited, not read at once.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.wait(ctx); err != nil {
		t.Errorf("same-origin approve: not approved: %v", err)
	}
	// A second approval is harmless.
	if code, _ := get(t, "POST", s.ConsentURL(c.id)+"/approve", nil); code != 200 {
		t.Errorf("second approve: %d", code)
	}
}

func TestStateRoundTrip(t *testing.T) {
	s, _ := newDemo(t)
	st := flowState{Name: "x", Answers: map[string]*mcp.ElicitResult{"k": {Action: "accept", Content: map[string]any{"a": "\u2028<&>"}}}, Memo: map[string]string{"m": "v"}}
	enc, err := s.encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.decodeState(enc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	other, _ := newDemo(t)
	if _, err := other.decodeState(enc); err == nil {
		t.Error("another server accepted the state")
	}
}

// TestWireOrderAndShape posts a raw 2026-07-28 tools/call and checks the
// bytes: an input_required result whose form keeps the server's property
// order, which go-sdk's client would lose by decoding into a map.
func TestWireOrderAndShape(t *testing.T) {
	s, _ := newDemo(t)
	srv := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(srv.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"form_all_kinds","arguments":{},
	  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	    "io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},
	    "io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}`
	req, err := http.NewRequestWithContext(testCtx(t), "POST", srv.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", modern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "form_all_kinds")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	got := string(raw)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	for _, want := range []string{`"resultType":"input_required"`, `"method":"elicitation/create"`, `"requestState":"`} {
		if !strings.Contains(got, want) {
			t.Errorf("response lacks %s:\n%s", want, got)
		}
	}
	order := []string{`"name":{`, `"seats":{`, `"email":{`, `"region":{`, `"homepage":{`, `"budget":{`, `"size":{`,
		`"birthday":{`, `"tags":{`, `"subscribe":{`, `"color":{`, `"meeting":{`, `"features":{`}
	last := -1
	for _, key := range order {
		i := strings.Index(got, key)
		if i <= last {
			t.Fatalf("property %s at %d, not after the previous one (%d):\n%s", key, i, last, got)
		}
		last = i
	}
}
