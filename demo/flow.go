package demo

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/protocol"
)

// modernVersion is the first protocol version in which servers return input
// requests (MRTR) instead of pushing elicitation/create.
const modernVersion = protocol.Version20260728

// errNeedInput stops a flow run that reached a question without an answer.
// The handler turns it into an input_required result.
var errNeedInput = errors.New("demo: input required")

// question is one elicitation of a flow, named by its input request key.
type question struct {
	key    string
	params *mcp.ElicitParams
}

// flowState is what a flow keeps between rounds. In the 2026-07-28 era it
// travels to the client and back as the signed requestState.
type flowState struct {
	// Name is the tool, prompt or resource the state belongs to.
	Name string `json:"n"`
	// Answers holds every answer received so far, by question key.
	Answers map[string]*mcp.ElicitResult `json:"a,omitempty"`
	// Pending lists the keys asked in the latest round.
	Pending []string `json:"p,omitempty"`
	// Memo holds values a flow must keep stable across rounds.
	Memo map[string]string `json:"m,omitempty"`
	// Shed reports that the flow already answered with a state-only round.
	Shed bool `json:"s,omitempty"`
}

// asker answers a flow's questions. A flow is written as straight-line code
// that calls ask; it is re-run from the start in every round, and questions
// answered in earlier rounds are replayed from the state. How an unanswered
// question is asked depends on the client's era:
//
//   - 2026-07-28: the run stops with errNeedInput and the handler returns
//     the pending questions as inputRequests with the state as requestState;
//   - legacy: the question is pushed as elicitation/create with
//     ServerSession.Elicit, except that an MRTR tool's first round is
//     returned as inputRequests so that go-sdk's server-side conversion
//     pushes it and re-invokes the handler with the answers.
//
// An asker serves one handler invocation and is not safe for concurrent use.
type asker struct {
	ss     *mcp.ServerSession
	caps   *mcp.ClientCapabilities // of this request (2026-07-28) or session
	modern bool                    // the client speaks 2026-07-28
	push   bool                    // unanswered questions are pushed with ss.Elicit
	state  flowState
	fresh  map[string]bool // answers that arrived in this invocation's inputResponses
	need   mcp.InputRequestMap
}

// isModern reports whether the session's client speaks 2026-07-28, by the
// same rule go-sdk uses to decide between input_required and its conversion.
func isModern(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= modernVersion
}

// begin prepares the asker for one invocation of the flow named name.
// convert selects go-sdk's MRTR conversion for a legacy client's first round.
func (s *Server) begin(ss *mcp.ServerSession, caps *mcp.ClientCapabilities, name, requestState string, responses mcp.InputResponseMap, convert bool) (*asker, error) {
	a := &asker{ss: ss, caps: caps, modern: isModern(ss), fresh: map[string]bool{}}
	a.state.Name = name
	if requestState != "" {
		st, err := s.decodeState(requestState)
		if err != nil {
			return nil, invalidParams("requestState: %v", err)
		}
		if st.Name != name {
			return nil, invalidParams("requestState belongs to %q, not %q", st.Name, name)
		}
		a.state = st
	}
	if len(responses) > 0 && requestState == "" {
		return nil, invalidParams("inputResponses without requestState")
	}
	for key, r := range responses {
		if !slices.Contains(a.state.Pending, key) {
			return nil, invalidParams("inputResponses[%q] answers no pending input request", key)
		}
		er, ok := r.(*mcp.ElicitResult)
		if !ok || er == nil {
			return nil, invalidParams("inputResponses[%q] is not an elicitation result", key)
		}
		if a.state.Answers == nil {
			a.state.Answers = map[string]*mcp.ElicitResult{}
		}
		a.state.Answers[key] = er
		a.fresh[key] = true
	}
	for _, key := range a.state.Pending {
		if _, ok := responses[key]; !ok {
			return nil, invalidParams("inputResponses lacks %q", key)
		}
	}
	a.state.Pending = nil
	firstRound := requestState == "" && len(responses) == 0
	a.push = !a.modern && !(convert && firstRound)
	return a, nil
}

// ask returns the user's answer to one question.
func (a *asker) ask(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	rs, err := a.askAll(ctx, question{key, p})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// askAll asks several questions in one round and returns the answers in the
// order of qs.
func (a *asker) askAll(ctx context.Context, qs ...question) ([]*mcp.ElicitResult, error) {
	out := make([]*mcp.ElicitResult, len(qs))
	var missing []int
	for i, q := range qs {
		r, ok := a.state.Answers[q.key]
		if !ok {
			missing = append(missing, i)
			continue
		}
		if a.fresh[q.key] {
			checked, err := checkAnswer(q, r)
			if err != nil {
				return nil, err
			}
			r = checked
			a.state.Answers[q.key] = r
			delete(a.fresh, q.key)
		}
		out[i] = r
	}
	if len(missing) == 0 {
		return out, nil
	}
	if !a.push {
		for _, i := range missing {
			if err := a.supports(qs[i].params.Mode); err != nil {
				return nil, err
			}
		}
		a.need = mcp.InputRequestMap{}
		for _, i := range missing {
			a.need[qs[i].key] = qs[i].params
			a.state.Pending = append(a.state.Pending, qs[i].key)
		}
		return nil, errNeedInput
	}
	for _, i := range missing {
		r, err := a.ss.Elicit(ctx, qs[i].params)
		if err != nil {
			return nil, fmt.Errorf("elicit %q: %w", qs[i].key, err)
		}
		if a.state.Answers == nil {
			a.state.Answers = map[string]*mcp.ElicitResult{}
		}
		a.state.Answers[qs[i].key] = r
		out[i] = r
	}
	return out, nil
}

// supports reports, as an error, whether the client declared the
// elicitation mode, by the rule ServerSession.Elicit applies to pushes: a
// client that declared neither form nor url supports form.
func (a *asker) supports(mode string) error {
	if a.caps == nil || a.caps.Elicitation == nil {
		return errors.New("client does not support elicitation")
	}
	e := a.caps.Elicitation
	switch {
	case mode == "url" && e.URL == nil:
		return errors.New(`client does not support "url" elicitation`)
	case mode != "url" && e.Form == nil && e.URL != nil:
		return errors.New(`client does not support "form" elicitation`)
	}
	return nil
}

// shed makes the flow answer once with a state-only input_required result
// (load shedding) before it proceeds. Legacy clients have no such round, and
// go-sdk's conversion turns one into an error, so there it does nothing.
func (a *asker) shed() error {
	if !a.modern || a.state.Shed {
		return nil
	}
	a.state.Shed = true
	a.need = mcp.InputRequestMap{}
	return errNeedInput
}

// memo returns the value named name, made by mk in the first round and
// replayed from the state in later ones.
func (a *asker) memo(name string, mk func() (string, error)) (string, error) {
	if v, ok := a.state.Memo[name]; ok {
		return v, nil
	}
	v, err := mk()
	if err != nil {
		return "", err
	}
	if a.state.Memo == nil {
		a.state.Memo = map[string]string{}
	}
	a.state.Memo[name] = v
	return v, nil
}

// suspend returns the input requests and the signed state of a run that
// stopped with errNeedInput.
func (s *Server) suspend(a *asker) (mcp.InputRequestMap, string, error) {
	st, err := s.encodeState(a.state)
	if err != nil {
		return nil, "", err
	}
	return a.need, st, nil
}

// checkAnswer validates an accepted form answer that arrived as an
// inputResponse and fills in the schema defaults, as ServerSession.Elicit
// does for a pushed request, so both eras see the same content.
func checkAnswer(q question, r *mcp.ElicitResult) (*mcp.ElicitResult, error) {
	if r.Action != "accept" || r.Content == nil || q.params.RequestedSchema == nil {
		return r, nil
	}
	raw, err := json.Marshal(q.params.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("marshal schema of %q: %w", q.key, err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("decode schema of %q: %w", q.key, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema of %q: %w", q.key, err)
	}
	content := map[string]any{}
	for k, v := range r.Content {
		content[k] = v
	}
	if err := resolved.Validate(content); err != nil {
		return nil, invalidParams("inputResponses[%q] does not match the requested schema: %v", q.key, err)
	}
	if err := resolved.ApplyDefaults(&content); err != nil {
		return nil, fmt.Errorf("apply defaults of %q: %w", q.key, err)
	}
	return &mcp.ElicitResult{Action: r.Action, Content: content}, nil
}

// encodeState signs st for the client to echo back: base64url(JSON) "."
// base64url(HMAC-SHA256).
func (s *Server) encodeState(st flowState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode request state: %w", err)
	}
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.sign(body)), nil
}

// decodeState verifies and decodes a state made by encodeState.
func (s *Server) decodeState(v string) (flowState, error) {
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return flowState{}, errors.New("malformed")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.sign(body)) {
		return flowState{}, errors.New("bad signature")
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return flowState{}, errors.New("malformed")
	}
	var st flowState
	if err := json.Unmarshal(payload, &st); err != nil {
		return flowState{}, fmt.Errorf("decode: %w", err)
	}
	return st, nil
}

func (s *Server) sign(body string) []byte {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// invalidParams returns a bare -32602 error, which reaches the wire as is.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
