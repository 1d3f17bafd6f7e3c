package config

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

// Kind is how a server is reached.
type Kind string

// The transports a server can use. KindHTTP tries Streamable HTTP and falls back to
// legacy HTTP+SSE; KindSSE forces legacy HTTP+SSE.
const (
	KindStdio Kind = "stdio"
	KindHTTP  Kind = "http"
	KindSSE   Kind = "sse"
)

// URLOpen says what accepting a URL-mode request does.
type URLOpen string

// URL open policies.
const (
	// URLOpenBrowser opens the system browser after consent (the default).
	URLOpenBrowser URLOpen = "open"
	// URLCopyOnly never opens a browser; the URL is copied and printed.
	URLCopyOnly URLOpen = "copy-only"
)

// URLPolicy is the per-server policy for URL-mode elicitation.
type URLPolicy struct {
	// Disabled turns URL mode off: it is not declared to the server.
	Disabled bool `json:"disabled,omitempty" yaml:"disabled,omitempty"`
	// AllowedHosts lists host patterns ("example.com", "*.example.com"); empty allows all.
	AllowedHosts []string `json:"allowedHosts,omitempty" yaml:"allowedHosts,omitempty"`
	// HTTPSOnly refuses plain http URLs, even on loopback.
	HTTPSOnly bool `json:"httpsOnly,omitempty" yaml:"httpsOnly,omitempty"`
	// Open is what accepting does; empty means URLOpenBrowser.
	Open URLOpen `json:"open,omitempty" yaml:"open,omitempty"`
}

// Server is one entry of the server catalog. The zero value is not a usable server.
type Server struct {
	// Name is the catalog name (the TARGET on the command line).
	Name string `json:"name" yaml:"name"`
	// Source names the file the entry came from ("" for the command line or built-in).
	Source string `json:"-" yaml:"-"`
	// Kind is the transport; empty means stdio when Command is set, else http.
	Kind Kind `json:"type,omitempty" yaml:"type,omitempty"`

	// Command, Args, Env and Cwd start a stdio server.
	Command string            `json:"command,omitempty" yaml:"command,omitempty"`
	Args    []string          `json:"args,omitempty" yaml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty" yaml:"cwd,omitempty"`

	// URL and Headers reach an HTTP server.
	URL     string            `json:"url,omitempty" yaml:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty" yaml:"headers,omitempty"`

	// Protocol pins the protocol version (e.g. "2025-11-25"); empty negotiates.
	Protocol string `json:"protocol,omitempty" yaml:"protocol,omitempty"`
	// Timeout bounds each request's idle time (reset by progress notifications, paused
	// while a person answers a form); zero means the default (60 s).
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	// HandshakeTimeout bounds connecting and the initialize handshake; zero means the
	// default (30 s).
	HandshakeTimeout time.Duration `json:"handshakeTimeout,omitempty" yaml:"handshakeTimeout,omitempty"`
	// URLWait bounds a headless wait for a URL-mode completion notification, when
	// nobody can press "retry now"; zero means the default (2 min).
	URLWait time.Duration `json:"urlWait,omitempty" yaml:"urlWait,omitempty"`
	// Validation switches validation of accepted answers; nil means on.
	Validation *bool `json:"validation,omitempty" yaml:"validation,omitempty"`
	// URLPolicy governs URL-mode elicitation for this server.
	URLPolicy URLPolicy `json:"urlPolicy,omitempty" yaml:"urlPolicy,omitempty"`
	// MaxRounds caps 2026-07-28 multi round-trip rounds; zero means 16.
	MaxRounds int `json:"maxRounds,omitempty" yaml:"maxRounds,omitempty"`
	// OAuth holds pre-registered OAuth client settings for an HTTP server; nil means
	// sign-in (when the server asks for it) registers a client dynamically.
	OAuth *OAuth `json:"oauth,omitempty" yaml:"oauth,omitempty"`
}

// OAuth is the per-server OAuth client configuration. ClientSecret is a secret: it is
// redacted like header values and never printed.
type OAuth struct {
	// ClientID and ClientSecret are pre-registered credentials; ClientSecret may use
	// ${VAR} and may be empty for a public client.
	ClientID     string `json:"clientId,omitempty" yaml:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty" yaml:"clientSecret,omitempty"`
	// ClientMetadataURL is an https URL of a client ID metadata document to use as
	// client_id where the authorization server supports it.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty" yaml:"clientMetadataUrl,omitempty"`
	// Scopes are requested in addition to those the server asks for.
	Scopes []string `json:"scopes,omitempty" yaml:"scopes,omitempty"`
	// RedirectPort fixes the loopback redirect port (127.0.0.1); zero picks a free one.
	RedirectPort int `json:"redirectPort,omitempty" yaml:"redirectPort,omitempty"`
}

// EffectiveKind returns the transport kind, inferring it when Kind is empty.
func (s Server) EffectiveKind() Kind {
	if s.Kind != "" {
		return s.Kind
	}
	if s.Command != "" {
		return KindStdio
	}
	return KindHTTP
}

// ValidationEnabled reports whether accepted answers are validated (default true).
func (s Server) ValidationEnabled() bool { return s.Validation == nil || *s.Validation }

// redactedValue replaces secret values in Redacted and Describe output.
const redactedValue = "<redacted>"

// Redacted returns a copy of s that is safe to print or log: every env value and header
// value is replaced by "<redacted>" (names are kept) and a password in the URL is masked.
func (s Server) Redacted() Server {
	r := s
	r.Args = append([]string(nil), s.Args...)
	r.Env = redactMap(s.Env)
	r.Headers = redactMap(s.Headers)
	r.URL = redactURL(s.URL)
	r.URLPolicy.AllowedHosts = append([]string(nil), s.URLPolicy.AllowedHosts...)
	if s.Validation != nil {
		v := *s.Validation
		r.Validation = &v
	}
	if s.OAuth != nil {
		o := *s.OAuth
		o.Scopes = append([]string(nil), s.OAuth.Scopes...)
		if o.ClientSecret != "" {
			o.ClientSecret = redactedValue
		}
		r.OAuth = &o
	}
	return r
}

// Describe returns a one-line description without secrets, such as
// `demo (stdio: node server.js; env: TOKEN)` or `api (http: https://x.test/mcp; headers: Authorization)`.
func (s Server) Describe() string {
	var b strings.Builder
	b.WriteString(s.Name)
	b.WriteString(" (")
	b.WriteString(string(s.EffectiveKind()))
	b.WriteString(": ")
	if s.EffectiveKind() == KindStdio {
		b.WriteString(strings.Join(append([]string{s.Command}, s.Args...), " "))
	} else {
		b.WriteString(redactURL(s.URL))
	}
	if len(s.Env) > 0 {
		b.WriteString("; env: " + strings.Join(mapKeys(s.Env), ", "))
	}
	if len(s.Headers) > 0 {
		b.WriteString("; headers: " + strings.Join(mapKeys(s.Headers), ", "))
	}
	if s.Source != "" {
		b.WriteString("; from " + s.Source)
	}
	b.WriteString(")")
	return b.String()
}

// String returns Describe(), so that printing a Server with %v never shows secrets.
func (s Server) String() string { return s.Describe() }

// GoString is like String, so that %#v does not show secrets either.
func (s Server) GoString() string { return "config.Server{" + s.Describe() + "}" }

func redactMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = redactedValue
	}
	return out
}

func mapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// redactURL masks the password of a URL; a URL that does not parse is masked whole, since
// its parts cannot be told apart.
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redactedValue
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return u.String()
	}
	return raw
}
