package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverErrors is every problem validateServer finds in servers, one line each,
// named by server.
func serverErrors(servers ...Server) []string {
	var out []string
	for _, s := range servers {
		for _, fe := range validateServer(s) {
			if fe.field == "" {
				out = append(out, fmt.Sprintf("server %q: %s", s.Name, fe.msg))
			} else {
				out = append(out, fmt.Sprintf("server %q: %s: %s", s.Name, fe.field, fe.msg))
			}
		}
	}
	return out
}

func TestValidateServer(t *testing.T) {
	tests := []struct {
		name    string
		servers []Server
		want    []string // error lines
	}{
		{name: "valid", servers: []Server{{Name: "a", Command: "x"}, {Name: "b", URL: "https://b.test", Kind: KindSSE}}},
		{name: "empty catalog"},
		{
			name:    "flags made it invalid",
			servers: []Server{{Name: "a", Command: "x", Timeout: -time.Second, MaxRounds: 5000, Protocol: "v2"}},
			want: []string{
				`server "a": protocol: invalid protocol version "v2" (want a date such as 2025-11-25)`,
				`server "a": timeout: must not be negative`,
				`server "a": maxRounds: must be between 0 and 1000`,
			},
		},
		{
			name:    "kind and transport disagree",
			servers: []Server{{Name: "a", Kind: KindHTTP, Command: "x"}, {Name: "b", Kind: KindStdio, URL: "https://b.test"}, {Name: "c", Kind: "ws", URL: "https://c.test"}},
			want: []string{
				`server "a": type: a http server needs a url`,
				`server "b": type: a stdio server needs a command`,
				`server "c": type: unknown type "ws" (want stdio, http or sse)`,
			},
		},
		{
			name:    "bad headers and env names",
			servers: []Server{{Name: "a", URL: "https://a.test", Headers: map[string]string{"Bad Header": "v"}}, {Name: "b", Command: "x", Env: map[string]string{"A=B": "v"}}},
			want: []string{
				`server "a": headers.Bad Header: invalid header name`,
				`server "b": env.A=B: invalid variable name`,
			},
		},
		{
			name: "roots and log level",
			servers: []Server{
				{Name: "ok", Command: "x", Roots: []string{"rel/dir", "/abs", "file:///srv", "file://localhost/x"}, LogLevel: "warning"},
				{Name: "a", Command: "x", Roots: []string{"", "https://x.test", "file://host/x"}, LogLevel: "loud"},
				{Name: "b", Command: "x", Roots: []string{"/x"}, NoRoots: true},
			},
			want: []string{
				`server "a": logLevel: unknown level "loud" (want debug, info, notice, warning, error, critical, alert, emergency)`,
				`server "a": roots[0]: is empty`,
				`server "a": roots[1]: only directories and file:// URIs can be roots`,
				`server "a": roots[2]: want a directory or file:///ABSOLUTE/PATH`,
				`server "b": noRoots: declares no roots, but roots are listed`,
			},
		},
		{
			name: "experimental features",
			servers: []Server{
				{Name: "ok", Command: "x", Experimental: []string{"file-inputs"}},
				{Name: "a", Command: "x", Experimental: []string{"file-inputs", "telepathy"}},
			},
			want: []string{`server "a": experimental[1]: unknown feature "telepathy" (want file-inputs)`},
		},
		{
			name:    "unnamed",
			servers: []Server{{Command: "x"}},
			want:    []string{`server "": server name is empty`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serverErrors(tt.servers...)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("validateServer =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestURLPolicyValidate(t *testing.T) {
	tests := []struct {
		p    URLPolicy
		want string
	}{
		{URLPolicy{}, ""},
		{URLPolicy{Open: URLCopyOnly, AllowedHosts: []string{"a.test", "*.b.test", "10.0.0.1", "bücher.example"}, HTTPSOnly: true}, ""},
		{URLPolicy{Open: "maybe"}, `open: invalid value "maybe" (want open or copy-only)`},
		{URLPolicy{AllowedHosts: []string{""}}, `allowedHosts[0]: invalid host pattern "": empty`},
		{URLPolicy{AllowedHosts: []string{"*.10.0.0.1"}}, `allowedHosts[0]: invalid host pattern "*.10.0.0.1": *. cannot precede an IP address`},
		{URLPolicy{AllowedHosts: []string{"user@x.test"}}, `allowedHosts[0]: invalid host pattern "user@x.test": give a host only, without path or user`},
		{URLPolicy{AllowedHosts: []string{"a b.test"}}, `allowedHosts[0]: invalid host pattern "a b.test": not a valid host name`},
		{URLPolicy{AllowedHosts: []string{"*x.test"}}, `allowedHosts[0]: invalid host pattern "*x.test": * is only allowed as the first label (*.example.com)`},
	}
	for _, tt := range tests {
		got := ""
		if err := tt.p.Validate(); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v.Validate() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestHeadersOnRedirectKey: headersOnRedirect is read from a server entry (default
// false: the configured headers reach the server's own origin only).
func TestHeadersOnRedirectKey(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want bool
	}{
		{"servers:\n  s:\n    url: https://a.example/mcp\n    headers: {X-Api-Key: k}\n", false},
		{"servers:\n  s:\n    url: https://a.example/mcp\n    headers: {X-Api-Key: k}\n    headersOnRedirect: true\n", true},
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(LoadOptions{Path: path, NoImports: true, HomeDir: t.TempDir(), ConfigDir: t.TempDir(), WorkDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		srv, ok := cfg.Lookup("s")
		if !ok || srv.HeadersOnRedirect != tc.want {
			t.Errorf("%q: HeadersOnRedirect = %v (found %v), want %v", tc.yaml, srv.HeadersOnRedirect, ok, tc.want)
		}
	}
}
