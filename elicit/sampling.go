package elicit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/elicitty/elicitty/internal/safe"
)

// ModeSampling marks a Request that is not an elicitation but a sampling/createMessage
// request (legacy push, or a 2026-07-28 input request) answered by a person: its
// Sampling member holds the request and an accepted Response carries Sample.
const ModeSampling Mode = "sampling"

// Sampling reply defaults (docs/protocol.md, "Sampling").
const (
	// DefaultModel is the model name a reply written by a person is sent with.
	DefaultModel = "human"
	// StopEndTurn is the stop reason of every reply: the person ended the turn.
	StopEndTurn = "endTurn"
)

// Content kinds a sampling message may carry.
const (
	ContentText       = "text"
	ContentImage      = "image"
	ContentAudio      = "audio"
	ContentToolUse    = "tool_use"
	ContentToolResult = "tool_result"
)

// Sampling is a sampling/createMessage request as a person reviews it. Every string is
// as the server sent it: sanitize before display. The zero value is an empty request.
type Sampling struct {
	// Messages is the conversation to continue, in order.
	Messages []SamplingMessage
	// SystemPrompt is the system prompt the server asks for ("" when none).
	SystemPrompt string
	// IncludeContext is "none", "thisServer" or "allServers" ("" when absent).
	IncludeContext string
	// MaxTokens is the requested maximum length of the reply.
	MaxTokens int64
	// Temperature is the requested temperature; nil when absent.
	Temperature *float64
	// StopSequences are the requested stop sequences.
	StopSequences []string
	// Hints are the model name hints of modelPreferences, in order.
	Hints []string
	// CostPriority, SpeedPriority and IntelligencePriority are the priorities of
	// modelPreferences (0 to 1); nil when absent.
	CostPriority, SpeedPriority, IntelligencePriority *float64
	// Tools are the tools offered to the model (2025-11-25 sampling with tools).
	Tools []SamplingTool
	// ToolChoice is toolChoice.mode ("auto", "required", "none"; "" when absent).
	ToolChoice string
	// Draft is a proposed reply (from a configured sampling command), for the person
	// to approve or edit; "" when none. DraftErr says why the command gave none.
	Draft, DraftErr string
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role    string
	Content []SamplingContent
}

// SamplingContent is one content block of a message.
type SamplingContent struct {
	// Type is text, image, audio, tool_use, tool_result, or what the server sent.
	Type string
	// Text is the text of a text block, or the text parts of a tool result.
	Text string
	// MIMEType and Size (decoded bytes) describe image and audio data, which is
	// never shown.
	MIMEType string
	Size     int
	// ToolName, ToolUseID and Input describe a tool_use block; ToolUseID also names
	// the use a tool_result answers, and IsError marks a failed one.
	ToolName  string
	ToolUseID string
	Input     json.RawMessage
	IsError   bool
}

// SamplingTool is a tool definition offered to the model.
type SamplingTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// SampleReply is the assistant message a person approved.
type SampleReply struct {
	// Text is the reply's text.
	Text string `json:"text"`
	// Model is the model name sent with it; "" means DefaultModel.
	Model string `json:"model,omitempty"`
	// StopReason is sent as is; "" means StopEndTurn.
	StopReason string `json:"stopReason,omitempty"`
}

// maxSamplingItems bounds the messages, blocks and tools a request is read with.
const maxSamplingItems = 10_000

// ParseSampling reads the params of a sampling/createMessage request. A message's
// content may be one block or a list of blocks (2025-11-25).
func ParseSampling(raw json.RawMessage) (*Sampling, error) {
	var w struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string   `json:"systemPrompt"`
		IncludeContext   string   `json:"includeContext"`
		MaxTokens        int64    `json:"maxTokens"`
		Temperature      *float64 `json:"temperature"`
		StopSequences    []string `json:"stopSequences"`
		ModelPreferences *struct {
			Hints []struct {
				Name string `json:"name"`
			} `json:"hints"`
			CostPriority         *float64 `json:"costPriority"`
			SpeedPriority        *float64 `json:"speedPriority"`
			IntelligencePriority *float64 `json:"intelligencePriority"`
		} `json:"modelPreferences"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		ToolChoice *struct {
			Mode string `json:"mode"`
		} `json:"toolChoice"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &ProtocolError{Reason: fmt.Sprintf("unreadable sampling request: %v", err)}
	}
	if len(w.Messages) > maxSamplingItems || len(w.Tools) > maxSamplingItems {
		return nil, &ProtocolError{Reason: "sampling request too large"}
	}
	s := &Sampling{
		SystemPrompt:   w.SystemPrompt,
		IncludeContext: w.IncludeContext,
		MaxTokens:      w.MaxTokens,
		Temperature:    w.Temperature,
		StopSequences:  w.StopSequences,
	}
	if p := w.ModelPreferences; p != nil {
		for _, h := range p.Hints {
			if h.Name != "" {
				s.Hints = append(s.Hints, h.Name)
			}
		}
		s.CostPriority, s.SpeedPriority, s.IntelligencePriority = p.CostPriority, p.SpeedPriority, p.IntelligencePriority
	}
	for _, t := range w.Tools {
		s.Tools = append(s.Tools, SamplingTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if w.ToolChoice != nil {
		s.ToolChoice = w.ToolChoice.Mode
	}
	for i, m := range w.Messages {
		blocks, err := contentBlocks(m.Content)
		if err != nil {
			return nil, &ProtocolError{Reason: fmt.Sprintf("sampling message %d: %v", i+1, err)}
		}
		s.Messages = append(s.Messages, SamplingMessage{Role: m.Role, Content: blocks})
	}
	return s, nil
}

// contentBlocks reads one block or a list of blocks.
func contentBlocks(raw json.RawMessage) ([]SamplingContent, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return nil, fmt.Errorf("missing content")
	}
	var raws []json.RawMessage
	if strings.HasPrefix(t, "[") {
		if err := json.Unmarshal(raw, &raws); err != nil {
			return nil, err
		}
		if len(raws) > maxSamplingItems {
			return nil, fmt.Errorf("too many content blocks")
		}
	} else {
		raws = []json.RawMessage{raw}
	}
	out := make([]SamplingContent, 0, len(raws))
	for _, r := range raws {
		c, err := contentBlock(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func contentBlock(raw json.RawMessage) (SamplingContent, error) {
	var w struct {
		Type      string            `json:"type"`
		Text      string            `json:"text"`
		Data      string            `json:"data"`
		MIMEType  string            `json:"mimeType"`
		ID        string            `json:"id"`
		Name      string            `json:"name"`
		Input     json.RawMessage   `json:"input"`
		ToolUseID string            `json:"toolUseId"`
		Content   []json.RawMessage `json:"content"`
		IsError   bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return SamplingContent{}, fmt.Errorf("unreadable content block: %w", err)
	}
	c := SamplingContent{Type: w.Type}
	switch w.Type {
	case ContentText:
		c.Text = w.Text
	case ContentImage, ContentAudio:
		c.MIMEType = w.MIMEType
		c.Size = base64.StdEncoding.DecodedLen(len(w.Data)) - strings.Count(w.Data[max(0, len(w.Data)-2):], "=")
	case ContentToolUse:
		c.ToolName, c.ToolUseID, c.Input = w.Name, w.ID, w.Input
	case ContentToolResult:
		c.ToolUseID, c.IsError = w.ToolUseID, w.IsError
		var parts []string
		for _, r := range w.Content {
			var p struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(r, &p) == nil && p.Type == ContentText {
				parts = append(parts, p.Text)
			}
		}
		c.Text = strings.Join(parts, "\n")
	case "":
		return c, fmt.Errorf("content block without a type")
	}
	return c, nil
}

// Texts returns the text of every text block (and tool result) of every message, in
// order: what an answers-file message pattern is matched against.
func (s *Sampling) Texts() []string {
	var out []string
	for _, m := range s.Messages {
		for _, c := range m.Content {
			if c.Text != "" {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// Prompt returns the text a list shows for the request: the text of the last user
// message, else of the last message with text ("" when none has).
func (s *Sampling) Prompt() string {
	last := ""
	for _, m := range s.Messages {
		var parts []string
		for _, c := range m.Content {
			if c.Type == ContentText && c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) == 0 {
			continue
		}
		if m.Role == "user" || last == "" {
			last = strings.Join(parts, "\n")
		}
	}
	return last
}

// Describe returns a one-line, sanitized description of a content block: the text
// itself for text, a placeholder with type and size for media, the tool for tool use.
func (c SamplingContent) Describe() string {
	switch c.Type {
	case ContentText:
		return safe.Block(c.Text)
	case ContentImage, ContentAudio:
		return fmt.Sprintf("[%s: %s, %s]", c.Type, oneLine(cmpOr(c.MIMEType, "unknown type"), 60), byteSize(c.Size))
	case ContentToolUse:
		return fmt.Sprintf("[tool use %s (id %s): %s]", oneLine(c.ToolName, 60), oneLine(c.ToolUseID, 40), oneLine(string(c.Input), 200))
	case ContentToolResult:
		what := "tool result"
		if c.IsError {
			what = "tool error"
		}
		return fmt.Sprintf("[%s for %s] %s", what, oneLine(c.ToolUseID, 40), safe.Block(c.Text))
	}
	return fmt.Sprintf("[%s content, not shown]", oneLine(c.Type, 40))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// byteSize formats n bytes for people: "512 B", "3.2 KB", "1.4 MB".
func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1_000_000)
}

// Preferences returns the request's model preferences as one sanitized line
// ("hints: claude-3, sonnet; intelligence 0.8, speed 0.5"), or "" when it has none.
func (s *Sampling) Preferences() string {
	var parts []string
	if len(s.Hints) > 0 {
		hs := make([]string, len(s.Hints))
		for i, h := range s.Hints {
			hs[i] = oneLine(h, 60)
		}
		parts = append(parts, "hints: "+strings.Join(hs, ", "))
	}
	var prios []string
	for _, p := range []struct {
		name string
		v    *float64
	}{{"cost", s.CostPriority}, {"speed", s.SpeedPriority}, {"intelligence", s.IntelligencePriority}} {
		if p.v != nil {
			prios = append(prios, fmt.Sprintf("%s %g", p.name, *p.v))
		}
	}
	if len(prios) > 0 {
		parts = append(parts, "priorities: "+strings.Join(prios, ", "))
	}
	return strings.Join(parts, "; ")
}

// Limits returns the request's generation settings as one sanitized line ("max tokens
// 100, temperature 0.7, stop at "END"").
func (s *Sampling) Limits() string {
	parts := []string{fmt.Sprintf("max tokens %d", s.MaxTokens)}
	if s.Temperature != nil {
		parts = append(parts, fmt.Sprintf("temperature %g", *s.Temperature))
	}
	if len(s.StopSequences) > 0 {
		qs := make([]string, len(s.StopSequences))
		for i, q := range s.StopSequences {
			if r := []rune(q); len(r) > 40 {
				q = string(r[:39]) + "…"
			}
			qs[i] = fmt.Sprintf("%q", safe.Block(q))
		}
		parts = append(parts, "stop at "+strings.Join(qs, ", "))
	}
	if s.IncludeContext != "" && s.IncludeContext != "none" {
		parts = append(parts, "include context "+oneLine(s.IncludeContext, 20)+" (not supported, none sent)")
	}
	return strings.Join(parts, ", ")
}

// Complete fills the reply defaults: the model DefaultModel and the stop reason
// StopEndTurn.
func (r SampleReply) Complete() SampleReply {
	if strings.TrimSpace(r.Model) == "" {
		r.Model = DefaultModel
	}
	if r.StopReason == "" {
		r.StopReason = StopEndTurn
	}
	return r
}

// answerSampling is the Engine's path for sampling requests: the request must carry a
// readable Sampling; an accept must carry a reply with text.
func (e *Engine) answerSampling(ctx context.Context, req *Request) (Response, error) {
	if req.Sampling == nil {
		return Response{}, &ProtocolError{Reason: "unreadable sampling request"}
	}
	resp, err := e.inner.Answer(ctx, req)
	if err != nil {
		if len(req.Sampling.Messages) == 0 && errors.Is(err, ErrUnanswered) {
			// Nothing to reply to and nobody who did: the server is told why.
			return Response{}, &ProtocolError{Reason: "sampling request without messages: there is nothing to reply to, and no answer was given"}
		}
		return Response{}, err
	}
	switch resp.Action {
	case Decline, Cancel:
		return Response{Action: resp.Action}, nil
	case Accept:
	default:
		return Response{}, fmt.Errorf("elicit: answerer returned unknown action %q", resp.Action)
	}
	if resp.Sample == nil || strings.TrimSpace(resp.Sample.Text) == "" {
		return Response{}, fmt.Errorf("elicit: an accepted sampling reply needs text")
	}
	r := resp.Sample.Complete()
	return Response{Action: Accept, Sample: &r}, nil
}
