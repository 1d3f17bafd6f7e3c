//lint:file-ignore SA1019 sampling is deprecated by 2026-07-28 (SEP-2577) but servers still ask for it; the demo asks for it.

package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSummarizeAsksForSampling(t *testing.T) {
	each(t, func(t *testing.T, era string, l link) {
		s, _ := newDemo(t)
		var got *mcp.CreateMessageRequest
		cs := connect(t, s, era, l, &mcp.ClientOptions{CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			got = req
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "Short."}, Model: "human", Role: "assistant", StopReason: "endTurn"}, nil
		}})
		res := call(t, cs, "summarize", map[string]any{"text": "A long story."})
		if text(res) != "summary by human (endTurn): Short." {
			t.Errorf("summarize = %q", text(res))
		}
		if got == nil || got.Params.SystemPrompt == "" || got.Params.MaxTokens != 200 || got.Params.ModelPreferences == nil {
			t.Fatalf("sampling request = %+v", got)
		}
		if tc, ok := got.Params.Messages[0].Content.(*mcp.TextContent); !ok || !strings.HasSuffix(tc.Text, "A long story.") {
			t.Errorf("message = %+v", got.Params.Messages[0].Content)
		}
	})
}

func TestSummarizeWithoutSampling(t *testing.T) {
	s, _ := newDemo(t)
	cs := connect(t, s, "2025-11-25", inMemory, nil)
	res := call(t, cs, "summarize", nil)
	if !res.IsError || !strings.Contains(text(res), "did not declare the sampling capability") {
		t.Errorf("summarize without sampling = %+v", res)
	}
}
