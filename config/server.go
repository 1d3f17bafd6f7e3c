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

// RestartPolicy says when a stdio server is restarted automatically.
type RestartPolicy string

// Restart policies.
const (
	// RestartNever leaves a crashed server failed until the user restarts it (key r).
	RestartNever RestartPolicy = "never"
	// RestartOnFailure restarts a server that crashed or exited, with backoff, up to
	// MaxRestarts times in a row.
	RestartOnFailure RestartPolicy = "on-failure"
)

// DefaultMaxRestarts is MaxRestarts when zero.
const DefaultMaxRestarts = 5

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
	// Layer is the catalog layer the entry came from (zero: built-in).
	Layer Layer `json:"-" yaml:"-"`
	// Project is the project folder of the entry's file when that file is project-scope
	// (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json): such a
	// server starts only once the user trusts the folder (see Project). Empty for
	// user-scope files, elicitty's own file, the command line and built-in servers.
	Project string `json:"-" yaml:"-"`
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
	// HeadersOnRedirect lets Headers follow a redirect to another origin (scheme, host
	// and port); by default they reach the server's own origin only.
	HeadersOnRedirect bool `json:"headersOnRedirect,omitempty" yaml:"headersOnRedirect,omitempty"`

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
	// Restart says when a stdio server that crashed or exited is restarted on its
	// own (in the terminal UI): RestartOnFailure or "" (never).
	Restart RestartPolicy `json:"restart,omitempty" yaml:"restart,omitempty"`
	// MaxRestarts caps automatic restarts in a row; zero means 5.
	MaxRestarts int `json:"maxRestarts,omitempty" yaml:"maxRestarts,omitempty"`
	// Roots are directories (absolute, or relative to the working directory) or file://
	// URIs declared to the server as roots, in addition to the working directory and
	// --root flags.
	Roots []string `json:"roots,omitempty" yaml:"roots,omitempty"`
	// NoRoots declares no roots capability at all to this server (--no-roots).
	NoRoots bool `json:"noRoots,omitempty" yaml:"noRoots,omitempty"`
	// LogLevel, when set, is sent with logging/setLevel once connected (one of
	// LogLevels), to a server that declares logging.
	LogLevel string `json:"logLevel,omitempty" yaml:"logLevel,omitempty"`
	// Experimental names draft protocol features turned on for this server (one of
	// Experiments); --experimental adds to them.
	Experimental []string `json:"experimental,omitempty" yaml:"experimental,omitempty"`
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
	// Grant is how tokens are obtained; empty means GrantAuthorizationCode (a browser
	// sign-in). The other grants need no browser.
	Grant Grant `json:"grant,omitempty" yaml:"grant,omitempty"`
	// PrivateKeyFile is a PEM private key (PKCS#8, EC or RSA) that signs an RFC 7523
	// client assertion (private_key_jwt) instead of sending ClientSecret.
	PrivateKeyFile string `json:"privateKeyFile,omitempty" yaml:"privateKeyFile,omitempty"`
	// IdentityTokenFile and IdentityTokenEnv name where the identity token presented by
	// GrantJWTBearer (the workload's token) or GrantTokenExchange (the ID token from
	// the identity provider) is read, each time a token is needed.
	IdentityTokenFile string `json:"identityTokenFile,omitempty" yaml:"identityTokenFile,omitempty"`
	IdentityTokenEnv  string `json:"identityTokenEnv,omitempty" yaml:"identityTokenEnv,omitempty"`
	// IdP is the identity provider of GrantTokenExchange.
	IdP *IdP `json:"idp,omitempty" yaml:"idp,omitempty"`
	// DPoP binds tokens to a key of this client (RFC 9449): a proof goes with every
	// token request and every request that presents a DPoP-bound token.
	DPoP bool `json:"dpop,omitempty" yaml:"dpop,omitempty"`
}

// IdP is the identity provider of an enterprise sign-in (GrantTokenExchange): the ID
// token is exchanged there (RFC 8693) for an authorization grant for the server.
type IdP struct {
	// Issuer is the provider's issuer URL (its metadata names the token endpoint).
	Issuer string `json:"issuer,omitempty" yaml:"issuer,omitempty"`
	// TokenEndpoint skips the metadata lookup when set.
	TokenEndpoint string `json:"tokenEndpoint,omitempty" yaml:"tokenEndpoint,omitempty"`
	// ClientID and ClientSecret are this client's registration at the provider;
	// ClientSecret is a secret and may be empty.
	ClientID     string `json:"clientId,omitempty" yaml:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty" yaml:"clientSecret,omitempty"`
}

// Grant is an OAuth grant type of OAuth.Grant.
type Grant string

// The grants elicitty can use.
const (
	// GrantAuthorizationCode signs in through the browser (with PKCE).
	GrantAuthorizationCode Grant = "authorization_code"
	// GrantClientCredentials uses the client's own credentials (no user).
	GrantClientCredentials Grant = "client_credentials"
	// GrantJWTBearer presents an identity token (workload identity federation,
	// RFC 7523).
	GrantJWTBearer Grant = "jwt_bearer"
	// GrantTokenExchange exchanges the identity provider's ID token for an
	// authorization grant (RFC 8693) and that for the server's token (enterprise
	// sign-in).
	GrantTokenExchange Grant = "token_exchange"
)

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
		if s.OAuth.IdP != nil {
			idp := *s.OAuth.IdP
			if idp.ClientSecret != "" {
				idp.ClientSecret = redactedValue
			}
			o.IdP = &idp
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

// LogLevels returns the levels of MCP's logging/setLevel, least severe first (the
// syslog names of RFC 5424).
func LogLevels() []string {
	return []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
}

// ValidLogLevel reports whether level is one of LogLevels.
func ValidLogLevel(level string) bool { return slices.Contains(LogLevels(), level) }

// ExperimentFileInputs is the draft file inputs feature (SEP-2356): file fields in forms
// and the fileInputs capability.
const ExperimentFileInputs = "file-inputs"

// Experiments returns the names experimental: and --experimental accept.
func Experiments() []string { return []string{ExperimentFileInputs} }

// Experiment reports whether the experimental feature name is on for the server.
func (s Server) Experiment(name string) bool {
	for _, e := range s.Experimental {
		if e == name {
			return true
		}
	}
	return false
}
