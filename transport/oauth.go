package transport

import (
	"errors"

	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newAuth sets up the sign-in of an HTTP session when Options.OAuth asks for it.
func (s *Session) newAuth(st *mcp.StreamableClientTransport) error {
	if s.opts.OAuth == nil {
		return nil
	}
	o := *s.opts.OAuth
	if o.Server == "" {
		o.Server = s.server.Name
	}
	if o.Resource == "" {
		o.Resource = s.server.URL
	}
	if o.Notef == nil {
		name := s.server.Name
		o.Notef = func(format string, args ...any) { s.tap.log.Notef(name, format, args...) }
	}
	if o.Pause == nil {
		o.Pause = func() func() {
			s.prompt.enter()
			return s.prompt.leave
		}
	}
	h, err := oauth.NewHandler(o)
	if err != nil {
		return &ConnError{Server: s.server.Name, Err: err}
	}
	s.auth = h
	s.http.auth = true
	s.http.base = h.Transport(s.http.base)
	st.OAuthHandler = h
	return nil
}

// OAuth returns the session's sign-in handler, or nil when it has none.
func (s *Session) OAuth() *oauth.Handler { return s.auth }

// authError returns the sign-in failure in err's chain, if any.
func authError(err error) *oauth.Error {
	var ae *oauth.Error
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
