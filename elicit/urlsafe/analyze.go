package urlsafe

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Policy is the per-server URL policy. The zero value allows https to any host and plain
// http to loopback hosts only.
type Policy struct {
	// AllowedHosts lists host patterns: "example.com" matches that host only,
	// "*.example.com" matches its subdomains (not example.com itself). Empty allows all.
	AllowedHosts []string
	// HTTPSOnly refuses plain http, even to loopback hosts.
	HTTPSOnly bool
	// AllowHTTPRemote lets plain http reach non-loopback hosts (with a warning); when
	// false such URLs are refused.
	AllowHTTPRemote bool
}

// RefusalCode says why a URL was refused.
type RefusalCode int

// The reasons a URL is refused. RefuseNone means it was not refused.
const (
	RefuseNone RefusalCode = iota
	// RefuseMalformed: empty, relative, unparsable, or no host.
	RefuseMalformed
	// RefuseCharacters: whitespace, control, invisible characters or backslashes.
	RefuseCharacters
	// RefuseScheme: any scheme but https and http.
	RefuseScheme
	// RefuseHTTP: plain http where the policy does not allow it.
	RefuseHTTP
	// RefuseHost: an invalid host name or IP address.
	RefuseHost
	// RefuseNotAllowed: the host is not in the policy's AllowedHosts.
	RefuseNotAllowed
)

// WarnCode identifies one kind of warning about a URL that is not refused.
type WarnCode int

// The warnings Analyze reports.
const (
	// WarnUserinfo: text before "@" in the authority that looks like, but is not, the host.
	WarnUserinfo WarnCode = iota + 1
	// WarnPunycode: the host has xn-- labels; the message shows both forms.
	WarnPunycode
	// WarnNonASCII: the host contains non-ASCII characters.
	WarnNonASCII
	// WarnMixedScript: a host label mixes letters of different scripts (Latin + Cyrillic, ...).
	WarnMixedScript
	// WarnConfusable: a host label in another script reads like a Latin word.
	WarnConfusable
	// WarnHostRewritten: the host as written differs from where a browser goes
	// (percent-encoding, full-width letters, ignored characters).
	WarnHostRewritten
	// WarnIPLiteral: the host is an IP address, not a name.
	WarnIPLiteral
	// WarnIPObfuscated: an IPv4 address written in decimal, octal or hex form.
	WarnIPObfuscated
	// WarnPort: a non-default port.
	WarnPort
	// WarnHTTP: plain http to a remote host (allowed by policy).
	WarnHTTP
	// WarnHTTPLoopback: plain http to a loopback host; informational.
	WarnHTTPLoopback
	// WarnLong: a very long URL; it is still shown in full.
	WarnLong
)

// Info reports whether the warning is informational only (does not call for caution).
func (c WarnCode) Info() bool { return c == WarnHTTPLoopback }

// Warning is one finding about a URL.
type Warning struct {
	Code    WarnCode
	Message string
}

// LongURL is the length in bytes above which a URL gets WarnLong.
const LongURL = 512

// Analysis is the result of Analyze. The zero value is not meaningful.
type Analysis struct {
	// URL is the URL exactly as given.
	URL string
	// Display is URL with control, whitespace-like and invisible characters escaped
	// (\t, \x00, \u202E); it is what a screen may print. Every other character is kept.
	Display string
	// Scheme is the lower-cased scheme ("https").
	Scheme string
	// Host is the real host as displayed: lower case, punycode decoded, IPv6 without
	// brackets. Empty when no host could be found.
	Host string
	// ASCIIHost is the host a browser connects to (punycode, canonical IP).
	ASCIIHost string
	// Registrable is the registrable domain (eTLD+1) of Host in display form; empty
	// for IP literals, localhost and public suffixes.
	Registrable string
	// RegistrableASCII is Registrable in ASCII (punycode) form.
	RegistrableASCII string
	// Port is the explicit port, empty when absent.
	Port string
	// Userinfo is the text before "@" in the authority, as written.
	Userinfo string
	// IP reports that the host is an IP address.
	IP bool
	// Loopback reports that the host is localhost, 127.0.0.0/8 or ::1.
	Loopback bool
	// Refused reports that the URL must not be opened; Code and Reason say why.
	Refused bool
	Code    RefusalCode
	Reason  string
	// Warnings lists findings, in a stable order.
	Warnings []Warning
	// Parts splits Display into plain, userinfo, host and registrable pieces so a
	// screen can highlight the host; their texts concatenate to Display. A URL whose
	// host could not be found is one plain part.
	Parts []Part
}

// Caution reports whether the analysis has a warning that is not informational.
func (a Analysis) Caution() bool {
	for _, w := range a.Warnings {
		if !w.Code.Info() {
			return true
		}
	}
	return false
}

// Has reports whether the analysis has a warning with the code.
func (a Analysis) Has(c WarnCode) bool {
	for _, w := range a.Warnings {
		if w.Code == c {
			return true
		}
	}
	return false
}

func (a *Analysis) refuse(c RefusalCode, format string, args ...any) {
	if a.Refused {
		return
	}
	a.Refused, a.Code, a.Reason = true, c, fmt.Sprintf(format, args...)
}

func (a *Analysis) warn(c WarnCode, format string, args ...any) {
	a.Warnings = append(a.Warnings, Warning{Code: c, Message: fmt.Sprintf(format, args...)})
}

// lookup maps and validates host names as a browser does (UTS #46, non-transitional),
// but lets '_' through; the allowed ASCII characters are checked afterwards.
var lookup = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false),
	idna.StrictDomainName(false))

// Analyze checks raw, the url of a URL-mode elicitation, against p. It never touches the
// network. A URL that is not refused parses with net/url, has scheme https or http and a
// non-empty host.
func Analyze(raw string, p Policy) Analysis {
	a := Analysis{URL: raw, Display: Escape(raw)}
	a.Parts = []Part{{Text: a.Display, Kind: PartPlain}}
	u, scheme, ok := a.parse(raw)
	if !ok {
		return a
	}
	auth := authorityOf(raw, scheme)
	a.Userinfo = auth.userinfo
	a.analyzeHost(u.Hostname(), raw[auth.hostStart:auth.hostEnd])
	a.Parts = splitParts(raw, auth.hostStart, auth.hostEnd, auth.start, &a)

	a.Loopback = isLoopback(a.ASCIIHost, a.IP)
	if a.Userinfo != "" && a.Host != "" {
		a.warn(WarnUserinfo, "the text before \"@\" (%s) is not where this link goes: the real host is %s",
			Escape(a.Userinfo), a.Host)
	}
	a.checkHTTP(p)
	a.checkPort(u.Port())
	if len(raw) > LongURL {
		a.warn(WarnLong, "the URL is %d characters long; it is shown in full, read all of it", utf8.RuneCountInString(raw))
	}
	if !a.Refused && len(p.AllowedHosts) > 0 && !allowed(p.AllowedHosts, a.ASCIIHost) {
		a.refuse(RefuseNotAllowed, "%s is not among the hosts allowed for this server (%s)",
			a.Host, strings.Join(p.AllowedHosts, ", "))
	}
	return a
}

// parse refuses what is not an absolute http(s) URL with a host, of characters a
// browser shows as written, and returns it parsed with its scheme as written. It sets
// a.Scheme; ok is false once a is refused.
func (a *Analysis) parse(raw string) (u *url.URL, scheme string, ok bool) {
	if strings.TrimSpace(raw) == "" {
		a.refuse(RefuseMalformed, "the URL is empty")
		return nil, "", false
	}
	scheme, ok = schemeOf(raw)
	if !ok {
		a.refuse(RefuseMalformed, "not an absolute URL (no scheme)")
		return nil, "", false
	}
	a.Scheme = strings.ToLower(scheme)
	if a.Scheme != "https" && a.Scheme != "http" {
		a.refuse(RefuseScheme, "the %q scheme is not allowed; only https (and http to this machine) can be opened", a.Scheme)
		return nil, "", false
	}
	if bad, what := badChars(raw); bad {
		a.refuse(RefuseCharacters, "the URL contains %s, which browsers rewrite or hide", what)
		return nil, "", false
	}
	if !strings.HasPrefix(raw[len(scheme)+1:], "//") {
		a.refuse(RefuseMalformed, "malformed URL: no \"//\" after %q", scheme+":")
		return nil, "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		msg := err.Error()
		if errors.As(err, &ue) {
			msg = ue.Err.Error()
		}
		if h := hostAsWritten(raw[len(scheme)+3:]); strings.Contains(h, "%") {
			if dec, err := url.PathUnescape(h); err == nil {
				a.refuse(RefuseHost, "the host is percent-encoded (%s reads as %s), which disguises where the link goes", Escape(h), Escape(dec))
				return nil, "", false
			}
		}
		a.refuse(RefuseMalformed, "malformed URL: %s", msg)
		return nil, "", false
	}
	if u.Host == "" || u.Hostname() == "" {
		a.refuse(RefuseMalformed, "the URL has no host")
		return nil, "", false
	}
	return u, scheme, true
}

// authority locates the parts of a URL's authority as written, as byte offsets into
// the URL: where the authority starts, where its host starts and ends, and the
// userinfo before "@".
type authority struct {
	start, hostStart, hostEnd int
	userinfo                  string
}

// authorityOf locates the authority of raw, whose scheme as written is scheme and is
// followed by "//".
func authorityOf(raw, scheme string) authority {
	auth := authority{start: len(scheme) + 3}
	end := len(raw)
	if i := strings.IndexAny(raw[auth.start:], "/?#"); i >= 0 {
		end = auth.start + i
	}
	text := raw[auth.start:end]
	auth.hostStart = auth.start
	if at := strings.LastIndex(text, "@"); at >= 0 {
		auth.userinfo = text[:at]
		auth.hostStart = auth.start + at + 1
	}
	auth.hostEnd = end
	hp := raw[auth.hostStart:end]
	if strings.HasPrefix(hp, "[") {
		if i := strings.Index(hp, "]"); i >= 0 {
			auth.hostEnd = auth.hostStart + i + 1
		}
	} else if i := strings.LastIndex(hp, ":"); i >= 0 {
		auth.hostEnd = auth.hostStart + i
	}
	return auth
}

// checkHTTP refuses or warns about plain http under p: allowed with a warning to this
// machine, elsewhere only when p allows it.
func (a *Analysis) checkHTTP(p Policy) {
	switch {
	case a.Scheme == "https":
	case p.HTTPSOnly:
		a.refuse(RefuseHTTP, "plain http is not allowed by this server's policy (https only)")
	case a.Loopback:
		a.warn(WarnHTTPLoopback, "plain http to this machine (%s)", a.Host)
	case p.AllowHTTPRemote:
		a.warn(WarnHTTP, "plain http: the page and anything you type on it travel unencrypted")
	default:
		a.refuse(RefuseHTTP, "plain http is only allowed to this machine (localhost), not to %s", a.Host)
	}
}

// checkPort records an explicit port, refuses an invalid one and warns about one that
// is not the scheme's default.
func (a *Analysis) checkPort(port string) {
	if port == "" {
		return
	}
	a.Port = port
	n, err := strconv.Atoi(port)
	switch {
	case err != nil || n < 1 || n > 65535:
		a.refuse(RefuseMalformed, "invalid port %q", port)
	case (a.Scheme == "https" && n != 443) || (a.Scheme == "http" && n != 80):
		a.warn(WarnPort, "non-default port %d", n)
	}
}

// hostAsWritten returns the host:port of an authority-led string ("user@host:port/path").
func hostAsWritten(rest string) string {
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}

// schemeOf returns the scheme of an absolute URL as written (RFC 3986: ALPHA *( ALPHA /
// DIGIT / "+" / "-" / "." ) ":").
func schemeOf(raw string) (string, bool) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return raw[:i], true
		default:
			return "", false
		}
	}
	return "", false
}

// badChars reports characters a browser strips, rewrites or hides: whitespace, controls,
// invisible format characters, backslashes and invalid UTF-8.
func badChars(raw string) (bool, string) {
	if strings.Contains(raw, `\`) {
		return true, "a backslash"
	}
	for i, r := range raw {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(raw[i:]); n == 1 {
				return true, "invalid UTF-8"
			}
		}
		if r == ' ' || needsEscape(r) {
			return true, fmt.Sprintf("whitespace, control or invisible characters (%s)", Escape(string(r)))
		}
	}
	return false, ""
}

// analyzeHost fills the host fields from the host net/url decoded (h) and the host as
// written in the URL (rawHost).
func (a *Analysis) analyzeHost(h, rawHost string) {
	if strings.Contains(rawHost, "%") && !strings.HasPrefix(rawHost, "[") {
		defer func() {
			if a.Host != "" {
				a.warn(WarnHostRewritten, "the host is percent-encoded (%s); it is really %s", Escape(rawHost), a.Host)
			}
		}()
	}
	if strings.HasPrefix(rawHost, "[") {
		if strings.Contains(h, "%") {
			a.refuse(RefuseHost, "IPv6 zone identifiers are not allowed")
			return
		}
		addr, err := netip.ParseAddr(h)
		if err != nil || !addr.Is6() {
			a.refuse(RefuseHost, "invalid IPv6 address %q", Escape(h))
			return
		}
		a.IP, a.Host, a.ASCIIHost = true, addr.String(), addr.String()
		a.warn(WarnIPLiteral, "the host is an IP address (%s), not a name", a.Host)
		return
	}
	name := strings.TrimSuffix(strings.ToLower(h), ".")
	ascii, err := lookup.ToASCII(name)
	if err != nil {
		a.refuse(RefuseHost, "invalid host name %q: %v", Escape(h), err)
		return
	}
	if endsInNumber(ascii) {
		addr, ok := parseIPv4(ascii)
		if !ok {
			a.refuse(RefuseHost, "invalid IPv4 address %q", Escape(h))
			return
		}
		a.IP, a.Host, a.ASCIIHost = true, addr.String(), addr.String()
		a.warn(WarnIPLiteral, "the host is an IP address (%s), not a name", a.Host)
		if name != a.Host {
			a.warn(WarnIPObfuscated, "the address is written as %q; browsers read it as %s", Escape(h), a.Host)
		}
		return
	}
	for _, c := range []byte(ascii) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			a.refuse(RefuseHost, "invalid character %q in host name", rune(c))
			return
		}
	}
	if ascii == "" || strings.HasPrefix(ascii, ".") || strings.Contains(ascii, "..") {
		a.refuse(RefuseHost, "invalid host name %q", Escape(h))
		return
	}
	uni, err := idna.Display.ToUnicode(ascii)
	if err != nil {
		uni = ascii
	}
	a.Host, a.ASCIIHost = uni, ascii
	if r, err := publicsuffix.EffectiveTLDPlusOne(ascii); err == nil {
		a.RegistrableASCII = r
		a.Registrable = r
		if u, err := idna.Display.ToUnicode(r); err == nil {
			a.Registrable = u
		}
	}
	hasPuny := false
	for _, l := range strings.Split(name, ".") {
		if strings.HasPrefix(l, "xn--") {
			hasPuny = true
		}
	}
	if hasPuny {
		a.warn(WarnPunycode, "the host is written in punycode (%s); it reads as %s", ascii, uni)
	}
	if !isASCII(uni) {
		a.warn(WarnNonASCII, "the host has non-ASCII characters: %s (ASCII form %s)", uni, ascii)
	}
	if !strings.Contains(rawHost, "%") && name != uni && name != ascii {
		a.warn(WarnHostRewritten, "the host is written as %s; a browser goes to %s", Escape(h), uni)
	}
	for _, l := range strings.Split(uni, ".") {
		scripts := labelScripts(l)
		if mixedScripts(scripts) {
			msg := fmt.Sprintf("the label %q mixes %s letters", l, strings.Join(scripts, " and "))
			if sk, ok := skeleton(l); ok && sk != l {
				msg += fmt.Sprintf("; it looks like %q", sk)
			}
			a.warn(WarnMixedScript, "%s", msg)
			continue
		}
		if len(scripts) == 1 && scripts[0] != "Latin" {
			if sk, ok := skeleton(l); ok && isASCII(sk) {
				a.warn(WarnConfusable, "the label %q is written in %s letters that look like Latin %q", l, scripts[0], sk)
			}
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLoopback(asciiHost string, ip bool) bool {
	if ip {
		addr, err := netip.ParseAddr(asciiHost)
		return err == nil && addr.Unmap().IsLoopback()
	}
	h := strings.TrimSuffix(asciiHost, ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// allowed reports whether host matches one of the patterns.
func allowed(patterns []string, host string) bool {
	host = strings.TrimSuffix(host, ".")
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.TrimSpace(strings.ToLower(p)), ".")
		wild := strings.HasPrefix(p, "*.")
		p = strings.TrimPrefix(p, "*.")
		if ap, err := lookup.ToASCII(p); err == nil {
			p = ap
		}
		if p == "" {
			continue
		}
		if !wild && host == p || wild && strings.HasSuffix(host, "."+p) {
			return true
		}
	}
	return false
}

// endsInNumber implements the WHATWG URL "ends in a number" checker.
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// ipv4Number parses one part of a WHATWG IPv4 address: decimal, 0x hex or 0-led octal.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// parseIPv4 implements the WHATWG IPv4 parser, which browsers apply to any host that
// ends in a number (so http://2130706433/ and http://0x7f.1/ are 127.0.0.1).
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
