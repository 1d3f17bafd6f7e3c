package tui

import (
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/wire"
)

// elicitRequestMsg brings a new elicitation from a handler goroutine. reply has
// capacity 1 and receives exactly one Response.
type elicitRequestMsg struct {
	id    reqID
	req   *elicit.Request
	form  *elicit.Form // nil for URL mode
	reply chan<- elicit.Response
	call  callID // the TUI call that asked, when known (0 otherwise)
}

// elicitGoneMsg says the asker stopped waiting (server cancel or deadline).
type elicitGoneMsg struct {
	id  reqID
	why string
}

// eventMsg is a session notification.
type eventMsg transport.Event

// beginConnectsMsg begins the connections of a crowd of servers, after the first frame
// (Model.crowded).
type beginConnectsMsg struct{}

// connectedMsg reports the end of a connection attempt to server idx.
type connectedMsg struct {
	idx  int
	gen  int
	sess session
	err  error
	// Filled on success, read off the UI goroutine.
	protocol string
	era      string // why this protocol (transport.Era.Reason)
	caps     []string
	info     string // the server's serverInfo: title or name, and version (unsanitized)
	// catalog waits for the server's catalog, listed as soon as it connected.
	catalog tea.Cmd
}

// catalogMsg carries what a server offers.
type catalogMsg struct {
	server    string
	tools     []*mcp.Tool
	schemas   map[string]json.RawMessage // the tools' input schemas as sent, when known
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	err       error
}

// callID identifies one tool call, prompt get or resource read.
type callID int

// callDoneMsg reports the end of a call.
type callDoneMsg struct {
	id     callID
	text   string // rendered result
	isErr  bool
	rounds int
	lost   bool // the server process ended under the call (a crash)
	// ended is set when the call's error is only that its context ended (the user
	// cancelled it, or quit): its text is Go's, not the server's.
	ended bool
	// cancelled is set when the user cancelled the call: it ended, it did not fail.
	cancelled bool
}

// restartMsg restarts server row idx automatically, if its generation is still gen.
type restartMsg struct{ idx, gen int }

// logEntriesMsg carries new wire log entries, oldest first.
type logEntriesMsg []wire.Entry

// proxiesMsg lists the elicitty proxies attached now (Options.Remote).
type proxiesMsg []Proxy

// noteMsg is a line of Options.Remote's log, shown in the status bar.
type noteMsg string

// clockMsg advances the model's clock (ages and time left in the inbox).
type clockMsg time.Time

// openedMsg reports the outcome of opening a URL in the browser.
type openedMsg struct {
	id  reqID // the request consented to; 0 for the watched flow's reopen
	url string
	err error
}
