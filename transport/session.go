package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
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
	// Sampling declares the sampling capability: the Answerer answers
	// sampling/createMessage requests (elicit.ModeSampling) too. Set it only when
	// someone can answer them (a person, an answers file with sampling entries).
	Sampling bool
	// FileInputs declares the fileInputs capability and turns x-mcp-file properties
	// (SEP-2356, draft) into file fields (--experimental file-inputs); off, neither.
	FileInputs bool
	// Protocol pins the version; "" chooses the era (see eraChoice).
	// When empty, the server's configured Protocol is used.
	Protocol string
	// PinnedBy names what pinned Protocol ("--protocol", "the server's protocol: setting"),
	// for Session.Era; "" with a pin says "the caller".
	PinnedBy string
	// Log receives every message; nil keeps none.
	Log *wire.Log
	// DiscoverTimeout bounds the server/discover probe; zero means 3 s.
	DiscoverTimeout time.Duration
	// MaxRounds caps MRTR rounds; zero means the server's MaxRounds, else 16.
	MaxRounds int
	// OnEvent, when set, receives notifications worth showing (progress, elicitation
	// complete, server cancel, logging). It must not block.
	OnEvent func(Event)

	// RetryNow, when set, is asked after each accepted -32042 entry whether to retry
	// the call without waiting for its notifications/elicitation/complete (an answers
	// file's "retry: now"). Session.RetryNow releases every wait interactively.
	RetryNow func(*elicit.Request) bool
	// NoReask makes an invalid MRTR answer fail the call at once instead of asking again
	// (a scripted answerer would only repeat the same answer).
	NoReask bool
	// URLWait bounds the wait for -32042 completions; zero waits until the call's
	// context ends or Session.RetryNow is called.
	URLWait time.Duration
	// Roots, when non-nil, declares the roots capability (with listChanged) and answers
	// roots/list (a server request, or a 2026-07-28 input request) with these
	// directories or file:// URIs; Session.SetRoots changes them. Nil declares none.
	Roots []string
	// LogLevel, when set, is sent with logging/setLevel once connected, to a server
	// that declares logging.
	LogLevel string

	// Procs, when set, registers the stdio server process so that Procs.Stop ends it
	// whatever happens to this session; nil leaves stopping it to Close.
	Procs *process.Procs
	// TaskWait bounds the wait for a task a tools/call of ours became (polling, outside
	// prompts): past it the task is cancelled (as the server allows) and the call ends
	// with an error wrapping ErrTimeout. Zero means DefaultTaskWait; negative waits without bound.
	TaskWait time.Duration
	// HeadersOnRedirect sends the server's configured headers (config.Server.Headers)
	// to whatever host a redirect leads to. By default they go only to the scheme, host
	// and port of the server's URL, so a redirect elsewhere does not carry an API key
	// or a static Authorization header (OAuth tokens never follow a redirect either).
	HeadersOnRedirect bool
	// HTTPClient is the base client for HTTP servers; nil means http.DefaultTransport.
	HTTPClient *http.Client
	// OAuth signs in to HTTP servers that answer 401 (Streamable HTTP only); nil means
	// no OAuth. Its Server and Resource default to the server's name and URL.
	OAuth *oauth.Options

	// transport replaces the dialled transport (tests: in-memory).
	transport mcp.Transport
	// urlBackoff replaces the first wait between -32042 retries (tests).
	urlBackoff time.Duration
}

// Event is a notification from a session worth showing to the user.
type Event struct {
	Server string
	Kind   EventKind
	Text   safe.Text // server text: the progress or log message, the cancelled request's message, the exit reason
	ID     string    // elicitationId or request id, when relevant
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of Event.
const (
	EventProgress            EventKind = "progress"             // notifications/progress; ID is the token
	EventElicitationComplete EventKind = "elicitation-complete" // ID is the elicitationId
	EventCancelled           EventKind = "cancelled"            // the server cancelled its elicitation
	EventLog                 EventKind = "log"                  // notifications/message; ID is the level
	EventExit                EventKind = "exit"                 // the stdio process ended
	EventURLWait             EventKind = "url-wait"             // a -32042 call waits for completions
	EventReconnected         EventKind = "reconnected"          // a new HTTP session replaced a lost one
	EventRefused             EventKind = "refused"              // a request refused unasked (URL mode undeclared, over the frame limit)
	EventTask                EventKind = "task"                 // a task changed status; ID is the taskId, Text the status and message
	EventListChanged         EventKind = "list-changed"         // notifications/{tools,prompts,resources}/list_changed; ID is the list
	EventResourceUpdated     EventKind = "resource-updated"     // notifications/resources/updated; ID is the URI as sent
)

// Round is one MRTR round or -32042 retry taken by a call.
type Round struct {
	Keys       []string        `json:"keys,omitempty"`
	Actions    []elicit.Action `json:"actions,omitempty"`
	StateBytes int             `json:"stateBytes,omitempty"`
	Kind       RoundKind       `json:"kind"`
}

// RoundKind says what a Round answered.
type RoundKind string

// The kinds of Round.
const (
	RoundInputRequired RoundKind = "input_required" // 2026-07-28 inputRequests answered
	RoundLoadShedding  RoundKind = "load_shedding"  // input_required with only a requestState
	RoundURLRequired   RoundKind = "url_required"   // a -32042 error answered
)

// Session is a live connection to one server. It is safe for concurrent use.
type Session struct {
	server    config.Server
	cs        atomic.Pointer[mcp.ClientSession] // replaced when an HTTP session is re-initialized
	mcpClient *mcp.Client                       // for Request's extension methods
	opts      Options
	tap       *tap
	proc      *process.Proc // stdio only
	http      *httpTap      // HTTP only
	kind      config.Kind
	prompt    pauser
	urls      *pendingURLs
	auth      *oauth.Handler // HTTP with Options.OAuth only
	offer     string         // version offered when Options.Protocol pins none
	// sseFallback names why Streamable HTTP was refused ("HTTP 404") when the session
	// fell back to legacy HTTP+SSE; empty otherwise.
	sseFallback string
	era         Era // set once connected
	// httpClient is the client of HTTP sessions; reinitMu serializes re-initializing.
	httpClient *http.Client
	reinitMu   sync.Mutex

	mu          sync.Mutex
	calls       map[*callTrack]struct{}
	toolsListed atomic.Bool
	// listMu serializes Tools; listed holds the last tools/list page received for each
	// cursor, decoded by elicitty (tools.go).
	listMu sync.Mutex
	listed map[string]*toolPage
	// schemas are the input schemas of the last tools listing, as sent (property order kept).
	schemas    map[string]json.RawMessage
	badHeaders map[string]string // tool -> why its x-mcp-header annotations are invalid
	tokens     atomic.Int64      // progress tokens, new for every request and retry

	// Tasks (tasks.go, taskserve.go): the tasks we created or saw listed, the
	// execution.taskSupport of each tool of the last listing, and the tasks we run for
	// the server.
	requested   map[string]*TaskInfo
	taskSupport map[string]string
	served      *taskServe
	// rootsMu guards roots, the roots declared now (Options.Roots, then SetRoots), and
	// the write of mcpClient that SetRoots reads.
	rootsMu sync.Mutex
	roots   []Root
}

// progressToken returns a progress token unique in this session (docs/protocol.md, "Timeouts and cancellation").
func (s *Session) progressToken() string {
	return fmt.Sprintf("%s-%d", s.server.Name, s.tokens.Add(1))
}

// ConnError reports a failure to reach or talk to a server (exit code 4).
type ConnError struct {
	Server string
	Err    error
}

// Error implements error.
// The cause may quote the server (an error message, a stderr tail): it is sanitized.
func (e *ConnError) Error() string {
	return "server " + quote(e.Server) + ": " + safe.Line(e.Err.Error())
}
func (e *ConnError) Unwrap() error { return e.Err }

func quote(s string) string { return "\"" + s + "\"" }

// client returns the live go-sdk session.
func (s *Session) client() *mcp.ClientSession { return s.cs.Load() }

// Name returns the server's catalog name.
func (s *Session) Name() string { return s.server.Name }

// Kind returns the transport actually used: stdio, http (Streamable HTTP) or sse.
func (s *Session) Kind() config.Kind { return s.kind }

func (s *Session) init() *mcp.InitializeResult {
	cs := s.client()
	if cs == nil {
		return nil
	}
	return cs.InitializeResult()
}

// Protocol returns the negotiated protocol version.
func (s *Session) Protocol() string {
	if r := s.init(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// Era returns the protocol version the session speaks and why it was chosen.
func (s *Session) Era() Era { return s.era }

// ServerInfo returns the server's implementation info, or nil.
func (s *Session) ServerInfo() *mcp.Implementation {
	if r := s.init(); r != nil {
		return r.ServerInfo
	}
	return nil
}

// Capabilities returns the server's capabilities, or nil.
func (s *Session) Capabilities() *mcp.ServerCapabilities {
	if r := s.init(); r != nil {
		return r.Capabilities
	}
	return nil
}

// Instructions returns the server's instructions, or "".
func (s *Session) Instructions() string {
	if r := s.init(); r != nil {
		return r.Instructions
	}
	return ""
}

// InputSchemas returns the input schema of each tool of the last Tools listing, by tool
// name, as the server sent it: its property order is the order to ask in (mcp.Tool's
// InputSchema is a decoded map, which has none).
func (s *Session) InputSchemas() map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.schemas)
}

// Prompts lists every prompt (all pages, up to maxListPages and maxListItems).
func (s *Session) Prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	if c := s.Capabilities(); c != nil && c.Prompts == nil {
		return nil, nil
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	out, err := listAll(ctx, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := s.client().ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
	return out, s.listErr(ctx, "prompts/list", err)
}

// Resources lists every resource and resource template (all pages, up to maxListPages
// and maxListItems each).
func (s *Session) Resources(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	if c := s.Capabilities(); c != nil && c.Resources == nil {
		return nil, nil, nil
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	rs, err := listAll(ctx, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := s.client().ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
	if err != nil {
		return rs, nil, s.listErr(ctx, "resources/list", err)
	}
	ts, err := listAll(ctx, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := s.client().ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeMethodNotFound {
		return rs, ts, nil
	}
	return rs, ts, s.listErr(ctx, "resources/templates/list", err)
}

// CallTool calls a tool, answering elicitations on the way (MRTR rounds, -32042 retries).
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, []Round, error) {
	if args == nil {
		args = map[string]any{}
	}
	s.redactFileArgs(args)
	if s.http != nil && s.Protocol() >= protocol.Version20260728 && !s.toolsListed.Load() {
		// go-sdk writes Mcp-Param-* headers (x-mcp-header) only for tools it has seen
		// in a tools/list result.
		_, _ = s.Tools(ctx)
	}
	if err := s.headerRefusal(name); err != nil {
		return nil, nil, err
	}
	if asTask, _ := s.WantsTask(ctx, name, false); asTask {
		return s.CallToolTask(ctx, name, args, 0)
	}
	var token string // the last round's: its result may be a 2026-07-28 task
	res, rounds, err := drive(ctx, s, "tools/call", name, func(ctx context.Context, tok string, rs mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		// Fresh params every round: go-sdk writes _meta into them.
		p := &mcp.CallToolParams{Name: name, Arguments: args, InputResponses: rs, RequestState: state}
		token = tok
		p.SetProgressToken(token)
		return s.client().CallTool(ctx, p)
	}, func(r *mcp.CallToolResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
	if err == nil && s.modernEra() {
		if created := s.tap.takeCreatedTask(token); created != nil {
			tres, trounds, terr := s.awaitTask26(ctx, name, created)
			return tres, append(rounds, trounds...), terr
		}
	}
	return res, rounds, err
}

// GetPrompt gets a prompt, answering input requests on the way.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, []Round, error) {
	return drive(ctx, s, "prompts/get", name, func(ctx context.Context, token string, rs mcp.InputResponseMap, state string) (*mcp.GetPromptResult, error) {
		p := &mcp.GetPromptParams{Name: name, Arguments: args, InputResponses: rs, RequestState: state}
		p.SetProgressToken(token)
		return s.client().GetPrompt(ctx, p)
	}, func(r *mcp.GetPromptResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
}

// ReadResource reads a resource, answering input requests on the way.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, []Round, error) {
	return drive(ctx, s, "resources/read", uri, func(ctx context.Context, token string, rs mcp.InputResponseMap, state string) (*mcp.ReadResourceResult, error) {
		p := &mcp.ReadResourceParams{URI: uri, InputResponses: rs, RequestState: state}
		p.SetProgressToken(token)
		return s.client().ReadResource(ctx, p)
	}, func(r *mcp.ReadResourceResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
}

// AwaitAnswered waits until every request the server sent has been answered (or
// withdrawn by the server), at most d: a front end that cancels its open forms as it
// quits calls it before it cancels the calls those forms belong to, so that the
// server hears the forms' answers before the calls' cancellation withdraws them.
func (s *Session) AwaitAnswered(d time.Duration) { s.tap.awaitAnswered(d) }

// Close ends the session: DELETE for HTTP sessions; close stdin, SIGTERM, SIGKILL for stdio.
func (s *Session) Close() error {
	var err error
	// Answers already given (a form cancelled as the user quits) still reach the
	// server: they are written as the answerer returns, moments after. So do the
	// notifications/cancelled of calls given up just before (owed.go).
	deadline := time.Now().Add(answerGrace)
	s.tap.awaitAnswered(answerGrace)
	s.tap.awaitOwed(time.Until(deadline))
	s.served.close()
	if cs := s.client(); cs != nil {
		err = cs.Close()
	}
	if s.proc != nil {
		s.proc.Shutdown(context.Background())
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	return err
}

// answerGrace bounds how long Close waits for answers to server requests, and for the
// cancellations of calls given up, to be written.
const answerGrace = 300 * time.Millisecond

// Wait blocks until the server ends the session (a stdio process exits, an HTTP
// session breaks) and returns the reason.
func (s *Session) Wait() error {
	err := s.client().Wait()
	if s.proc != nil {
		if ee := s.proc.WaitExit(process.CloseGrace); ee != nil {
			return &ConnError{Server: s.server.Name, Err: ee}
		}
	}
	return err
}

// codeRejected is go-sdk's internal "rejected by transport" code.
const codeRejected = -32005

// wrap turns a request error into what callers should see: a *ConnError when the
// server is gone or refused at the HTTP level, else the error with the method named.
func (s *Session) wrap(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrTimeout) {
		return fmt.Errorf("%s: %w", what, cause)
	}
	var rpc *jsonrpc.Error
	if s.proc != nil && !errors.As(err, &rpc) && ctx.Err() == nil {
		// A broken pipe or EOF usually means the process is dying: give it a moment
		// so the report carries its exit status and last stderr lines.
		if ee := s.proc.WaitExit(time.Second); ee != nil {
			return &ConnError{Server: s.server.Name, Err: fmt.Errorf("%s: %w", what, ee)}
		}
	}
	if ae := authError(err); ae != nil {
		return &ConnError{Server: s.server.Name, Err: fmt.Errorf("%s: %w", what, ae)}
	}
	if s.http != nil {
		// go-sdk reports a refused POST as a -32005 "rejected by transport" error.
		if he := s.http.takeErr(); he != nil && (!errors.As(err, &rpc) || rpc.Code == codeRejected) {
			return &ConnError{Server: s.server.Name, Err: fmt.Errorf("%s: %w", what, he)}
		}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ConnError{Server: s.server.Name, Err: fmt.Errorf("%s: %w", what, err)}
	}
	return safe.Errorf("%s: %w", what, err) // a JSON-RPC error quotes the server
}

func (s *Session) event(kind EventKind, text safe.Text, id string) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(Event{Server: s.server.Name, Kind: kind, Text: text, ID: id})
	}
}
