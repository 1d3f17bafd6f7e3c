//lint:file-ignore SA1019 logging is deprecated in 2026-07-28 (SEP-2577) but remains in the 2025 eras.

package transport

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
)

// maxLogText bounds the text of one server log message passed on as an Event.
const maxLogText = 2000

// The lists a server may say changed (EventListChanged's ID).
const (
	ListTools     = "tools"
	ListPrompts   = "prompts"
	ListResources = "resources"
)

// notifyHandlers fills the go-sdk client options that turn server notifications into
// Events: list changes, resource updates and log messages.
func (s *Session) notifyHandlers(o *mcp.ClientOptions) {
	changed := func(list string) { s.event(EventListChanged, safe.Untrusted(list+" changed"), list) }
	o.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { changed(ListTools) }
	o.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { changed(ListPrompts) }
	o.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { changed(ListResources) }
	o.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		if req.Params == nil || req.Params.URI == "" {
			return
		}
		uri := safe.Cut(req.Params.URI, 2048)
		s.event(EventResourceUpdated, safe.Untrusted(uri), uri)
	}
	o.LoggingMessageHandler = func(_ context.Context, req *mcp.LoggingMessageRequest) {
		if p := req.Params; p != nil {
			s.event(EventLog, safe.Untrusted(logText(string(p.Level), p.Logger, p.Data)), string(p.Level))
		}
	}
}

// logText is one server log message as a line: "level [logger] data", data as text
// when it is a string, else as JSON; at most maxLogText bytes.
func logText(level, logger string, data any) string {
	var text string
	switch d := data.(type) {
	case string:
		text = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			text = fmt.Sprint(d)
		} else {
			text = string(b)
		}
	}
	out := safe.Cut(level, 20)
	if logger != "" {
		out += " [" + safe.Cut(logger, 80) + "]"
	}
	return safe.Cut(out+" "+text, maxLogText)
}

// CanSubscribe reports whether the server declared resource subscriptions.
func (s *Session) CanSubscribe() bool {
	c := s.Capabilities()
	return c != nil && c.Resources != nil && c.Resources.Subscribe
}

// Subscribe asks the server for notifications/resources/updated about uri.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if !s.CanSubscribe() {
		return fmt.Errorf("resources/subscribe: %s does not offer resource subscriptions", s.server.Name)
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	return s.wrap(ctx, "resources/subscribe", s.client().Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
}

// Unsubscribe ends a subscription made with Subscribe.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	if !s.CanSubscribe() {
		return fmt.Errorf("resources/unsubscribe: %s does not offer resource subscriptions", s.server.Name)
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	return s.wrap(ctx, "resources/unsubscribe", s.client().Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}

// CanLog reports whether the server declared logging (so logging/setLevel applies).
func (s *Session) CanLog() bool {
	c := s.Capabilities()
	return c != nil && c.Logging != nil
}

// SetLogLevel asks the server to send log messages of level and above (logging/setLevel).
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	if !config.ValidLogLevel(level) {
		return fmt.Errorf("logging/setLevel: unknown level %q (want one of %v)", level, config.LogLevels())
	}
	if !s.CanLog() {
		return fmt.Errorf("logging/setLevel: %s does not declare logging", s.server.Name)
	}
	ctx, cancel := s.requestContext(ctx, "")
	defer cancel()
	err := s.client().SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)})
	return s.wrap(ctx, "logging/setLevel", err)
}

// applyLogLevel sends Options.LogLevel to a server that declares logging; a failure is
// noted in the wire log, not fatal.
func (s *Session) applyLogLevel(ctx context.Context) {
	if s.opts.LogLevel == "" || !s.CanLog() {
		return
	}
	if err := s.SetLogLevel(ctx, s.opts.LogLevel); err != nil {
		s.tap.log.Notef(s.server.Name, "%v", err)
	}
}
