package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type slowIn struct {
	Steps      int `json:"steps,omitempty" jsonschema:"number of steps, 1-20 (default 3)"`
	IntervalMS int `json:"interval_ms,omitempty" jsonschema:"milliseconds per step, 0-2000 (default 100)"`
}

// addPlainTools registers the tools that ask nothing: echo, add and slow.
func (s *Server) addPlainTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns its text argument unchanged.",
		Annotations: readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return textResult(in.Text, nil), nil, nil
	})

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "add",
		Title:       "Add two numbers",
		Description: "Returns a+b as text and as structuredContent {sum}.",
		Annotations: readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		sum := in.A + in.B
		return textResult(fmt.Sprint(sum), nil), addOut{Sum: sum}, nil
	})

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "slow",
		Title: "Slow task with progress",
		Description: "Works for steps×interval_ms milliseconds and sends notifications/progress after " +
			"each step when the call carries a progressToken. Returns \"finished N steps\".",
		Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		if in.Steps == 0 {
			in.Steps = 3
		}
		if in.IntervalMS == 0 {
			in.IntervalMS = 100
		}
		if in.Steps < 1 || in.Steps > 20 || in.IntervalMS < 0 || in.IntervalMS > 2000 {
			return nil, nil, errors.New("steps must be 1-20 and interval_ms 0-2000")
		}
		token := req.Params.GetProgressToken()
		t := time.NewTicker(time.Duration(in.IntervalMS) * time.Millisecond)
		defer t.Stop()
		for i := 1; i <= in.Steps; i++ {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-t.C:
			}
			if token != nil {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.Steps),
					Message: fmt.Sprintf("step %d of %d", i, in.Steps),
				})
				if err != nil {
					s.logf("demo: progress: %v", err)
				}
			}
		}
		return textResult(fmt.Sprintf("finished %d steps", in.Steps), nil), nil, nil
	})
}

// addPrompts registers greet and mrtr_prompt.
func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Title:       "Greeting",
		Description: "A one-message prompt that greets NAME.",
		Arguments:   []*mcp.PromptArgument{{Name: "name", Title: "Name", Description: "Who to greet", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name := req.Params.Arguments["name"]
		if strings.TrimSpace(name) == "" {
			return nil, invalidParams("argument %q is required", "name")
		}
		return &mcp.GetPromptResult{
			Description: "A greeting",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + name + "."}}},
		}, nil
	})

	const name = "mrtr_prompt"
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:  name,
		Title: "Haiku (asks for a topic)",
		Description: "prompts/get that needs input: it asks for a topic (an input request in 2026-07-28, " +
			"elicitation/create for legacy clients) and returns a haiku prompt about it.",
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		p := req.Params
		a, err := s.begin(req.Session, req.ClientCapabilities(), "prompt:"+name, p.RequestState, p.InputResponses, true)
		if err != nil {
			return nil, err
		}
		r, err := a.ask(ctx, "topic", form("What should the haiku be about?", topicSchema))
		if errors.Is(err, errNeedInput) {
			need, st, err := s.suspend(a)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{InputRequests: need, RequestState: st}, nil
		}
		if err != nil {
			return nil, err
		}
		text := "The user " + refusalWord(r.Action) + " to pick a topic; write a haiku about anything."
		if r.Action == "accept" {
			topic, _ := r.Content["topic"].(string)
			text = "Write a haiku about " + topic + "."
		}
		return &mcp.GetPromptResult{
			Description: "A haiku prompt",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	})
}

// refusalWord names a refusal action in past tense.
func refusalWord(action string) string {
	switch action {
	case "decline":
		return "declined"
	case "cancel":
		return "cancelled"
	}
	return action
}

// readmeText is demo://readme, naming the tools the server lists (tools/list, so the
// text stays true as tools are added).
func readmeText(tools []string) string {
	return "elicitty demo server\n\nTools: " + strings.Join(tools, ", ") + ".\n" +
		"Prompts: greet, mrtr_prompt. Resources: demo://readme, demo://items/{id}, demo://mrtr/resource, " +
		TickerURI + ".\n" +
		"completion/complete suggests ids for the template demo://items/{id} and names for greet.\n"
}

// readmeMiddleware answers resources/read of demo://readme with the tools the server
// lists to this session at that moment.
func readmeMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rr, ok := req.(*mcp.ReadResourceRequest)
		if method != "resources/read" || !ok || rr.Params == nil || rr.Params.URI != "demo://readme" {
			return next(ctx, method, req)
		}
		var names []string
		params := &mcp.ListToolsParams{}
		for range 100 { // pages
			res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: rr.Session, Params: params})
			if err != nil {
				return nil, err
			}
			lt, ok := res.(*mcp.ListToolsResult)
			if !ok {
				return nil, fmt.Errorf("tools/list answered %T", res)
			}
			for _, t := range lt.Tools {
				names = append(names, t.Name)
			}
			if lt.NextCursor == "" {
				break
			}
			params = &mcp.ListToolsParams{Cursor: lt.NextCursor}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: rr.Params.URI, MIMEType: "text/plain", Text: readmeText(names)}}}, nil
	}
}

// mrtrResourceURI is the resource that needs input to be read.
const mrtrResourceURI = "demo://mrtr/resource"

// addResources registers demo://readme, the template demo://items/{id} and
// demo://mrtr/resource.
func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{
		URI: "demo://readme", Name: "readme", Title: "About the demo server", MIMEType: "text/plain",
		Description: "What the demo server offers.",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		// readmeMiddleware answers first; this is what a server without it would say.
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: readmeText([]string{"see tools/list"})}}}, nil
	})

	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "demo://items/{id}", Name: "item", Title: "Demo item", MIMEType: "text/plain",
		Description: "A made-up item; any id works.",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id, ok := strings.CutPrefix(req.Params.URI, "demo://items/")
		if !ok || id == "" {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + id}}}, nil
	})

	s.mcp.AddResource(&mcp.Resource{
		URI: mrtrResourceURI, Name: "mrtr_resource", Title: "Resource that asks first", MIMEType: "text/plain",
		Description: "resources/read that needs input: it asks which section to return (an input request " +
			"in 2026-07-28, elicitation/create for legacy clients).",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		p := req.Params
		a, err := s.begin(req.Session, req.ClientCapabilities(), "resource:"+mrtrResourceURI, p.RequestState, p.InputResponses, true)
		if err != nil {
			return nil, err
		}
		r, err := a.ask(ctx, "section", form("Which section do you want to read?", sectionSchema))
		if errors.Is(err, errNeedInput) {
			need, st, err := s.suspend(a)
			if err != nil {
				return nil, err
			}
			res := &mcp.ReadResourceResult{InputRequests: need, RequestState: st}
			if !a.modern {
				// go-sdk v1.8.0 rejects a legacy read result with nil
				// Contents before its MRTR conversion sees it; an empty
				// list gets through and is never sent.
				res.Contents = []*mcp.ResourceContents{}
			}
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		text := refusalWord(r.Action)
		if r.Action == "accept" {
			section, _ := r.Content["section"].(string)
			text = map[string]string{"intro": "Introduction: this resource asked before it answered.",
				"usage": "Usage: read it again to be asked again."}[section]
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: mrtrResourceURI, MIMEType: "text/plain", Text: text}}}, nil
	})
}
