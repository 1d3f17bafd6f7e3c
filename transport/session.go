package transport

import (
	"context"
	"errors"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures Connect. The zero value is usable: no answerer (elicitation
// requests are answered cancel), URL mode not declared, negotiated protocol.
type Options struct {
	// ClientName and ClientVersion go into clientInfo.
	ClientName, ClientVersion string
	// Answerer answers every elicitation (push, MRTR round, -32042 entry).
	Answerer elicit.Answerer
	// URLMode declares URL-mode elicitation ({form:{}, url:{}}); otherwise {form:{}}.
	URLMode bool
	// Protocol pins the version; "" negotiates (2026-07-28 discover, then initialize).
	Protocol string
	// Log receives every message; nil keeps none.
	Log *wire.Log
	// DiscoverTimeout bounds the server/discover probe; zero means 3 s.
	DiscoverTimeout time.Duration
	// MaxRounds caps MRTR rounds; zero means 16.
	MaxRounds int
	// OnEvent, when set, receives notifications worth showing (progress, elicitation
	// complete, server cancel, logging). It must not block.
	OnEvent func(Event)
}

// Event is a notification from a session worth showing to the user.
type Event struct {
	Server string
	Kind   string // "progress", "elicitation-complete", "cancelled", "log", "exit"
	Text   string
	ID     string // elicitationId or request id, when relevant
}

// Round is one MRTR round or -32042 retry taken by a call.
type Round struct {
	Keys       []string        `json:"keys,omitempty"`
	Actions    []elicit.Action `json:"actions,omitempty"`
	StateBytes int             `json:"stateBytes,omitempty"`
	Kind       string          `json:"kind"` // "input_required", "load_shedding", "url_required"
}

// Session is a live connection to one server. It is safe for concurrent use.
type Session struct {
	server config.Server
	cs     *mcp.ClientSession
}

// ConnError reports a failure to reach or talk to a server (exit code 4).
type ConnError struct {
	Server string
	Err    error
}

func (e *ConnError) Error() string { return "server " + quote(e.Server) + ": " + e.Err.Error() }
func (e *ConnError) Unwrap() error  { return e.Err }

func quote(s string) string { return "\"" + s + "\"" }

var errTODO = errors.New("not implemented yet")

// Connect starts or reaches srv and negotiates a session.
func Connect(ctx context.Context, srv config.Server, opts Options) (*Session, error) {
	return nil, &ConnError{Server: srv.Name, Err: errTODO}
}

// Name returns the server's catalog name.
func (s *Session) Name() string { return s.server.Name }

// Protocol returns the negotiated protocol version.
func (s *Session) Protocol() string { return "" }

// ServerInfo returns the server's implementation info, or nil.
func (s *Session) ServerInfo() *mcp.Implementation { return nil }

// Capabilities returns the server's capabilities, or nil.
func (s *Session) Capabilities() *mcp.ServerCapabilities { return nil }

// Instructions returns the server's instructions, or "".
func (s *Session) Instructions() string { return "" }

// Tools lists every tool (all pages).
func (s *Session) Tools(ctx context.Context) ([]*mcp.Tool, error) { return nil, errTODO }

// Prompts lists every prompt (all pages).
func (s *Session) Prompts(ctx context.Context) ([]*mcp.Prompt, error) { return nil, errTODO }

// Resources lists every resource and resource template (all pages).
func (s *Session) Resources(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return nil, nil, errTODO
}

// CallTool calls a tool, answering elicitations on the way (MRTR rounds, -32042 retries).
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, []Round, error) {
	return nil, nil, errTODO
}

// GetPrompt gets a prompt, answering input requests on the way.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, []Round, error) {
	return nil, nil, errTODO
}

// ReadResource reads a resource, answering input requests on the way.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, []Round, error) {
	return nil, nil, errTODO
}

// Close ends the session: DELETE for HTTP sessions; close stdin, SIGTERM, SIGKILL for stdio.
func (s *Session) Close() error { return nil }
