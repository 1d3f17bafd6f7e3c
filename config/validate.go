package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/idna"
)

// fieldErr is a validation problem on a field path relative to the server ("" for the
// server itself). Messages never include env or header values.
type fieldErr struct{ field, msg string }

// maxRoundsLimit bounds MaxRounds: a server that needs more rounds is misbehaving.
const maxRoundsLimit = 1000

// maxRestartsLimit bounds MaxRestarts: a server that crashes more often is broken.
const maxRestartsLimit = 100

var quoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` ?"[^"]*"`) })

var protocolRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// validateServer checks one server entry and reports every problem; it changes nothing.
func validateServer(s Server) []fieldErr {
	var errs []fieldErr
	add := func(field, format string, a ...any) { errs = append(errs, fieldErr{field, fmt.Sprintf(format, a...)}) }
	if msg := checkName(s.Name); msg != "" {
		add("", "%s", msg)
	}
	switch s.Kind {
	case "", KindStdio, KindHTTP, KindSSE:
	default:
		add("type", "unknown type %q (want stdio, http or sse)", s.Kind)
	}
	switch {
	case s.Command != "" && s.URL != "":
		add("url", "set either command (stdio) or url (http), not both")
	case s.Command == "" && s.URL == "":
		add("", "needs a command (stdio server) or a url (http server)")
	case s.EffectiveKind() == KindStdio && s.Command == "":
		add("type", "a stdio server needs a command")
	case s.EffectiveKind() != KindStdio && s.URL == "":
		add("type", "a %s server needs a url", s.EffectiveKind())
	}
	if s.URL != "" {
		if msg := checkURL(s.URL); msg != "" {
			add("url", "%s", msg)
		}
	}
	for i, a := range s.Args {
		if strings.ContainsRune(a, 0) {
			add(fmt.Sprintf("args[%d]", i), "contains a NUL byte")
		}
	}
	for _, k := range sortedKeys(s.Env) {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			add("env."+k, "invalid variable name")
		case strings.ContainsRune(s.Env[k], 0):
			add("env."+k, "value contains a NUL byte")
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		switch {
		case !httpguts.ValidHeaderFieldName(k):
			add("headers."+k, "invalid header name")
		case !httpguts.ValidHeaderFieldValue(s.Headers[k]):
			add("headers."+k, "value contains characters not allowed in a header (line breaks or control characters)")
		}
	}
	if s.Protocol != "" && !protocolRe().MatchString(s.Protocol) {
		add("protocol", "invalid protocol version %q (want a date such as 2025-11-25)", s.Protocol)
	}
	if s.Timeout < 0 {
		add("timeout", "must not be negative")
	}
	if s.HandshakeTimeout < 0 {
		add("handshakeTimeout", "must not be negative")
	}
	if s.URLWait < 0 {
		add("urlWait", "must not be negative")
	}
	if s.MaxRounds < 0 || s.MaxRounds > maxRoundsLimit {
		add("maxRounds", "must be between 0 and %d", maxRoundsLimit)
	}
	switch s.Restart {
	case "", RestartNever, RestartOnFailure:
	default:
		add("restart", "unknown policy %q (want on-failure or never)", s.Restart)
	}
	if s.Restart == RestartOnFailure && s.EffectiveKind() != KindStdio {
		add("restart", "applies to stdio servers only")
	}
	if s.MaxRestarts < 0 || s.MaxRestarts > maxRestartsLimit {
		add("maxRestarts", "must be between 0 and %d", maxRestartsLimit)
	}
	if o := s.OAuth; o != nil {
		if s.EffectiveKind() == KindStdio {
			add("oauth", "applies to http servers only")
		}
		if o.ClientSecret != "" && o.ClientID == "" {
			add("oauth.clientSecret", "needs oauth.clientId")
		}
		if o.RedirectPort < 0 || o.RedirectPort > 65535 {
			add("oauth.redirectPort", "must be between 0 and 65535")
		}
		if o.ClientMetadataURL != "" {
			if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
				add("oauth.clientMetadataUrl", "must be an https URL with a path")
			}
		}
		errs = append(errs, o.checkGrant()...)
	}
	if s.LogLevel != "" && !ValidLogLevel(s.LogLevel) {
		add("logLevel", "unknown level %q (want %s)", s.LogLevel, strings.Join(LogLevels(), ", "))
	}
	for i, r := range s.Roots {
		if msg := checkRoot(r); msg != "" {
			add(fmt.Sprintf("roots[%d]", i), "%s", msg)
		}
	}
	for i, e := range s.Experimental {
		if !slices.Contains(Experiments(), e) {
			add(fmt.Sprintf("experimental[%d]", i), "unknown feature %q (want %s)", e, strings.Join(Experiments(), ", "))
		}
	}
	if s.NoRoots && len(s.Roots) > 0 {
		add("noRoots", "declares no roots, but roots are listed")
	}
	for _, fe := range s.URLPolicy.check() {
		errs = append(errs, fieldErr{"urlPolicy." + fe.field, fe.msg})
	}
	return errs
}

func checkName(name string) string {
	switch {
	case name == "":
		return "server name is empty"
	case strings.HasPrefix(name, "-"):
		return fmt.Sprintf("server name %q must not start with -", name)
	case strings.Contains(name, "://"):
		return fmt.Sprintf("server name %q must not look like a URL", name)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Sprintf("server name %q must not contain spaces or control characters", name)
	}
	return ""
}

// checkURL validates a server URL without echoing it (it may carry credentials).
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		// Drop quoted fragments ("invalid port \":x\" after host"): a URL may carry secrets.
		return "invalid url: " + quoted().ReplaceAllString(err.Error(), "")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return "invalid url: missing http:// or https://"
	default:
		// The scheme is not quoted: it may come from a variable holding a secret.
		return "invalid url: the scheme is not http or https"
	}
	if u.Hostname() == "" {
		return "invalid url: missing host"
	}
	return ""
}

// check reports invalid policy fields, relative to the policy.
func (p URLPolicy) check() []fieldErr {
	var errs []fieldErr
	switch p.Open {
	case "", URLOpenBrowser, URLCopyOnly:
	default:
		errs = append(errs, fieldErr{"open", fmt.Sprintf("invalid value %q (want open or copy-only)", p.Open)})
	}
	for i, h := range p.AllowedHosts {
		if _, msg := normalizePattern(h); msg != "" {
			errs = append(errs, fieldErr{"allowedHosts[" + strconv.Itoa(i) + "]", fmt.Sprintf("invalid host pattern %q: %s", h, msg)})
		}
	}
	return errs
}

// Validate reports whether the policy is well formed: Open is empty, open or copy-only, and
// every AllowedHosts entry is a host name, an IP address or "*." followed by a host name.
func (p URLPolicy) Validate() error {
	var errs []error
	for _, fe := range p.check() {
		errs = append(errs, fmt.Errorf("%s: %s", fe.field, fe.msg))
	}
	return errors.Join(errs...)
}

// normalizePattern returns the ASCII lower-case form of an allowed-host pattern, or a reason
// it is not one.
func normalizePattern(p string) (string, string) {
	rest, wild := strings.CutPrefix(p, "*.")
	switch {
	case p == "":
		return "", "empty"
	case p == "*":
		return "", "a bare * is not allowed; leave allowedHosts empty to allow every host"
	case strings.Contains(p, "://"):
		return "", "give a host, not a URL"
	case strings.ContainsAny(p, "/?#@"):
		return "", "give a host only, without path or user"
	case strings.Contains(rest, "*"):
		return "", "* is only allowed as the first label (*.example.com)"
	}
	h, msg := normalizeHost(strings.TrimSuffix(rest, "."))
	if msg != "" {
		return "", msg
	}
	if wild {
		if net.ParseIP(h) != nil {
			return "", "*. cannot precede an IP address"
		}
		return "*." + h, ""
	}
	return h, ""
}

func normalizeHost(h string) (string, string) {
	if h == "" {
		return "", "empty host"
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), ""
	}
	if strings.Contains(h, ":") {
		return "", "give a host without a port"
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", "not a valid host name"
	}
	return strings.ToLower(a), ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkRoot says what is wrong with a root (a directory or a file:// URI), or "".
func checkRoot(r string) string {
	switch {
	case strings.TrimSpace(r) == "":
		return "is empty"
	case strings.ContainsRune(r, 0):
		return "contains a NUL byte"
	case strings.HasPrefix(r, "file://"):
		u, err := url.Parse(r)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return "want a directory or file:///ABSOLUTE/PATH"
		}
	case strings.Contains(r, "://"):
		return "only directories and file:// URIs can be roots"
	}
	return ""
}
