package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/elicitty/elicitty/internal/safe"
)

// Action is the user's answer to an elicitation: accept, decline or cancel.
type Action string

// The three actions of an elicitation result.
const (
	Accept  Action = "accept"
	Decline Action = "decline"
	Cancel  Action = "cancel"
)

// Mode is the elicitation mode of a request.
type Mode string

// The two elicitation modes. A request without a mode is a form.
const (
	ModeForm Mode = "form"
	ModeURL  Mode = "url"
)

// Origin tells how a request reached the client.
type Origin int

// The three ways a server asks for input.
const (
	// OriginPush is a server-pushed elicitation/create (2025-06-18, 2025-11-25).
	OriginPush Origin = iota
	// OriginInputRequest is an inputRequests entry of an input_required result (2026-07-28).
	OriginInputRequest
	// OriginURLRequired is an entry of a -32042 error's data.elicitations (2025-11-25).
	OriginURLRequired
)

// String returns a short name for the origin.
func (o Origin) String() string {
	switch o {
	case OriginPush:
		return "push"
	case OriginInputRequest:
		return "input-request"
	case OriginURLRequired:
		return "url-required"
	}
	return "unknown"
}

// Request is one question a server asks the user, whatever era and carrier it came in.
// The zero value is not useful; build one in the transport. A Request is not modified
// after it is handed to an Answerer, so it may be read from several goroutines.
type Request struct {
	// Server is the configured name of the asking server.
	Server string
	// Host is the MCP host (its clientInfo.name as sent, sanitize before display) whose
	// requests an `elicitty proxy` forwards to the asking server; "" when elicitty itself
	// is the server's client.
	Host string
	// ServerInfo is the asking server's own name (serverInfo.name from its handshake,
	// sanitized), the same over every transport; "" when it gave none.
	ServerInfo string
	// Origin tells which carrier brought the request.
	Origin Origin
	// Call describes the originating call, e.g. "tools/call deploy" (empty when unknown).
	Call string
	// Tool is the name of the originating tool, prompt or resource URI, when known.
	Tool string
	// Protocol is the negotiated protocol version, e.g. "2025-11-25".
	Protocol string
	// Mode is the elicitation mode; an absent mode is ModeForm.
	Mode Mode
	// Message is the server's message, as sent (sanitize before display).
	Message string
	// Schema is the raw requestedSchema bytes as the server sent them, in server
	// property order. Nil when absent.
	Schema json.RawMessage
	// Params is the raw params object as received, when the transport could capture it.
	Params json.RawMessage
	// URL is the url of a URL-mode request.
	URL string
	// ElicitationID is the id of a 2025-11-25 URL-mode request.
	ElicitationID string
	// Key is the inputRequests key of a 2026-07-28 input request.
	Key string
	// Index and Total number the entries of one -32042 error or MRTR round (1-based), when > 0.
	Index, Total int
	// Deadline is the time by which the server stops waiting, when known.
	Deadline time.Time
	// Repeat counts the consecutive earlier rounds of the same call that asked for
	// this same URL and were accepted (2026-07-28 URL input requests); 0 the first
	// time. A UI shows "still waiting" instead of asking consent again
	// (docs/protocol.md, "URL mode").
	Repeat int
	// Consented, when set, is when the user consented to this URL: the request is
	// then no new question but the wait for the flow to complete (an `elicitty proxy`'s
	// -32042 wait, shown in an inbox). A UI shows the waiting screen, never reopens the
	// link unasked, and answers Accept for "retry now" and Cancel to stop waiting; the
	// asker withdraws the request when the flow completes.
	Consented time.Time
	// URLDeclared reports whether the client declared URL mode to this server.
	URLDeclared bool
	// Form is the parsed Schema of a form-mode request, set by whoever parses it first
	// (the transport before it asks, else the Engine on the request it hands to its
	// inner Answerer), so the schema is parsed once; nil before (ParsedForm then parses).
	Form *Form
	// FileInputs turns x-mcp-file properties (and the earlier draft's requestedFiles)
	// into file fields when the form is parsed (--experimental file-inputs).
	FileInputs bool
	// NoValidate reports that content failing the schema is sent anyway (--no-validate,
	// or validation: false for the server): a form lets the user accept it. The Engine
	// sets it from its options.
	NoValidate bool
	// Sampling is the request of a ModeSampling request (sampling/createMessage); nil
	// for elicitations.
	Sampling *Sampling
}

// ParsedForm returns the form of a form-mode request: Form when set, else the Schema
// parsed now.
func (r *Request) ParsedForm() *Form {
	if r.Form != nil {
		return r.Form
	}
	return ParseWith(r.Schema, r.Protocol, r.ParseOptions())
}

// ParseOptions are the options its form is parsed with: file inputs when FileInputs,
// with the requestedFiles of the earlier SEP-2356 draft taken from Params.
func (r *Request) ParseOptions() *ParseOptions {
	if !r.FileInputs {
		return nil
	}
	o := &ParseOptions{FileInputs: true}
	if len(r.Params) > 0 {
		var p struct {
			RequestedFiles json.RawMessage `json:"requestedFiles"`
		}
		if json.Unmarshal(r.Params, &p) == nil {
			o.Files = SidecarFiles(p.RequestedFiles)
		}
	}
	return o
}

// Response is the user's answer. Content is set only with Accept on a form, Sample only
// with Accept on a sampling request.
type Response struct {
	Action  Action         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Sample  *SampleReply   `json:"sample,omitempty"`
	// Files are the files chosen for file fields, by field name (what --record writes
	// instead of their contents); nil when none. Never sent.
	Files map[string][]FileInfo `json:"-"`
}

// Answerer answers elicitation requests. Implementations: the TUI bridge, the line-mode
// Prompter and the answers-file Script. Answer blocks until the user (or script) answers
// or ctx is done. Implementations must be safe for concurrent use.
type Answerer interface {
	Answer(ctx context.Context, req *Request) (Response, error)
}

// AnswererFunc adapts a function to the Answerer interface.
type AnswererFunc func(ctx context.Context, req *Request) (Response, error)

// Answer calls f.
func (f AnswererFunc) Answer(ctx context.Context, req *Request) (Response, error) {
	return f(ctx, req)
}

// ErrUnanswered reports that no answer could be produced (no TTY, no matching answers entry).
var ErrUnanswered = errors.New("elicitation could not be answered")

// Violation is one way an accepted content fails its requestedSchema.
type Violation struct {
	// Path is an RFC 6901 JSON Pointer into the content, e.g. "/replicas" or "/tags/1".
	Path string `json:"path"`
	// Keyword is the schema keyword that failed, spelled as in the schema.
	Keyword string `json:"keyword"`
	// Message is a human-readable reason.
	Message string `json:"message"`
}

// ViolationsError is returned when an accepted content fails validation. The transport
// turns it into a bare -32602 JSON-RPC error with data.errors = Violations.
type ViolationsError struct {
	Violations []Violation
}

// Error implements error.
func (e *ViolationsError) Error() string {
	msg := "elicitation response does not match requestedSchema"
	for _, v := range e.Violations {
		msg += "; " + v.Path + ": " + v.Message
	}
	return msg
}

// ProtocolError reports a request that is malformed or not allowed (missing url, undeclared
// mode, unreadable params). The legacy transport answers it with -32602 and Reason.
type ProtocolError struct {
	Reason string
}

// Error implements error.
func (e *ProtocolError) Error() string { return "invalid elicitation request: " + e.Reason }

// ServerLabel is how a request's server is shown: its configured name, followed by its
// own name in parentheses when that differs ("node (mcp-servers/everything)"). Sanitized.
func (r *Request) ServerLabel() string {
	name := safe.Block(r.Server)
	if r.ServerInfo != "" && r.ServerInfo != r.Server {
		name += " (" + safe.Block(r.ServerInfo) + ")"
	}
	return name
}

// MatchName is the server name an answers-file entry written for r matches on: the
// server's own name when known (it does not change with the transport or the command
// that starts the server), else the configured name.
func (r *Request) MatchName() string {
	if r.ServerInfo != "" {
		return r.ServerInfo
	}
	return r.Server
}

// Asker is who asks, on one line: the server's configured name, preceded by the host's
// name and " › " for a question an elicitty proxy forwards for that host ("Claude
// Desktop › github"). Sanitized.
func (r *Request) Asker() string {
	name := safe.Line(r.Server)
	if r.Host != "" {
		name = safe.Line(r.Host) + " › " + name
	}
	return name
}

// ModeOrForm is the request's mode, form when the server left it out (a request without
// "mode" is a form request in every version).
func (r *Request) ModeOrForm() Mode {
	if r.Mode == "" {
		return ModeForm
	}
	return r.Mode
}
