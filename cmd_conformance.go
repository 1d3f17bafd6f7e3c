package main

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

func (a *app) runConformance(ctx context.Context, url string) error {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var cc conformanceContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return usagef("MCP_CONFORMANCE_CONTEXT is not valid JSON: %w", err)
		}
	}
	protocol := a.protocol
	if v := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); protocol == "" && v != "" {
		protocol = v
	}
	if protocol == "" {
		protocol = "2025-11-25"
	}
	srv := config.Server{Name: "conformance", URL: url, Kind: config.KindHTTP, Protocol: protocol}
	if a.timeout > 0 {
		srv.Timeout = a.timeout
	}
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	auto := elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
		resp := elicit.AutoAccept(req)
		fmt.Fprintf(a.stderr, "conformance: %s: %s elicitation %q: %s\n", scenario, modeOf(req), elicit.Sanitize(req.Message), resp.Action)
		return resp, nil
	})
	s, err := transport.Connect(ctx, srv, transport.Options{
		ClientName:    "elicitty",
		ClientVersion: currentVersion().Version,
		Answerer:      elicit.NewEngine(auto, nil),
		URLMode:       !a.noURL,
		Protocol:      protocol,
		Log:           log,
		// The suite's authorization servers redirect at once: a client that follows
		// the redirects down to the loopback listener plays the browser.
		OAuth: &oauth.Options{
			Browser:           oauth.FollowBrowser{},
			ClientID:          cc.ClientID,
			ClientSecret:      cc.ClientSecret,
			ClientMetadataURL: conformanceClientMetadataURL,
			Wait:              15 * time.Second,
		},
	})
	if err != nil {
		return err
	}
	defer s.Close()

	// A call that the server answers with an error is the scenario's business (the suite
	// scores it); only losing the connection fails the client.
	var lost error
	call := func(name string, args map[string]any) {
		res, _, err := s.CallTool(ctx, name, args)
		var conn *transport.ConnError
		switch {
		case errors.As(err, &conn):
			lost = err
			fmt.Fprintf(a.stderr, "conformance: call %s: %v\n", name, err)
		case err != nil:
			fmt.Fprintf(a.stderr, "conformance: call %s: %v\n", name, err)
		case res.IsError:
			fmt.Fprintf(a.stderr, "conformance: call %s: tool error result\n", name)
		default:
			fmt.Fprintf(a.stderr, "conformance: call %s: ok\n", name)
		}
	}
	if len(cc.ToolCalls) > 0 {
		for _, tc := range cc.ToolCalls {
			call(tc.Name, tc.Arguments)
		}
	} else if caps := s.Capabilities(); caps == nil || caps.Tools != nil {
		tools, err := s.Tools(ctx)
		if err != nil {
			return err
		}
		for _, t := range tools {
			schema, _ := json.Marshal(t.InputSchema)
			args := elicit.AutoAccept(&elicit.Request{Server: srv.Name, Protocol: s.Protocol(), Schema: schema}).Content
			if args == nil {
				args = map[string]any{}
			}
			call(t.Name, args)
		}
	}
	if caps := s.Capabilities(); caps != nil && caps.Prompts != nil && len(cc.ToolCalls) == 0 {
		prompts, err := s.Prompts(ctx)
		if err == nil {
			for _, p := range prompts {
				args := map[string]string{}
				for _, arg := range p.Arguments {
					args[arg.Name] = "test"
				}
				if _, _, err := s.GetPrompt(ctx, p.Name, args); err != nil {
					fmt.Fprintf(a.stderr, "conformance: prompt %s: %v\n", p.Name, err)
				}
			}
		}
	}
	if caps := s.Capabilities(); caps != nil && caps.Resources != nil && len(cc.ToolCalls) == 0 {
		res, _, err := s.Resources(ctx)
		if err == nil {
			for _, r := range res {
				if _, _, err := s.ReadResource(ctx, r.URI); err != nil {
					fmt.Fprintf(a.stderr, "conformance: read %s: %v\n", r.URI, err)
				}
			}
		}
	}
	return lost
}
