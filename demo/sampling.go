//lint:file-ignore SA1019 sampling is deprecated by 2026-07-28 (SEP-2577) but servers still ask for it; elicitty answers it.

package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// summaryKey is the input request key of the summarize tool's sampling request.
const summaryKey = "summary"

type summarizeIn struct {
	Text string `json:"text,omitempty" jsonschema:"the text to summarize (a sentence about elicitty when empty)"`
}

// addSamplingTools registers summarize, the tool that asks the client's model (a
// person, in elicitty) for a reply: sampling/createMessage pushed in the legacy eras, a
// sampling input request in 2026-07-28.
func (s *Server) addSamplingTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "summarize",
		Title: "Summarize (asks for a sampling reply)",
		Description: "Asks the client for a model reply with sampling/createMessage: a one-sentence summary of text, " +
			"with a system prompt, model preferences, a temperature and a stop sequence. Returns the reply, the model " +
			"name and the stop reason; declined when the client declines. Needs the client's sampling capability.",
		Annotations: readOnly(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in summarizeIn) (*mcp.CallToolResult, any, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			return toolError(fmt.Errorf("this client did not declare the sampling capability")), nil, nil
		}
		text := strings.TrimSpace(in.Text)
		if text == "" {
			text = "elicitty is a terminal MCP client whose specialty is answering what servers ask of the user."
		}
		params := summarizeParams(text)
		if isModern(req.Session) {
			r, ok := req.Params.InputResponses[summaryKey]
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{summaryKey: params}}, nil, nil
			}
			res, ok := r.(*mcp.CreateMessageWithToolsResult)
			if !ok {
				return nil, nil, invalidParams("inputResponses.%s is not a sampling result", summaryKey)
			}
			return summaryResult(res.Model, res.StopReason, res.Content), nil, nil
		}
		res, err := req.Session.CreateMessage(ctx, params)
		if err != nil {
			return textResult("declined: "+err.Error(), map[string]any{"action": "decline"}), nil, nil
		}
		return summaryResult(res.Model, res.StopReason, []mcp.Content{res.Content}), nil, nil
	})
}

// summarizeParams is the sampling request of summarize.
func summarizeParams(text string) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize in one sentence:\n\n" + text}}},
		SystemPrompt: "You write one-sentence summaries for the elicitty demo.",
		MaxTokens:    200,
		Temperature:  0.2,
		ModelPreferences: &mcp.ModelPreferences{
			Hints:                []*mcp.ModelHint{{Name: "claude"}},
			IntelligencePriority: 0.5,
			SpeedPriority:        0.8,
		},
		StopSequences: []string{"\n\n"},
	}
}

// summaryResult reports the reply as text and as structured content.
func summaryResult(model, stop string, content []mcp.Content) *mcp.CallToolResult {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	reply := strings.Join(parts, "\n")
	return textResult(fmt.Sprintf("summary by %s (%s): %s", model, stop, reply),
		map[string]any{"summary": reply, "model": model, "stopReason": stop})
}
