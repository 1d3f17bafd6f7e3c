package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceContext is the optional MCP_CONFORMANCE_CONTEXT of a scenario.
type conformanceContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	// ClientID and ClientSecret are pre-registered OAuth credentials (auth/pre-registration).
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// conformanceClientMetadataURL is the client ID metadata document URL the suite's
// auth/basic-cimd scenario expects as client_id.
const conformanceClientMetadataURL = "https://conformance-test.local/client-metadata.json"

func (a *app) conformanceCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "conformance URL",
		Short: "Headless client for the MCP conformance suite",
		// A tool of the test suite (scripts/conformance.sh), not of end users.
		Hidden: true,
		Long: `Acts as the client of one MCP conformance scenario (MCP_CONFORMANCE_SCENARIO), using
the same code paths as the other commands: it connects to URL, lists and calls every
tool (or exactly the tool calls of MCP_CONFORMANCE_CONTEXT), gets every prompt and reads
every resource, and accepts every elicitation with the schema defaults (type-appropriate
values where there is none). MCP_CONFORMANCE_PROTOCOL_VERSION pins the protocol.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runConformance(cmd.Context(), args[0])
		},
	}
}

// conformanceRun is one scenario's client: its environment, session and the first
// lost connection (the only failure of the client itself).
type conformanceRun struct {
	a        *app
	scenario string
	cc       conformanceContext
	protocol string
	pinnedBy string
	s        *transport.Session
	lost     error
	// cleanup removes the grant's temporary key and token files after the run.
	cleanup func()
}

func (a *app) runConformance(ctx context.Context, url string) error {
	r, err := a.readConformanceEnv()
	if err != nil {
		return err
	}
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	defer func() {
		if r.cleanup != nil {
			r.cleanup()
		}
	}()
	if err := r.connect(ctx, url, log); err != nil {
		return err
	}
	defer r.s.Close()
	if err := a.conformanceSkills(ctx, r.scenario, r.s); err != nil {
		return err
	}
	if err := r.callTools(ctx); err != nil {
		return err
	}
	if len(r.cc.ToolCalls) == 0 {
		r.getPrompts(ctx)
		r.readResources(ctx)
	}
	return r.lost
}

// readConformanceEnv reads MCP_CONFORMANCE_SCENARIO, _CONTEXT and _PROTOCOL_VERSION.
func (a *app) readConformanceEnv() (*conformanceRun, error) {
	r := &conformanceRun{a: a, scenario: os.Getenv("MCP_CONFORMANCE_SCENARIO"), protocol: a.protocol, pinnedBy: "--protocol"}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &r.cc); err != nil {
			return nil, usagef("MCP_CONFORMANCE_CONTEXT is not valid JSON: %w", err)
		}
	}
	if v := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); r.protocol == "" && v != "" {
		r.protocol, r.pinnedBy = v, "MCP_CONFORMANCE_PROTOCOL_VERSION"
	}
	// Otherwise (the stable suite) nothing is pinned: the era choice offers 2025-11-25
	// through initialize, which the stable mocks speak, and accepts what they answer
	// (sse-retry's mock answers 2025-03-26).
	return r, nil
}

// connect reaches the scenario's server, accepting every elicitation with defaults.
func (r *conformanceRun) connect(ctx context.Context, url string, log *wire.Log) error {
	a := r.a
	srv := config.Server{Name: "conformance", URL: url, Kind: config.KindHTTP, Protocol: r.protocol}
	if a.timeout > 0 {
		srv.Timeout = a.timeout
	}
	auto := elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
		resp := elicit.AutoAccept(req)
		fmt.Fprintf(a.stderr, "conformance: %s: %s elicitation %q: %s\n", r.scenario, modeOf(req), elicit.Sanitize(req.Message), resp.Action)
		return resp, nil
	})
	// The suite's authorization servers redirect at once: a client that follows
	// the redirects down to the loopback listener plays the browser.
	auth := &oauth.Options{
		Browser:           oauth.FollowBrowser{},
		ClientID:          r.cc.ClientID,
		ClientSecret:      r.cc.ClientSecret,
		ClientMetadataURL: conformanceClientMetadataURL,
		Wait:              15 * time.Second,
	}
	cleanup, err := conformanceGrant(r.scenario, os.Getenv("MCP_CONFORMANCE_CONTEXT"), auth)
	if err != nil {
		return err
	}
	r.cleanup = cleanup
	s, err := transport.Connect(ctx, srv, transport.Options{
		ClientName:    "elicitty",
		ClientVersion: currentVersion().Version,
		Answerer:      elicit.NewEngine(auto, nil),
		URLMode:       !a.noURL,
		Protocol:      r.protocol,
		PinnedBy:      r.pinnedBy,
		Log:           log,
		OAuth:         auth,
	})
	if err != nil {
		return err
	}
	r.s = s
	return nil
}

// call calls one tool. A call the server answers with an error is the scenario's
// business (the suite scores it); only a lost connection fails the client.
func (r *conformanceRun) call(ctx context.Context, name string, args map[string]any) {
	res, _, err := r.s.CallTool(ctx, name, args)
	var conn *transport.ConnError
	switch {
	case errors.As(err, &conn):
		r.lost = err
		fmt.Fprintf(r.a.stderr, "conformance: call %s: %v\n", name, err)
	case err != nil:
		fmt.Fprintf(r.a.stderr, "conformance: call %s: %v\n", name, err)
	case res.IsError:
		fmt.Fprintf(r.a.stderr, "conformance: call %s: tool error result\n", name)
	default:
		fmt.Fprintf(r.a.stderr, "conformance: call %s: ok\n", name)
	}
}

// schemaEchoTool is the tool of json-schema-2020-12-preservation that takes another
// tool's input schema back, verbatim, as its "schema" argument.
const schemaEchoTool = "json_schema_echo"

// callTools calls exactly the context's tool calls, or else every listed tool with
// arguments built from its input schema. Tools with invalid x-mcp-header annotations
// are refused by the session and so never reach the server.
func (r *conformanceRun) callTools(ctx context.Context) error {
	if len(r.cc.ToolCalls) > 0 {
		for _, tc := range r.cc.ToolCalls {
			r.call(ctx, tc.Name, tc.Arguments)
		}
		return nil
	}
	if caps := r.s.Capabilities(); caps != nil && caps.Tools == nil {
		return nil
	}
	tools, err := r.s.Tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		r.call(ctx, t.Name, r.toolArgs(t, tools))
	}
	return nil
}

// toolArgs builds a tool's arguments: the defaults and type-appropriate values its
// schema asks for, or, for the schema echo tool, the other tool's input schema whole.
func (r *conformanceRun) toolArgs(t *mcp.Tool, all []*mcp.Tool) map[string]any {
	if t.Name == schemaEchoTool && r.scenario == "json-schema-2020-12-preservation" {
		for _, other := range all {
			if other.Name != schemaEchoTool {
				return map[string]any{"schema": other.InputSchema}
			}
		}
	}
	schema, _ := json.Marshal(t.InputSchema)
	args := elicit.AutoAccept(&elicit.Request{Server: "conformance", Protocol: r.s.Protocol(), Schema: schema}).Content
	if args == nil {
		args = map[string]any{}
	}
	return args
}

// getPrompts gets every prompt, with "test" for each argument.
func (r *conformanceRun) getPrompts(ctx context.Context) {
	if caps := r.s.Capabilities(); caps == nil || caps.Prompts == nil {
		return
	}
	prompts, err := r.s.Prompts(ctx)
	if err != nil {
		return
	}
	for _, p := range prompts {
		args := map[string]string{}
		for _, arg := range p.Arguments {
			args[arg.Name] = "test"
		}
		if _, _, err := r.s.GetPrompt(ctx, p.Name, args); err != nil {
			fmt.Fprintf(r.a.stderr, "conformance: prompt %s: %v\n", p.Name, err)
		}
	}
}

// readResources reads every listed resource.
func (r *conformanceRun) readResources(ctx context.Context) {
	if caps := r.s.Capabilities(); caps == nil || caps.Resources == nil {
		return
	}
	res, _, err := r.s.Resources(ctx)
	if err != nil {
		return
	}
	for _, rs := range res {
		if _, _, err := r.s.ReadResource(ctx, rs.URI); err != nil {
			fmt.Fprintf(r.a.stderr, "conformance: read %s: %v\n", rs.URI, err)
		}
	}
}
