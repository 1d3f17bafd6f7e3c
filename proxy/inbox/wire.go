package inbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// Version is the protocol version a Broker announces in its hello; a client refuses
// another.
const Version = 1

// MaxLine bounds one line of the wire (a message and its newline), either way. A
// longer line drops the peer.
const MaxLine = 4 << 20

// writeTimeout bounds each write to a peer; a peer that does not read is dropped.
const writeTimeout = 5 * time.Second

// The message types.
const (
	typeHello    = "hello"
	typeAsk      = "ask"
	typeWithdraw = "withdraw"
	typeAnswer   = "answer"
)

// envelope is what every line carries: its type, and the rest of the message.
type envelope struct {
	Type string `json:"type"`
}

// helloMsg is the first line a Broker sends on a new connection: who it is and how
// many asks follow at once. A later hello names the host (Broker.SetHost).
type helloMsg struct {
	Type    string `json:"type"` // "hello"
	Version int    `json:"version"`
	PID     int    `json:"pid"`
	Host    string `json:"host,omitempty"`
	Server  string `json:"server,omitempty"`
	Pending int    `json:"pending"`
}

// askMsg is a question waiting for an answer; ID is unique within one proxy.
type askMsg struct {
	Type    string      `json:"type"` // "ask"
	ID      uint64      `json:"id"`
	Request wireRequest `json:"request"`
}

// withdrawMsg takes back the ask ID: answered in another inbox, expired, or cancelled
// by the server.
type withdrawMsg struct {
	Type   string `json:"type"` // "withdraw"
	ID     uint64 `json:"id"`
	Reason string `json:"reason"`
}

// answerMsg is the user's answer to the ask ID.
type answerMsg struct {
	Type    string         `json:"type"` // "answer"
	ID      uint64         `json:"id"`
	Action  elicit.Action  `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// wireRequest is the part of an elicit.Request that crosses the wire.
type wireRequest struct {
	Server        string          `json:"server"`
	ServerInfo    string          `json:"serverInfo,omitempty"`
	Host          string          `json:"host,omitempty"`
	Origin        string          `json:"origin"`
	Call          string          `json:"call,omitempty"`
	Tool          string          `json:"tool,omitempty"`
	Protocol      string          `json:"protocol,omitempty"`
	Mode          elicit.Mode     `json:"mode,omitempty"`
	Message       string          `json:"message"`
	Schema        json.RawMessage `json:"schema,omitempty"`
	URL           string          `json:"url,omitempty"`
	ElicitationID string          `json:"elicitationId,omitempty"`
	Key           string          `json:"key,omitempty"`
	Index         int             `json:"index,omitempty"`
	Total         int             `json:"total,omitempty"`
	Deadline      time.Time       `json:"deadline,omitzero"`
	Repeat        int             `json:"repeat,omitempty"`
	Consented     time.Time       `json:"consented,omitzero"`
	URLDeclared   bool            `json:"urlDeclared,omitempty"`
	NoValidate    bool            `json:"noValidate,omitempty"`
}

// origins names the elicit.Origin values on the wire.
var origins = map[string]elicit.Origin{
	elicit.OriginPush.String():         elicit.OriginPush,
	elicit.OriginInputRequest.String(): elicit.OriginInputRequest,
	elicit.OriginURLRequired.String():  elicit.OriginURLRequired,
}

// toWire copies r for the wire; deadline, when earlier than r's own, replaces it (the
// proxy's bounded wait).
func toWire(r *elicit.Request, deadline time.Time) wireRequest {
	d := r.Deadline
	if !deadline.IsZero() && (d.IsZero() || deadline.Before(d)) {
		d = deadline
	}
	return wireRequest{
		Server: r.Server, ServerInfo: r.ServerInfo, Host: r.Host, Origin: r.Origin.String(),
		Call: r.Call, Tool: r.Tool, Protocol: r.Protocol, Mode: r.Mode, Message: r.Message,
		Schema: r.Schema, URL: r.URL, ElicitationID: r.ElicitationID, Key: r.Key,
		Index: r.Index, Total: r.Total, Deadline: d, Repeat: r.Repeat, Consented: r.Consented,
		URLDeclared: r.URLDeclared, NoValidate: r.NoValidate,
	}
}

// request turns what a proxy sent back into an elicit.Request. The names shown as
// labels (server, host, call, tool) are sanitized here; the message, schema and URL
// stay as sent, for the screens that sanitize and analyse them.
func (w wireRequest) request() (*elicit.Request, error) {
	origin, ok := origins[w.Origin]
	if !ok {
		return nil, fmt.Errorf("unknown origin %q", safe.Line(w.Origin))
	}
	switch w.Mode {
	case "", elicit.ModeForm, elicit.ModeURL:
	default:
		return nil, fmt.Errorf("unknown mode %q", safe.Line(string(w.Mode)))
	}
	if w.Message == "" {
		return nil, errors.New("an ask without a message")
	}
	if !w.Consented.IsZero() && w.Mode != elicit.ModeURL {
		return nil, errors.New("a wait for a question that has no link")
	}
	return &elicit.Request{
		Server: safe.Line(w.Server), ServerInfo: safe.Line(w.ServerInfo), Host: safe.Line(w.Host),
		Origin: origin, Call: safe.Line(w.Call), Tool: safe.Line(w.Tool), Protocol: safe.Line(w.Protocol),
		Mode: w.Mode, Message: w.Message, Schema: w.Schema, URL: w.URL,
		ElicitationID: w.ElicitationID, Key: w.Key, Index: w.Index, Total: w.Total,
		Deadline: w.Deadline, Repeat: w.Repeat, Consented: w.Consented, URLDeclared: w.URLDeclared, NoValidate: w.NoValidate,
	}, nil
}

// checkAnswer refuses an answer a user could not have given.
func checkAnswer(a answerMsg) error {
	switch a.Action {
	case elicit.Accept:
	case elicit.Decline, elicit.Cancel:
		if len(a.Content) > 0 {
			return fmt.Errorf("a %s answer with content", a.Action)
		}
	default:
		return fmt.Errorf("unknown action %q", safe.Line(string(a.Action)))
	}
	return nil
}

// encode marshals one message as a line.
func encode(m any) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode inbox message: %w", err)
	}
	if len(b)+1 > MaxLine {
		return nil, fmt.Errorf("inbox message of %d bytes is over the %d-byte limit", len(b), MaxLine)
	}
	return append(b, '\n'), nil
}

// decodeType reads the type of one line.
func decodeType(line []byte) (string, error) {
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		return "", fmt.Errorf("malformed line: %w", err)
	}
	return e.Type, nil
}
