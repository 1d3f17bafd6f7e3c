package transport

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
)

// newAuth sets up the sign-in of an HTTP session when Options.OAuth asks for it.
func (s *Session) newAuth(st *mcp.StreamableClientTransport) error {
	if s.opts.OAuth == nil {
		return nil
	}
	name := s.server.Name
	h, err := newOAuthHandler(*s.opts.OAuth, s.server,
		func(format string, args ...any) { s.tap.log.Notef(name, format, args...) },
		func() func() {
			s.prompt.enter()
			return s.prompt.leave
		})
	if err != nil {
		return &ConnError{Server: s.server.Name, Err: err}
	}
	s.auth = h
	s.http.auth = true
	s.http.base = h.Transport(s.http.base)
	st.OAuthHandler = h
	return nil
}

// newOAuthHandler builds the sign-in handler of srv from o, its Server and Resource
// defaulting to srv's name and URL, and its Notef and Pause to notef and pause when unset.
func newOAuthHandler(o oauth.Options, srv config.Server, notef func(string, ...any), pause func() func()) (*oauth.Handler, error) {
	if o.Server == "" {
		o.Server = srv.Name
	}
	if o.Resource == "" {
		o.Resource = srv.URL
	}
	if o.Notef == nil {
		o.Notef = notef
	}
	if o.Pause == nil {
		o.Pause = pause
	}
	return oauth.NewHandler(o)
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
