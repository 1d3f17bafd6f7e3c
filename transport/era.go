package transport

import (
	"context"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/config"
)

// Protocol versions the era choice offers.
const (
	eraModern = "2026-07-28" // stateless, server/discover, input_required rounds
	eraLegacy = "2025-11-25" // initialize, server-pushed elicitation/create
)

// codeUnsupportedVersion is the JSON-RPC error a server answers an unknown protocol
// version with.
const codeUnsupportedVersion = -32022

// Era is the protocol version a session speaks and why it was chosen.
type Era struct {
	Version string `json:"version"`
	Reason  string `json:"reason"`
}

// chooseEra connects to a server whose protocol is not pinned. It offers 2025-11-25
// through initialize first: most servers' tools elicit by pushing elicitation/create
// from inside a handler (every SDK's examples do), which 2026-07-28 forbids, and a
// server that speaks both eras serves its input_required tools to an initialize-era
// client by turning the rounds into pushes. Only when initialize is refused in a way
// that a server speaking nothing but 2026-07-28 refuses it (an unsupported version,
// an unknown method, an HTTP 400/404/405) does it connect again with server/discover
// at 2026-07-28; for a stdio server that means starting it again.
func chooseEra(ctx context.Context, srv config.Server, opts Options) (*Session, error) {
	s, err := dial(ctx, srv, opts, eraLegacy)
	if err == nil {
		reason := "the server accepts initialize: " + eraLegacy + " is preferred because tools can push " +
			"elicitation/create there, which " + eraModern + " forbids"
		if v := s.Protocol(); v != eraLegacy {
			reason = "the server accepts initialize and answered " + v
		}
		s.era = Era{Version: s.Protocol(), Reason: s.overSSE(reason)}
		s.noteEra()
		return s, nil
	}
	if !refusedForModern(err) {
		return nil, err
	}
	first := err
	s, err = dial(ctx, srv, opts, eraModern)
	if err != nil {
		return nil, errors.Join(err, first)
	}
	reason := "the server refused initialize (" + shortCause(first) + ")"
	if s.Protocol() >= eraModern {
		reason += " and speaks " + eraModern
	}
	s.era = Era{Version: s.Protocol(), Reason: s.overSSE(reason)}
	s.noteEra()
	return s, nil
}

// refusedForModern reports whether a failed initialize looks like a server that
// speaks only 2026-07-28 turning it down.
func refusedForModern(err error) bool {
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		switch rpc.Code {
		case codeUnsupportedVersion, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams:
			return true
		}
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status == 400 || he.Status == 404 || he.Status == 405
	}
	return false
}

// shortCause names why initialize failed in a few words (no server text).
func shortCause(err error) string {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		switch rpc.Code {
		case codeUnsupportedVersion:
			return "unsupported protocol version"
		case jsonrpc.CodeMethodNotFound:
			return "method not found"
		}
		return "JSON-RPC error " + strconv.FormatInt(rpc.Code, 10)
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return "HTTP " + strconv.Itoa(he.Status)
	}
	return "refused"
}

// noteEra writes the era and its reason to the wire log.
func (s *Session) noteEra() {
	s.tap.log.Notef(s.server.Name, "connected over %s, protocol %s (%s)", s.kind, s.era.Version, s.era.Reason)
}

// overSSE prefixes reason, the era's, with the fallback to legacy HTTP+SSE when
// Streamable HTTP was refused: that refusal is about the transport, not the era.
func (s *Session) overSSE(reason string) string {
	if s.sseFallback == "" {
		return reason
	}
	return "Streamable HTTP was refused (" + s.sseFallback + "), so legacy HTTP+SSE is used; " + reason
}
