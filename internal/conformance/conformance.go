// Package conformance is the headless client of the MCP conformance suites
// (scripts/conformance.sh runs it as the hidden `elicitty conformance URL` command): one
// scenario, named by MCP_CONFORMANCE_SCENARIO, played with the code paths of the other
// commands. It connects, lists and calls every tool (or exactly the tool calls of
// MCP_CONFORMANCE_CONTEXT), gets every prompt, reads every resource and accepts every
// elicitation with the schema defaults.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
)

// scenarioContext is the optional MCP_CONFORMANCE_CONTEXT of a scenario.
type scenarioContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	// ClientID and ClientSecret are pre-registered OAuth credentials (auth/pre-registration).
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// clientMetadataURL is the client ID metadata document URL the suite's
// auth/basic-cimd scenario expects as client_id.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// Options are what a scenario's client takes from the command line.
type Options struct {
	// Stderr receives one line per step (calls, elicitations, skills).
	Stderr io.Writer
	// Protocol pins the protocol version (--protocol); "" lets MCP_CONFORMANCE_PROTOCOL_VERSION
	// or the era negotiation choose.
	Protocol string
	// Timeout overrides the request timeout when positive.
	Timeout time.Duration
	// NoURL withholds the URL elicitation capability.
	NoURL bool
	// ClientVersion is the version the client announces.
	ClientVersion string
	// Log receives the wire log; nil keeps none.
	Log *wire.Log
}

// ContextError is an MCP_CONFORMANCE_CONTEXT that is not valid JSON: a usage error.
type ContextError struct{ Err error }

func (e *ContextError) Error() string {
	return fmt.Sprintf("MCP_CONFORMANCE_CONTEXT is not valid JSON: %v", e.Err)
}
func (e *ContextError) Unwrap() error { return e.Err }

// scenarioRun is one scenario's client: its environment, session and the first
// lost connection (the only failure of the client itself).
type scenarioRun struct {
	opts     Options
	scenario string
	cc       scenarioContext
	protocol string
	pinnedBy string
	s        *transport.Session
	lost     error
	// cleanup removes the grant's temporary key and token files after the run.
	cleanup func()
}

// Run plays the client of the scenario the environment names against the server at url.
// Only a lost connection or a bad environment fails it: a call the server answers with
// an error is the scenario's business, which the suite scores.
func Run(ctx context.Context, url string, opts Options) error {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	r, err := readEnv(opts)
	if err != nil {
		return err
	}
	defer func() {
		if r.cleanup != nil {
			r.cleanup()
		}
	}()
	if err := r.connect(ctx, url); err != nil {
		return err
	}
	defer r.s.Close()
	if err := playSkills(ctx, opts.Stderr, r.scenario, r.s); err != nil {
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

// readEnv reads MCP_CONFORMANCE_SCENARIO, _CONTEXT and _PROTOCOL_VERSION.
func readEnv(opts Options) (*scenarioRun, error) {
	r := &scenarioRun{opts: opts, scenario: os.Getenv("MCP_CONFORMANCE_SCENARIO"), protocol: opts.Protocol, pinnedBy: "--protocol"}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &r.cc); err != nil {
			return nil, &ContextError{Err: err}
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
func (r *scenarioRun) connect(ctx context.Context, url string) error {
	// No roots: the suites' client scenarios expect a client that declares none.
	srv := config.Server{Name: "conformance", URL: url, Kind: config.KindHTTP, Protocol: r.protocol, NoRoots: true}
	if r.opts.Timeout > 0 {
		srv.Timeout = r.opts.Timeout
	}
	auto := elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
		resp := elicit.AutoAccept(req)
		fmt.Fprintf(r.opts.Stderr, "conformance: %s: %s elicitation %q: %s\n", r.scenario, req.ModeOrForm(), safe.Block(req.Message), resp.Action)
		return resp, nil
	})
	// The suite's authorization servers redirect at once: a client that follows
	// the redirects down to the loopback listener plays the browser.
	auth := &oauth.Options{
		Browser:           oauth.FollowBrowser{},
		ClientID:          r.cc.ClientID,
		ClientSecret:      r.cc.ClientSecret,
		ClientMetadataURL: clientMetadataURL,
		Wait:              15 * time.Second,
	}
	cleanup, err := grantFromContext(r.scenario, os.Getenv("MCP_CONFORMANCE_CONTEXT"), auth)
	if err != nil {
		return err
	}
	r.cleanup = cleanup
	opts := transport.ForServer(srv, auto)
	opts.ClientName, opts.ClientVersion = "elicitty", r.opts.ClientVersion
	opts.URLMode = !r.opts.NoURL
	opts.PinnedBy = r.pinnedBy
	opts.Log = r.opts.Log
	opts.OAuth = auth
	s, err := transport.Connect(ctx, srv, opts)
	if err != nil {
		return err
	}
	r.s = s
	return nil
}

// call calls one tool. A call the server answers with an error is the scenario's
// business (the suite scores it); only a lost connection fails the client.
func (r *scenarioRun) call(ctx context.Context, name string, args map[string]any) {
	res, _, err := r.s.CallTool(ctx, name, args)
	var conn *transport.ConnError
	switch {
	case errors.As(err, &conn):
		r.lost = err
		fmt.Fprintf(r.opts.Stderr, "conformance: call %s: %v\n", name, err)
	case err != nil:
		fmt.Fprintf(r.opts.Stderr, "conformance: call %s: %v\n", name, err)
	case res.IsError:
		fmt.Fprintf(r.opts.Stderr, "conformance: call %s: tool error result\n", name)
	default:
		fmt.Fprintf(r.opts.Stderr, "conformance: call %s: ok\n", name)
	}
}

// schemaEchoTool is the tool of json-schema-2020-12-preservation that takes another
// tool's input schema back, verbatim, as its "schema" argument.
const schemaEchoTool = "json_schema_echo"

// callTools calls exactly the context's tool calls, or else every listed tool with
// arguments built from its input schema. Tools with invalid x-mcp-header annotations
// are refused by the session and so never reach the server.
func (r *scenarioRun) callTools(ctx context.Context) error {
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
func (r *scenarioRun) toolArgs(t *mcp.Tool, all []*mcp.Tool) map[string]any {
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
func (r *scenarioRun) getPrompts(ctx context.Context) {
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
			fmt.Fprintf(r.opts.Stderr, "conformance: prompt %s: %v\n", p.Name, err)
		}
	}
}

// readResources reads every listed resource.
func (r *scenarioRun) readResources(ctx context.Context) {
	if caps := r.s.Capabilities(); caps == nil || caps.Resources == nil {
		return
	}
	res, _, err := r.s.Resources(ctx)
	if err != nil {
		return
	}
	for _, rs := range res {
		if _, _, err := r.s.ReadResource(ctx, rs.URI); err != nil {
			fmt.Fprintf(r.opts.Stderr, "conformance: read %s: %v\n", rs.URI, err)
		}
	}
}
