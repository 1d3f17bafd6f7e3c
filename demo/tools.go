package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// consentHold is how long a URL flow waits for the consent page to be
// approved after the user consented to open it.
const consentHold = 10 * time.Minute

// toolFlow is the body of an eliciting tool; see asker.
type toolFlow func(ctx context.Context, a *asker, args json.RawMessage) (*mcp.CallToolResult, error)

// addFlowTool registers an eliciting tool that works in both eras. convert
// makes a legacy client's first round go through go-sdk's MRTR conversion
// (the MRTR tools); otherwise legacy clients get plain elicitation/create.
func (s *Server) addFlowTool(t *mcp.Tool, convert bool, f toolFlow) {
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.Params
		a, err := s.begin(req.Session, req.ClientCapabilities(), t.Name, p.RequestState, p.InputResponses, convert)
		if err != nil {
			return nil, err
		}
		res, err := f(ctx, a, p.Arguments)
		if errors.Is(err, errNeedInput) {
			need, st, err := s.suspend(a)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{InputRequests: need, RequestState: st}, nil
		}
		return toolResult(res, err)
	})
}

// readOnly annotates a tool that changes nothing: it computes, or asks the user and
// reports the answer. A client may run such a tool without asking first. The demo's
// world is closed: this process and its consent page.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
}

// changes annotates a tool that changes the demo's state, only by adding to it: a tool
// added, a consent request opened, an account linked, a deployment played. A client
// should ask before running it.
func changes() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
}

// toolResult turns a flow's error into the call's outcome: a *jsonrpc.Error
// (such as -32042 or -32602) is returned bare so its data reaches the wire;
// any other error is a tool result with isError.
func toolResult(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if err == nil {
		return res, nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return nil, je
	}
	res = &mcp.CallToolResult{}
	res.SetError(err)
	return res, nil
}

// textResult is a successful result with one text block and, if
// structured is not nil, structured content.
func textResult(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
}

// refused returns the result for an answer that is not accept, worded
// "declined" or "cancelled" so the two are never confused, and reports
// whether r was such an answer.
func refused(r *mcp.ElicitResult) (*mcp.CallToolResult, bool) {
	switch r.Action {
	case "accept":
		return nil, false
	case "decline":
		return textResult("declined", map[string]any{"action": "decline"}), true
	case "cancel":
		return textResult("cancelled", map[string]any{"action": "cancel"}), true
	default:
		return toolError(fmt.Errorf("unknown elicitation action %q", r.Action)), true
	}
}

func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

func form(message string, schema json.RawMessage) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("arguments: %v", err)
	}
	return nil
}

// addTools registers every demo tool, group by group.
func (s *Server) addTools() {
	s.addFormTools()
	s.addURLTools()
	s.addMRTRTools()
	s.addPlainTools()
	s.addSamplingTools()
	s.addNotifyTools()
	s.addFileTools()
}

// addFormTools registers the tools that ask forms (pushed elicitation/create, or input
// requests in the 2026-07-28 era).
func (s *Server) addFormTools() {
	s.addFlowTool(&mcp.Tool{
		Name:  "form_all_kinds",
		Title: "Form with every field kind",
		Description: "Asks one form with every elicitation field kind, in a deliberate non-alphabetical order: " +
			"text with title/description/length bounds, email, uri, date and date-time formats, number and " +
			"integer with bounds, boolean, an untitled enum, a titled oneOf, a legacy enum+enumNames, a " +
			"multi-select items.enum with min/maxItems and a titled multi-select items.anyOf; several have " +
			"defaults and several are required. Returns the action and content received, as text and as " +
			"structuredContent {action, content}; a refusal is reported as \"declined\" or \"cancelled\".",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, false, s.formAllKindsTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "deploy",
		Title: "Deploy (chained forms)",
		Description: "Two forms in a row: first pick the environment (titled select), then confirm with a " +
			"replica count (integer 1-10) and a yes/no. Returns \"deployed SERVICE to ENV with N replicas\", " +
			"\"not deployed\" when not confirmed, or \"declined\"/\"cancelled\".",
		InputSchema: deployArgs,
		Annotations: changes(),
	}, false, s.deployTool)

	s.addFlowTool(&mcp.Tool{
		Name:        "confirm_only",
		Title:       "Confirmation (empty form)",
		Description: "Asks a form with an empty schema: a pure yes/no confirmation. Returns \"confirmed\", \"declined\" or \"cancelled\".",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, false, s.confirmOnlyTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "secret_warning",
		Title: "Form asking for a secret",
		Description: "Asks a form for an api_token, which servers must not do (secrets belong in URL mode); " +
			"it exists to show the client's warning about sensitive fields. The token is never echoed: the " +
			"result only says how many characters arrived.",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, false, s.secretWarningTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "elicit_n",
		Title: "N forms in a row",
		Description: "Asks n small forms (one optional text field with a default) one after another, for " +
			"benchmarks; in the 2026-07-28 era each form is one round, so n is bounded by the client's " +
			"round cap (go-sdk's automatic loop allows 9 forms). Returns \"answered N forms\", or " +
			"\"declined at form I\"/\"cancelled at form I\".",
		InputSchema: elicitNArgs,
		Annotations: readOnly(),
	}, false, s.elicitNTool)
}

// addURLTools registers the URL-mode tools: a URL elicitation and a -32042 error.
func (s *Server) addURLTools() {
	s.addFlowTool(&mcp.Tool{
		Name:  "link_account",
		Title: "Link an account (URL mode)",
		Description: "URL-mode elicitation: asks the user to open a consent page served by the demo " +
			"server on 127.0.0.1; once its Approve button is pressed the server sends " +
			"notifications/elicitation/complete (2025-11-25 era) and the tool returns \"linked\". " +
			"Returns \"declined\"/\"cancelled\" if the user refuses to open the link.",
		InputSchema: noArgs,
		Annotations: changes(),
	}, false, s.linkAccountTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "needs_link",
		Title: "Fails with -32042 until linked",
		Description: "In the 2025-11-25 era this call fails with error -32042 (URL elicitation required) " +
			"whose data.elicitations holds one URL entry, until that consent page is approved; the server " +
			"then sends notifications/elicitation/complete and a retry returns \"linked\". In the " +
			"2026-07-28 era, which has no -32042, it asks the same link as a URL input request.",
		InputSchema: noArgs,
		Annotations: changes(),
	}, false, s.needsLinkTool)
}

// addMRTRTools registers the 2026-07-28 multi round-trip tools (converted for legacy clients).
func (s *Server) addMRTRTools() {
	s.addFlowTool(&mcp.Tool{
		Name:  "mrtr_one",
		Title: "MRTR: one round",
		Description: "2026-07-28 multi round-trip: returns input_required with one form input request " +
			"(a colour), then completes with \"you picked COLOUR\". Legacy clients get the same form " +
			"pushed through go-sdk's conversion.",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, true, s.mrtrOneTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "mrtr_multi",
		Title: "MRTR: three rounds",
		Description: "2026-07-28 multi round-trip over three rounds (name, then age, then a confirmation " +
			"that quotes both); earlier answers travel in requestState. Returns \"NAME is AGE (confirmed)\" " +
			"or \"(not confirmed)\", or \"declined\"/\"cancelled\". Legacy clients get the first round " +
			"through go-sdk's conversion and the later ones pushed.",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, true, s.mrtrMultiTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "mrtr_parallel",
		Title: "MRTR: two inputs in one round",
		Description: "2026-07-28 multi round-trip with two input requests in the same round (city and " +
			"days). Returns \"N days in CITY\"; if either answer is a refusal it reports which " +
			"(\"declined\"/\"cancelled\").",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, true, s.mrtrParallelTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "mrtr_url",
		Title: "MRTR: URL input",
		Description: "2026-07-28 multi round-trip with a URL-mode input request pointing at the demo " +
			"consent page; after the user accepts, the retry waits until the page is approved and " +
			"returns \"linked\". Legacy clients get it as URL-mode elicitation/create.",
		InputSchema: noArgs,
		Annotations: changes(),
	}, true, s.mrtrUrlTool)

	s.addFlowTool(&mcp.Tool{
		Name:  "mrtr_shed",
		Title: "MRTR: load shedding",
		Description: "2026-07-28 load shedding: the first call returns input_required with only a " +
			"requestState (no input requests); the retry completes with \"done\". Legacy clients, which " +
			"have no such round, get \"done\" at once.",
		InputSchema: noArgs,
		Annotations: readOnly(),
	}, true, s.mrtrShedTool)
}

// formAllKindsTool runs the form_all_kinds tool.
func (s *Server) formAllKindsTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := a.ask(ctx, "profile", form("Tell us about yourself (this form uses every field kind)", allKindsSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	b, err := json.Marshal(r.Content)
	if err != nil {
		return nil, fmt.Errorf("encode content: %w", err)
	}
	return textResult("accepted: "+string(b), map[string]any{"action": "accept", "content": r.Content}), nil
}

// deployTool runs the deploy tool.
func (s *Server) deployTool(ctx context.Context, a *asker, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args struct {
		Service string `json:"service"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.Service == "" {
		args.Service = "api"
	}
	r, err := a.ask(ctx, "env", form(fmt.Sprintf("Which environment should %s be deployed to?", args.Service), deployEnvSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	env, _ := r.Content["env"].(string)
	r, err = a.ask(ctx, "confirm", form(fmt.Sprintf("Deploy %s to %s?", args.Service, env), deployConfirmSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	replicas := toInt(r.Content["replicas"])
	confirmed, _ := r.Content["confirm"].(bool)
	out := map[string]any{"action": "accept", "service": args.Service, "env": env, "replicas": replicas, "confirmed": confirmed}
	if !confirmed {
		return textResult("not deployed: not confirmed", out), nil
	}
	return textResult(fmt.Sprintf("deployed %s to %s with %d replicas", args.Service, env, replicas), out), nil
}

// confirmOnlyTool runs the confirm_only tool.
func (s *Server) confirmOnlyTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := a.ask(ctx, "confirm", form("Proceed with the demo operation?", emptySchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	return textResult("confirmed", map[string]any{"action": "accept"}), nil
}

// secretWarningTool runs the secret_warning tool.
func (s *Server) secretWarningTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := a.ask(ctx, "token", form("Paste your API token for the demo service", secretSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	tok, _ := r.Content["api_token"].(string)
	n := len([]rune(tok))
	unit := "characters"
	if n == 1 {
		unit = "character"
	}
	return textResult(fmt.Sprintf("received a token of %d %s", n, unit), map[string]any{"action": "accept", "length": n}), nil
}

// elicitNTool runs the elicit_n tool.
func (s *Server) elicitNTool(ctx context.Context, a *asker, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args struct {
		N int `json:"n"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.N < 1 || args.N > 1000 {
		return nil, invalidParams("n must be between 1 and 1000, got %d", args.N)
	}
	for i := 1; i <= args.N; i++ {
		r, err := a.ask(ctx, "q"+strconv.Itoa(i), form(fmt.Sprintf("Form %d of %d", i, args.N), nthSchema))
		if err != nil {
			return nil, err
		}
		if r.Action != "accept" {
			word := map[string]string{"decline": "declined", "cancel": "cancelled"}[r.Action]
			return textResult(fmt.Sprintf("%s at form %d", word, i), map[string]any{"action": r.Action, "answered": i - 1}), nil
		}
	}
	return textResult(fmt.Sprintf("answered %d forms", args.N), map[string]any{"action": "accept", "answered": args.N}), nil
}

// linkAccountTool runs the link_account tool.
func (s *Server) linkAccountTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	return s.link(ctx, a, "link", "Link your demo account: approve the request on the consent page")
}

// needsLinkTool runs the needs_link tool.
func (s *Server) needsLinkTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	const msg = "This tool needs your demo account linked: approve the request on the consent page"
	if a.modern {
		return s.link(ctx, a, "link", msg)
	}
	if err := a.supports("url"); err != nil {
		return nil, err
	}
	c := s.consents.forSession(a.ss, func() *consent {
		ss := a.ss
		return s.consents.create(msg, func(c *consent) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: c.id}); err != nil {
				s.logf("demo: notify elicitation complete: %v", err)
			}
		})
	})
	if !c.approved() {
		return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
			Mode: "url", Message: msg, URL: s.ConsentURL(c.id), ElicitationID: c.id,
		}})
	}
	return textResult("linked", map[string]any{"action": "accept", "linked": true}), nil
}

// mrtrOneTool runs the mrtr_one tool.
func (s *Server) mrtrOneTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := a.ask(ctx, "color", form("Pick a colour", colorSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	c, _ := r.Content["color"].(string)
	return textResult("you picked "+c, map[string]any{"action": "accept", "color": c}), nil
}

// mrtrMultiTool runs the mrtr_multi tool.
func (s *Server) mrtrMultiTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	r, err := a.ask(ctx, "name", form("What is your name?", nameSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	name, _ := r.Content["name"].(string)
	r, err = a.ask(ctx, "age", form(fmt.Sprintf("Hello %s, how old are you?", name), ageSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	age := toInt(r.Content["age"])
	r, err = a.ask(ctx, "confirm", form(fmt.Sprintf("%s, %d years: is that right?", name, age), okSchema))
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	ok, _ := r.Content["ok"].(bool)
	word := "not confirmed"
	if ok {
		word = "confirmed"
	}
	return textResult(fmt.Sprintf("%s is %d (%s)", name, age, word),
		map[string]any{"action": "accept", "name": name, "age": age, "confirmed": ok}), nil
}

// mrtrParallelTool runs the mrtr_parallel tool.
func (s *Server) mrtrParallelTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	rs, err := a.askAll(ctx,
		question{"city", form("Which city are you travelling to?", citySchema)},
		question{"days", form("For how many days?", daysSchema)})
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if res, ok := refused(r); ok {
			return res, nil
		}
	}
	city, _ := rs[0].Content["city"].(string)
	days := toInt(rs[1].Content["days"])
	return textResult(fmt.Sprintf("%d days in %s", days, city), map[string]any{"action": "accept", "city": city, "days": days}), nil
}

// mrtrUrlTool runs the mrtr_url tool.
func (s *Server) mrtrUrlTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	return s.link(ctx, a, "consent", "Approve the demo request on the consent page")
}

// mrtrShedTool runs the mrtr_shed tool.
func (s *Server) mrtrShedTool(ctx context.Context, a *asker, _ json.RawMessage) (*mcp.CallToolResult, error) {
	if err := a.shed(); err != nil {
		return nil, err
	}
	return textResult("done", map[string]any{"action": "none"}), nil
}

// link runs a URL-mode flow: it asks the user to open a consent page and,
// once they accept, waits for the page to be approved.
func (s *Server) link(ctx context.Context, a *asker, key, message string) (*mcp.CallToolResult, error) {
	id, err := a.memo("consent:"+key, func() (string, error) { return s.consents.create(message, nil).id, nil })
	if err != nil {
		return nil, err
	}
	c, ok := s.consents.get(id)
	if !ok {
		return nil, invalidParams("consent %s is unknown to this server", id)
	}
	p := &mcp.ElicitParams{Mode: "url", Message: message, URL: s.ConsentURL(id)}
	if !a.modern {
		p.ElicitationID = id
	}
	s.logf("demo: consent page %s", p.URL)
	r, err := a.ask(ctx, key, p)
	if err != nil {
		return nil, err
	}
	if res, ok := refused(r); ok {
		return res, nil
	}
	hold, cancel := context.WithTimeout(ctx, consentHold)
	defer cancel()
	if err := c.wait(hold); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError(fmt.Errorf("the consent page was not approved within %s", consentHold)), nil
	}
	if !a.modern {
		if err := a.ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id}); err != nil {
			s.logf("demo: notify elicitation complete: %v", err)
		}
	}
	return textResult("linked", map[string]any{"action": "accept", "linked": true}), nil
}

// toInt converts a JSON number to int.
func toInt(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}
