//lint:file-ignore SA1019 sampling is deprecated by 2026-07-28 (SEP-2577) but servers still ask for it; elicitty answers it.

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// methodSampling is the method of sampling requests, pushed (2025 eras) or carried in
// inputRequests (2026-07-28).
const methodSampling = "sampling/createMessage"

// codeUserRejected is the JSON-RPC error code of a sampling request the user declined
// (the spec's example of a rejection).
const codeUserRejected = -1

// samplingPush answers a server-pushed sampling/createMessage through the Answerer: a
// person reads the request and writes, edits or declines the reply
// (docs/protocol.md, "Sampling").
func (s *Session) samplingPush(ctx context.Context, req mcp.Request) (mcp.Result, error) {
	raw, err := json.Marshal(req.GetParams())
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("unreadable sampling params (%T)", req.GetParams()))
	}
	er, perr := s.newSamplingRequest(elicit.OriginPush, raw)
	if perr != nil {
		return nil, invalidParams(perr.Reason)
	}
	var meta map[string]any
	if p := req.GetParams(); p != nil {
		meta = p.GetMeta()
	}
	if call, tool, _ := s.askingCall(meta); call != "" {
		er.Call, er.Tool = call, tool
	}
	resp, err := s.ask(ctx, er)
	if err != nil {
		if ctx.Err() != nil {
			if context.Cause(ctx) == context.Canceled {
				s.event(EventCancelled, safe.Untrusted("the server cancelled its sampling request"), "")
			}
			return nil, ctx.Err()
		}
		var pe *elicit.ProtocolError
		if errors.As(err, &pe) {
			return nil, invalidParams(pe.Reason)
		}
		s.failCalls(err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling request not answered: " + err.Error()}
	}
	switch resp.Action {
	case elicit.Accept:
		return sampleResult(resp), nil
	case elicit.Decline:
		return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "User rejected sampling request"}
	}
	return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "User cancelled sampling request"}
}

// sampleInput answers a sampling/createMessage input request (2026-07-28): its result
// goes into inputResponses. A declined or cancelled one cannot be expressed there, so
// the call ends (exit 3) instead of sending a reply nobody wrote.
func (s *Session) sampleInput(ctx context.Context, what, method, name, key string, index, total int, p mcp.InputRequest) (mcp.InputResponse, elicit.Action, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, "", fmt.Errorf("%s: input %q: unreadable sampling request: %w", what, key, err)
	}
	er, perr := s.newSamplingRequest(elicit.OriginInputRequest, raw)
	if perr != nil {
		return nil, "", fmt.Errorf("%s: input %q: %w", what, key, perr)
	}
	er.Key, er.Index, er.Total = key, index, total
	er.Call, er.Tool = method+" "+name, name
	resp, err := s.ask(ctx, er)
	if err != nil {
		return nil, "", fmt.Errorf("%s: input %q: %w", what, key, err)
	}
	if resp.Action != elicit.Accept {
		return nil, resp.Action, fmt.Errorf("%s: input %q: sampling request %sd by the user: %w", what, key, resp.Action, elicit.ErrUnanswered)
	}
	return sampleResult(resp), resp.Action, nil
}

// isSamplingInput reports whether an input request is a sampling request.
func isSamplingInput(p mcp.InputRequest) bool {
	switch p.(type) {
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return true
	}
	return false
}

// Bounds of a sampling request: what a person can read, and what the parse and the
// screens spend on it. Past either the request is refused, with the reason.
const (
	maxSamplingMessages = 1000
	maxSamplingBytes    = 4 << 20
)

// samplingTooLarge reports why a sampling request's params are too large to ask, or "".
func samplingTooLarge(raw json.RawMessage) string {
	if len(raw) > maxSamplingBytes {
		return fmt.Sprintf("sampling request of %d bytes refused: over the client's limit of %d", len(raw), maxSamplingBytes)
	}
	var p struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(raw, &p) == nil && len(p.Messages) > maxSamplingMessages {
		return fmt.Sprintf("sampling request of %d messages refused: over the client's limit of %d", len(p.Messages), maxSamplingMessages)
	}
	return ""
}

// newSamplingRequest builds the elicit.Request of a sampling request from its params,
// refusing one over the bounds.
func (s *Session) newSamplingRequest(origin elicit.Origin, raw json.RawMessage) (*elicit.Request, *elicit.ProtocolError) {
	if reason := samplingTooLarge(raw); reason != "" {
		s.tap.log.Notef(s.server.Name, "%s", reason)
		s.event(EventRefused, safe.Untrusted(reason), "")
		return nil, &elicit.ProtocolError{Reason: reason}
	}
	sm, err := elicit.ParseSampling(raw)
	if err != nil {
		var pe *elicit.ProtocolError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &elicit.ProtocolError{Reason: err.Error()}
	}
	er := &elicit.Request{
		Server:   s.server.Name,
		Origin:   origin,
		Protocol: s.Protocol(),
		Mode:     elicit.ModeSampling,
		Message:  sm.Prompt(),
		Params:   raw,
		Sampling: sm,
	}
	if info := s.ServerInfo(); info != nil {
		er.ServerInfo = serverInfoName(info.Name)
	}
	return er, nil
}

// sampleResult is the result of an accepted sampling request: the person's text as the
// assistant's message.
func sampleResult(r elicit.Response) *mcp.CreateMessageResult {
	reply := elicit.SampleReply{}
	if r.Sample != nil {
		reply = *r.Sample
	}
	reply = reply.Complete()
	return &mcp.CreateMessageResult{
		Content:    &mcp.TextContent{Text: reply.Text},
		Model:      reply.Model,
		Role:       "assistant",
		StopReason: reply.StopReason,
	}
}
