package urlsafe

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summary is what a user would check about an analysis.
type summary struct {
	Refused  RefusalCode
	Host     string
	ASCII    string
	Reg      string
	Warnings []WarnCode
}

func summarize(a Analysis) summary {
	s := summary{Refused: a.Code, Host: a.Host, ASCII: a.ASCIIHost, Reg: a.Registrable}
	for _, w := range a.Warnings {
		s.Warnings = append(s.Warnings, w.Code)
	}
	return s
}

func TestAnalyzeHostile(t *testing.T) {
	none := Policy{}
	tests := []struct {
		name   string
		url    string
		policy Policy
		want   summary
	}{
		{"plain https", "https://auth.example.com/link?s=abc", none,
			summary{Host: "auth.example.com", ASCII: "auth.example.com", Reg: "example.com"}},
		{"uppercase host", "HTTPS://WWW.EXAMPLE.COM/Path", none,
			summary{Host: "www.example.com", ASCII: "www.example.com", Reg: "example.com"}},
		{"trailing dot host", "https://example.com./", none,
			summary{Host: "example.com", ASCII: "example.com", Reg: "example.com"}},
		{"multi-label public suffix", "https://paypal.com.evil.co.uk/login", none,
			summary{Host: "paypal.com.evil.co.uk", ASCII: "paypal.com.evil.co.uk", Reg: "evil.co.uk"}},

		// IDN homographs.
		{"punycode mixed cyrillic a", "https://xn--pple-43d.com/", none,
			summary{Host: "аpple.com", ASCII: "xn--pple-43d.com", Reg: "аpple.com",
				Warnings: []WarnCode{WarnPunycode, WarnNonASCII, WarnMixedScript}}},
		{"whole-script cyrillic apple", "https://аррӏе.com/", none,
			summary{Host: "аррӏе.com", ASCII: "xn--80ak6aa92e.com", Reg: "аррӏе.com",
				Warnings: []WarnCode{WarnNonASCII, WarnConfusable}}},
		{"greek omicron in google", "https://gοοgle.com/", none,
			summary{Host: "gοοgle.com", ASCII: "xn--ggle-0nda.com", Reg: "gοοgle.com",
				Warnings: []WarnCode{WarnNonASCII, WarnMixedScript}}},
		{"legit IDN", "https://münchen.de/", none,
			summary{Host: "münchen.de", ASCII: "xn--mnchen-3ya.de", Reg: "münchen.de",
				Warnings: []WarnCode{WarnNonASCII}}},
		{"legit japanese", "https://例え.テスト.jp/", none,
			summary{Host: "例え.テスト.jp", ASCII: "xn--r8jz45g.xn--zckzah.jp", Reg: "テスト.jp",
				Warnings: []WarnCode{WarnNonASCII}}},
		{"fullwidth letters", "https://ｇｏｏｇｌｅ.com/", none,
			summary{Host: "google.com", ASCII: "google.com", Reg: "google.com",
				Warnings: []WarnCode{WarnHostRewritten}}},
		{"invalid punycode", "https://xn--a.com/", none, summary{Refused: RefuseHost}},

		// Userinfo tricks.
		{"userinfo host lookalike", "https://good.example@evil.example/", none,
			summary{Host: "evil.example", ASCII: "evil.example", Reg: "evil.example",
				Warnings: []WarnCode{WarnUserinfo}}},
		{"userinfo with password", "https://accounts.google.com:login@evil.example/", none,
			summary{Host: "evil.example", ASCII: "evil.example", Reg: "evil.example",
				Warnings: []WarnCode{WarnUserinfo}}},
		{"double at uses the last", "https://a@good.example@evil.example/", none,
			summary{Host: "evil.example", ASCII: "evil.example", Reg: "evil.example",
				Warnings: []WarnCode{WarnUserinfo}}},
		{"encoded at is userinfo", "https://good.example%40x@evil.example/", none,
			summary{Host: "evil.example", ASCII: "evil.example", Reg: "evil.example",
				Warnings: []WarnCode{WarnUserinfo}}},

		// Refused schemes.
		{"javascript", "javascript:alert(document.cookie)", none, summary{Refused: RefuseScheme}},
		{"javascript uppercase", "JaVaScRiPt:alert(1)", none, summary{Refused: RefuseScheme}},
		{"javascript slashes", "javascript://example.com/%0aalert(1)", none, summary{Refused: RefuseScheme}},
		{"data", "data:text/html,<script>alert(1)</script>", none, summary{Refused: RefuseScheme}},
		{"file", "file:///etc/passwd", none, summary{Refused: RefuseScheme}},
		{"ftp", "ftp://example.com/", none, summary{Refused: RefuseScheme}},
		{"vbscript", "vbscript:msgbox", none, summary{Refused: RefuseScheme}},
		{"mailto", "mailto:a@example.com", none, summary{Refused: RefuseScheme}},
		{"ssh", "ssh://example.com", none, summary{Refused: RefuseScheme}},
		{"custom app scheme", "vscode://file/x", none, summary{Refused: RefuseScheme}},
		{"blob", "blob:https://example.com/uuid", none, summary{Refused: RefuseScheme}},
		{"ws", "wss://example.com/", none, summary{Refused: RefuseScheme}},

		// Malformed.
		{"empty", "", none, summary{Refused: RefuseMalformed}},
		{"spaces only", "   ", none, summary{Refused: RefuseMalformed}},
		{"relative path", "/login", none, summary{Refused: RefuseMalformed}},
		{"protocol relative", "//evil.com/", none, summary{Refused: RefuseMalformed}},
		{"no slashes", "https:evil.com", none, summary{Refused: RefuseMalformed}},
		{"one slash", "https:/evil.com", none, summary{Refused: RefuseMalformed}},
		{"no host", "https:///path", none, summary{Refused: RefuseMalformed}},
		{"bad port", "https://example.com:99999/", none, summary{Refused: RefuseMalformed,
			Host: "example.com", ASCII: "example.com", Reg: "example.com"}},

		// Characters browsers rewrite.
		{"backslash authority", `https://evil.com\@good.com/`, none, summary{Refused: RefuseCharacters}},
		{"backslash path", `https://good.com\\evil.com`, none, summary{Refused: RefuseCharacters}},
		{"tab in host", "https://goo\tgle.com/", none, summary{Refused: RefuseCharacters}},
		{"newline in scheme", "java\nscript:alert(1)", none, summary{Refused: RefuseMalformed}},
		{"newline in path", "https://example.com/a\nb", none, summary{Refused: RefuseCharacters}},
		{"leading space", " https://example.com/", none, summary{Refused: RefuseMalformed}},
		{"trailing newline", "https://example.com/\n", none, summary{Refused: RefuseCharacters}},
		{"space in path", "https://example.com/a b", none, summary{Refused: RefuseCharacters}},
		{"bidi override in path", "https://example.com/\u202Egnp.exe", none, summary{Refused: RefuseCharacters}},
		{"zero width in host", "https://goo\u200Bgle.com/", none, summary{Refused: RefuseCharacters}},
		{"soft hyphen in host", "https://goo\u00ADgle.com/", none, summary{Refused: RefuseCharacters}},
		{"NUL", "https://example.com/\x00", none, summary{Refused: RefuseCharacters}},
		{"invalid utf8", "https://example.com/\xff", none, summary{Refused: RefuseCharacters}},

		// Percent-encoded hosts.
		{"percent-encoded ascii host", "https://%65vil.com/", none, summary{Refused: RefuseHost}},
		{"percent-encoded cyrillic host", "https://%D0%B0pple.com/", none,
			summary{Host: "аpple.com", ASCII: "xn--pple-43d.com", Reg: "аpple.com",
				Warnings: []WarnCode{WarnNonASCII, WarnMixedScript, WarnHostRewritten}}},

		// IP literals.
		{"ipv4", "https://93.184.216.34/", none,
			summary{Host: "93.184.216.34", ASCII: "93.184.216.34", Warnings: []WarnCode{WarnIPLiteral}}},
		{"ipv4 http remote refused", "http://93.184.216.34/", none,
			summary{Refused: RefuseHTTP, Host: "93.184.216.34", ASCII: "93.184.216.34", Warnings: []WarnCode{WarnIPLiteral}}},
		{"decimal loopback", "http://2130706433/", none,
			summary{Host: "127.0.0.1", ASCII: "127.0.0.1",
				Warnings: []WarnCode{WarnIPLiteral, WarnIPObfuscated, WarnHTTPLoopback}}},
		{"octal", "https://0177.0.0.1/", none,
			summary{Host: "127.0.0.1", ASCII: "127.0.0.1", Warnings: []WarnCode{WarnIPLiteral, WarnIPObfuscated}}},
		{"hex dotted", "https://0x5d.0xb8.0xd8.0x22/", none,
			summary{Host: "93.184.216.34", ASCII: "93.184.216.34", Warnings: []WarnCode{WarnIPLiteral, WarnIPObfuscated}}},
		{"short form", "https://127.1/", none,
			summary{Host: "127.0.0.1", ASCII: "127.0.0.1", Warnings: []WarnCode{WarnIPLiteral, WarnIPObfuscated}}},
		{"too many parts", "https://1.2.3.4.5/", none, summary{Refused: RefuseHost}},
		{"ipv4 out of range", "https://256.1.1.1/", none, summary{Refused: RefuseHost}},
		{"name ending in number", "https://example.123/", none, summary{Refused: RefuseHost}},
		{"ipv6 loopback", "http://[::1]:8080/cb", none,
			summary{Host: "::1", ASCII: "::1", Warnings: []WarnCode{WarnIPLiteral, WarnHTTPLoopback, WarnPort}}},
		{"ipv6 remote", "https://[2001:DB8::1]/", none,
			summary{Host: "2001:db8::1", ASCII: "2001:db8::1", Warnings: []WarnCode{WarnIPLiteral}}},
		{"ipv4-mapped ipv6 loopback", "http://[::ffff:127.0.0.1]/", none,
			summary{Host: "::ffff:127.0.0.1", ASCII: "::ffff:127.0.0.1", Warnings: []WarnCode{WarnIPLiteral, WarnHTTPLoopback}}},
		{"ipv6 zone", "https://[fe80::1%25eth0]/", none, summary{Refused: RefuseHost}},
		{"ipv6 garbage", "https://[not-an-ip]/", none, summary{Refused: RefuseMalformed}},

		// Scheme policy.
		{"http localhost", "http://localhost:8080/consent", none,
			summary{Host: "localhost", ASCII: "localhost", Warnings: []WarnCode{WarnHTTPLoopback, WarnPort}}},
		{"http sub.localhost", "http://app.localhost/", none,
			summary{Host: "app.localhost", ASCII: "app.localhost", Reg: "app.localhost", Warnings: []WarnCode{WarnHTTPLoopback}}},
		{"http 127.x", "http://127.8.9.10/", none,
			summary{Host: "127.8.9.10", ASCII: "127.8.9.10", Warnings: []WarnCode{WarnIPLiteral, WarnHTTPLoopback}}},
		{"http remote refused", "http://example.com/", none,
			summary{Refused: RefuseHTTP, Host: "example.com", ASCII: "example.com", Reg: "example.com"}},
		{"http localhost.evil.com refused", "http://localhost.evil.com/", none,
			summary{Refused: RefuseHTTP, Host: "localhost.evil.com", ASCII: "localhost.evil.com", Reg: "evil.com"}},
		{"http remote allowed", "http://example.com/", Policy{AllowHTTPRemote: true},
			summary{Host: "example.com", ASCII: "example.com", Reg: "example.com", Warnings: []WarnCode{WarnHTTP}}},
		{"https only refuses loopback", "http://localhost/", Policy{HTTPSOnly: true},
			summary{Refused: RefuseHTTP, Host: "localhost", ASCII: "localhost"}},
		{"default port explicit", "https://example.com:443/", none,
			summary{Host: "example.com", ASCII: "example.com", Reg: "example.com"}},
		{"non-default port", "https://example.com:8443/", none,
			summary{Host: "example.com", ASCII: "example.com", Reg: "example.com", Warnings: []WarnCode{WarnPort}}},

		// Allowed hosts.
		{"allowed exact", "https://example.com/", Policy{AllowedHosts: []string{"example.com"}},
			summary{Host: "example.com", ASCII: "example.com", Reg: "example.com"}},
		{"allowed wildcard", "https://auth.example.com/", Policy{AllowedHosts: []string{"*.example.com"}},
			summary{Host: "auth.example.com", ASCII: "auth.example.com", Reg: "example.com"}},
		{"wildcard excludes apex", "https://example.com/", Policy{AllowedHosts: []string{"*.example.com"}},
			summary{Refused: RefuseNotAllowed, Host: "example.com", ASCII: "example.com", Reg: "example.com"}},
		{"suffix is not subdomain", "https://evilexample.com/", Policy{AllowedHosts: []string{"*.example.com", "example.com"}},
			summary{Refused: RefuseNotAllowed, Host: "evilexample.com", ASCII: "evilexample.com", Reg: "evilexample.com"}},
		{"allowed in userinfo only", "https://example.com@evil.com/", Policy{AllowedHosts: []string{"example.com"}},
			summary{Refused: RefuseNotAllowed, Host: "evil.com", ASCII: "evil.com", Reg: "evil.com", Warnings: []WarnCode{WarnUserinfo}}},
		{"allowed pattern uppercase unicode", "https://xn--mnchen-3ya.de/", Policy{AllowedHosts: []string{"MÜNCHEN.de"}},
			summary{Host: "münchen.de", ASCII: "xn--mnchen-3ya.de", Reg: "münchen.de", Warnings: []WarnCode{WarnPunycode, WarnNonASCII}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.url, tt.policy)
			if diff := cmp.Diff(tt.want, summarize(a)); diff != "" {
				t.Errorf("Analyze(%q) (-want +got):\n%s\nreason: %s\nwarnings: %v", tt.url, diff, a.Reason, a.Warnings)
			}
			if a.URL != tt.url {
				t.Errorf("URL = %q, want it kept as given", a.URL)
			}
			if a.Refused != (a.Code != RefuseNone) || a.Refused != (a.Reason != "") {
				t.Errorf("Refused=%v Code=%v Reason=%q disagree", a.Refused, a.Code, a.Reason)
			}
			checkInvariants(t, a)
		})
	}
}

func TestAnalyzeMessages(t *testing.T) {
	a := Analyze("https://good.example@evil.example/", Policy{})
	if got := a.Warnings[0].Message; !strings.Contains(got, "real host is evil.example") || !strings.Contains(got, "good.example") {
		t.Errorf("userinfo warning = %q, want it to name the real host and the decoy", got)
	}
	a = Analyze("https://xn--pple-43d.com/", Policy{})
	if got := a.Warnings[0].Message; !strings.Contains(got, "xn--pple-43d.com") || !strings.Contains(got, "аpple.com") {
		t.Errorf("punycode warning = %q, want both forms", got)
	}
	a = Analyze("http://2130706433/", Policy{})
	if got := a.Warnings[1].Message; !strings.Contains(got, "2130706433") || !strings.Contains(got, "127.0.0.1") {
		t.Errorf("obfuscated IP warning = %q, want both forms", got)
	}
	a = Analyze("javascript:alert(1)", Policy{})
	if !strings.Contains(a.Reason, `"javascript"`) {
		t.Errorf("reason = %q, want the scheme named", a.Reason)
	}
}

func TestPartsHighlightRealHost(t *testing.T) {
	tests := []struct {
		url  string
		want []Part
	}{
		{"https://auth.example.com/x", []Part{{"https://", PartPlain}, {"auth.", PartHost}, {"example.com", PartRegistrable}, {"/x", PartPlain}}},
		{"https://good.example@evil.example:8443/", []Part{{"https://", PartPlain}, {"good.example@", PartUserinfo}, {"evil.example", PartRegistrable}, {":8443/", PartPlain}}},
		{"HTTP://LOCALHOST/", []Part{{"HTTP://", PartPlain}, {"LOCALHOST", PartRegistrable}, {"/", PartPlain}}},
		{"javascript:alert(1)", []Part{{"javascript:alert(1)", PartPlain}}},
		{"https://a.example.com/\t", []Part{{`https://a.example.com/\t`, PartPlain}}},
	}
	for _, tt := range tests {
		a := Analyze(tt.url, Policy{})
		if diff := cmp.Diff(tt.want, a.Parts); diff != "" {
			t.Errorf("Parts(%q) (-want +got):\n%s", tt.url, diff)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := map[string]string{
		"https://x/\t\n":  `https://x/\t\n`,
		"a\u202Eb":        `a\u202Eb`,
		"\x1b]8;;x\x07":   `\x1b]8;;x\x07`,
		"\xff":            `\xff`,
		"münchen":         "münchen",
		"a\\b":            `a\\b`,
		"\u3000\u00a0":    `\u3000\u00A0`,
		"zero\u200Dwidth": `zero\u200Dwidth`,
	}
	for in, want := range tests {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkInvariants asserts what every analysis promises.
func checkInvariants(t *testing.T, a Analysis) {
	t.Helper()
	var joined strings.Builder
	for _, p := range a.Parts {
		joined.WriteString(p.Text)
	}
	if joined.String() != a.Display {
		t.Errorf("parts %q do not concatenate to Display %q", joined.String(), a.Display)
	}
	if a.Refused {
		return
	}
	u, err := url.Parse(a.URL)
	if err != nil {
		t.Fatalf("not refused but url.Parse(%q): %v", a.URL, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		t.Fatalf("not refused with scheme %q (%q)", u.Scheme, a.URL)
	}
	if u.Hostname() == "" || a.Host == "" || a.ASCIIHost == "" {
		t.Fatalf("not refused with empty host (%q): %+v", a.URL, a)
	}
	if a.Display != a.URL {
		t.Fatalf("not refused but Display %q differs from URL %q", a.Display, a.URL)
	}
	if a.Scheme == "http" && !a.Loopback && !a.Has(WarnHTTP) {
		t.Fatalf("remote http not refused and not warned: %q", a.URL)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"https://auth.example.com/link?s=abc", "http://localhost:8080/", "javascript:alert(1)",
		"https://good@evil/", "https://xn--pple-43d.com/", "http://2130706433/", "https://[::1]/",
		"https:evil.com", "//evil.com", `https://a\@b`, "https://%65vil.com", "data:,x",
		"https://0x7f.1/", "https://例え.テスト.jp/", "HTTPS://EXAMPLE.COM:8443/", "https://a.b.c.d.e/",
	} {
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, raw string, httpsOnly, remote bool) {
		a := Analyze(raw, Policy{HTTPSOnly: httpsOnly, AllowHTTPRemote: remote})
		checkInvariants(t, a)
		if httpsOnly && !a.Refused && a.Scheme != "https" {
			t.Fatalf("https-only let %q through", raw)
		}
	})
}

func BenchmarkAnalyze(b *testing.B) {
	for _, u := range []string{"https://auth.example.com/link?s=abc", "https://xn--pple-43d.com/signin", "https://good.example@evil.example:8443/x"} {
		b.Run(u, func(b *testing.B) {
			for b.Loop() {
				Analyze(u, Policy{AllowedHosts: []string{"*.example.com"}})
			}
		})
	}
}

// TestAllowedHostPatterns: the one allowed-hosts matcher. "example.com" is that host
// only, "*.example.com" its subdomains only, on the ASCII form, case-insensitively;
// patterns that are not hosts match nothing.
func TestAllowedHostPatterns(t *testing.T) {
	tests := []struct {
		hosts []string
		url   string
		want  bool
	}{
		{[]string{"example.com"}, "https://example.com/", true},
		{[]string{"example.com"}, "https://EXAMPLE.com./", true},
		{[]string{"example.com"}, "https://www.example.com/", false},
		{[]string{"example.com"}, "https://example.com.evil.test/", false},
		{[]string{"*.example.com"}, "https://auth.example.com/", true},
		{[]string{"*.example.com"}, "https://a.b.example.com/", true},
		{[]string{"*.example.com"}, "https://example.com/", false},
		{[]string{"*.example.com"}, "https://evilexample.com/", false},
		{[]string{"bücher.example"}, "https://xn--bcher-kva.example/", true},
		{[]string{"xn--bcher-kva.example"}, "https://bücher.example/", true},
		{[]string{"127.0.0.1", "::1"}, "https://127.0.0.1/", true},
		{[]string{"127.0.0.1", "::1"}, "https://[::1]/", true},
		{[]string{"127.0.0.1"}, "https://127.0.0.2/", false},
		{[]string{"*", "https://x.test"}, "https://x.test/", false},
	}
	for _, tt := range tests {
		a := Analyze(tt.url, Policy{AllowedHosts: tt.hosts})
		if got := a.Code != RefuseNotAllowed; got != tt.want {
			t.Errorf("%s with allowed hosts %q: allowed = %v, want %v (%+v)", tt.url, tt.hosts, got, tt.want, a)
		}
	}
}
