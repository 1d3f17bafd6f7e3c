package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTarget(t *testing.T) {
	cfg := Config{
		Servers: []Server{
			{Name: "api", URL: "https://api.test/mcp", Source: "config.yaml"},
			{Name: "demo", Command: "elicitty", Args: []string{"serve-demo"}},
		},
		Problems: []Problem{{Source: ".mcp.json", Server: "broken", Err: errors.New(`.mcp.json:3:5: mcpServers.broken.url: environment variable "X" is not set`)}},
	}
	tests := []struct {
		arg     string
		cfg     Config
		want    Server
		wantErr string
	}{
		{arg: "demo", cfg: cfg, want: Server{Name: "demo", Command: "elicitty", Args: []string{"serve-demo"}}},
		{arg: "api", cfg: cfg, want: Server{Name: "api", URL: "https://api.test/mcp", Source: "config.yaml"}},
		{arg: "https://mcp.example.com/mcp", cfg: cfg, want: Server{Name: "mcp.example.com", Kind: KindHTTP, URL: "https://mcp.example.com/mcp"}},
		{arg: "http://127.0.0.1:8080/mcp", want: Server{Name: "127.0.0.1:8080", Kind: KindHTTP, URL: "http://127.0.0.1:8080/mcp"}},
		{arg: "HTTPS://Example.COM/x", want: Server{Name: "example.com", Kind: KindHTTP, URL: "HTTPS://Example.COM/x"}},
		{arg: "nope", cfg: cfg, wantErr: `unknown server "nope" (known: api, demo)`},
		{arg: "nope", wantErr: `unknown server "nope": no servers are configured (give an http(s) URL, or a command after --)`},
		{arg: "broken", cfg: cfg, wantErr: `server "broken" cannot be used: .mcp.json:3:5: mcpServers.broken.url: environment variable "X" is not set`},
		{arg: "", cfg: cfg, wantErr: "empty server name"},
		{arg: "ftp://x.test/", cfg: cfg, wantErr: `target: unsupported scheme "ftp" (want http or https)`},
		{arg: "https:///mcp", cfg: cfg, wantErr: "target: invalid url: missing host"},
		{arg: "http://x.test:port/", cfg: cfg, wantErr: `target: invalid url: invalid port after host`},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			got, err := ParseTarget(tt.arg, tt.cfg)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("ParseTarget(%q) error = %q, want %q", tt.arg, gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTarget(%q) (-want +got):\n%s", tt.arg, diff)
			}
		})
	}
}

func TestCommandServer(t *testing.T) {
	tests := []struct {
		argv []string
		want Server
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything"},
			Server{Name: "npx", Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}},
		{[]string{"./bin/my-server"}, Server{Name: "my-server", Kind: KindStdio, Command: "./bin/my-server"}},
		{[]string{"python3.12", "server.py"}, Server{Name: "python3.12", Kind: KindStdio, Command: "python3.12", Args: []string{"server.py"}}},
		{[]string{"server.EXE"}, Server{Name: "server", Kind: KindStdio, Command: "server.EXE"}},
		{[]string{"${HOME}/x"}, Server{Name: "x", Kind: KindStdio, Command: "${HOME}/x"}},
		{nil, Server{}},
	}
	for _, tt := range tests {
		got := CommandServer(tt.argv)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("CommandServer(%q) (-want +got):\n%s", tt.argv, diff)
		}
		if len(tt.argv) > 0 {
			if errs := serverErrors(got); len(errs) > 0 {
				t.Errorf("CommandServer(%q) is not valid: %v", tt.argv, errs)
			}
		}
	}
}
