package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadFiles(t *testing.T) {
	tests := []struct {
		fixture      string
		env          map[string]string
		noImports    bool
		wantServers  []Server
		wantSources  []string
		wantProblems []problem
	}{
		{
			fixture: "claude_desktop",
			env:     map[string]string{"WEATHER_KEY": "wk-123"},
			wantServers: []Server{
				{Name: "filesystem", Source: "$ROOT/config/Claude/claude_desktop_config.json", Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "$ROOT/home/Desktop"}},
				{Name: "weather", Source: "$ROOT/config/Claude/claude_desktop_config.json", Command: "uvx",
					Args: []string{"weather-mcp"}, Env: map[string]string{"WEATHER_API_KEY": "wk-123"}},
			},
			wantSources: []string{"$ROOT/config/Claude/claude_desktop_config.json"},
		},
		{
			fixture: "claude_desktop_macos",
			wantServers: []Server{
				{Name: "mac", Source: "$ROOT/home/Library/Application Support/Claude/claude_desktop_config.json",
					Command: "node", Args: []string{"server.js"}},
			},
			wantSources: []string{"$ROOT/home/Library/Application Support/Claude/claude_desktop_config.json"},
		},
		{
			fixture: "cursor",
			env:     map[string]string{"MODE": "dev", "HOST": "mcp.test", "TOKEN": "tok"},
			wantServers: []Server{
				{Name: "linear", Source: "$ROOT/home/.cursor/mcp.json", Kind: KindSSE, URL: "https://mcp.linear.app/sse"},
				{Name: "remote", Source: "$ROOT/work/.cursor/mcp.json", URL: "https://mcp.test/mcp",
					Headers: map[string]string{"Authorization": "Bearer tok"}},
				{Name: "shared", Source: "$ROOT/work/.cursor/mcp.json", Command: "from-project",
					Env: map[string]string{"MODE": "dev"}},
			},
			wantSources: []string{"$ROOT/home/.cursor/mcp.json", "$ROOT/work/.cursor/mcp.json"},
		},
		{
			fixture: "mcp_json",
			env:     map[string]string{"API_KEY": "k"},
			wantServers: []Server{
				{Name: "api", Source: "$ROOT/work/.mcp.json", Kind: KindHTTP, URL: "https://api.example.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer k"}},
				{Name: "local", Source: "$ROOT/work/.mcp.json", Kind: KindStdio, Command: "$ROOT/work/bin/server",
					Args: []string{"--price", "$5"}},
				{Name: "stream", Source: "$ROOT/work/.mcp.json", Kind: KindHTTP, URL: "http://127.0.0.1:8080/mcp"},
			},
			wantSources: []string{"$ROOT/work/.mcp.json"},
			wantProblems: []problem{
				{"$ROOT/work/.mcp.json", "needs-env",
					`$ROOT/work/.mcp.json:9:35: mcpServers.needs-env.url: environment variable "MISSING_URL" is not set (use ${MISSING_URL:-} to allow empty)`},
			},
		},
		{
			fixture: "vscode",
			env:     map[string]string{"ELICITTY_INPUT_GITHUB_PAT": "ghp_x"},
			wantServers: []Server{
				{Name: "github", Source: "$ROOT/work/.vscode/mcp.json", Kind: KindHTTP, URL: "https://api.githubcopilot.com/mcp/",
					Headers: map[string]string{"Authorization": "Bearer ghp_x"}},
			},
			wantSources: []string{"$ROOT/work/.vscode/mcp.json"},
			wantProblems: []problem{
				{"$ROOT/work/.vscode/mcp.json", "perplexity",
					`$ROOT/work/.vscode/mcp.json:16:15: servers.perplexity.env.PERPLEXITY_API_KEY: input "perplexity-key" (Perplexity API Key) has no value: elicitty does not prompt for VS Code inputs; set ELICITTY_INPUT_PERPLEXITY_KEY`},
				{"$ROOT/work/.vscode/mcp.json", "undeclared",
					`$ROOT/work/.vscode/mcp.json:19:45: servers.undeclared.args[0]: input "nope" is not declared in inputs`},
				{"$ROOT/work/.vscode/mcp.json", "nocommand",
					`$ROOT/work/.vscode/mcp.json:20:5: servers.nocommand: needs a command (stdio server) or a url (http server)`},
			},
		},
		{
			fixture: "precedence",
			wantServers: []Server{
				{Name: "b", Source: "$ROOT/home/.cursor/mcp.json", Command: "cursor-b", Env: map[string]string{"K": "v"}},
				{Name: "broken", Source: "$ROOT/config/elicitty/config.yaml", Command: "fixed"},
				{Name: "only-claude", Source: "$ROOT/config/Claude/claude_desktop_config.json", Command: "c"},
				{Name: "shared", Source: "$ROOT/config/elicitty/config.yaml", URL: "https://own.example/mcp", Timeout: 45 * time.Second},
			},
			wantSources: []string{
				"$ROOT/config/Claude/claude_desktop_config.json",
				"$ROOT/home/.cursor/mcp.json",
				"$ROOT/work/.cursor/mcp.json",
				"$ROOT/work/.mcp.json",
				"$ROOT/work/.vscode/mcp.json",
				"$ROOT/config/elicitty/config.yaml",
			},
		},
		{
			fixture:   "precedence",
			noImports: true,
			wantServers: []Server{
				{Name: "broken", Source: "$ROOT/config/elicitty/config.yaml", Command: "fixed"},
				{Name: "shared", Source: "$ROOT/config/elicitty/config.yaml", URL: "https://own.example/mcp", Timeout: 45 * time.Second},
			},
			wantSources: []string{"$ROOT/config/elicitty/config.yaml"},
		},
		{
			fixture: "own_full",
			env:     map[string]string{"DEMO_TOKEN": "d", "API_TOKEN": "a"},
			wantServers: []Server{
				{Name: "api", Source: "$ROOT/config/elicitty/config.yaml", Kind: KindHTTP, URL: "https://mcp.example.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer a"}, Protocol: "2025-11-25",
					URLPolicy: URLPolicy{AllowedHosts: []string{"*.example.com", "auth.example.org"}, HTTPSOnly: true, Open: URLCopyOnly}},
				{Name: "demo", Source: "$ROOT/config/elicitty/config.yaml", Command: "elicitty",
					Args: []string{"serve-demo", "--rounds", "3", "true"}, Env: map[string]string{"DEMO_TOKEN": "d"},
					Cwd: "$ROOT/home/src", Timeout: 90 * time.Second, HandshakeTimeout: 5 * time.Second, URLWait: 10 * time.Minute,
					Validation: ptr(false), MaxRounds: 4},
				{Name: "legacy", Source: "$ROOT/config/elicitty/config.yaml", Kind: KindSSE, URL: "http://127.0.0.1:3001/sse",
					URLPolicy: URLPolicy{Disabled: true}},
			},
			wantSources: []string{"$ROOT/config/elicitty/config.yaml"},
		},
		{
			fixture: "own_json",
			wantServers: []Server{
				{Name: "demo", Source: "$ROOT/config/elicitty/config.json", Command: "elicitty", Args: []string{"serve-demo"},
					Timeout: 10 * time.Second, Validation: ptr(true)},
			},
			wantSources: []string{"$ROOT/config/elicitty/config.json"},
		},
		{
			fixture: "bad_import",
			wantServers: []Server{
				{Name: "ok", Source: "$ROOT/work/.mcp.json", Command: "fine"},
			},
			wantSources: []string{"$ROOT/home/.cursor/mcp.json", "$ROOT/work/.mcp.json"},
			wantProblems: []problem{
				{"$ROOT/home/.cursor/mcp.json", "", "$ROOT/home/.cursor/mcp.json:2:1: invalid JSON: unexpected end of file"},
				{"$ROOT/work/.mcp.json", "typed", `$ROOT/work/.mcp.json:1:54: mcpServers.typed.type: unknown type "websocket" (want stdio, http or sse)`},
			},
		},
	}
	for _, tt := range tests {
		name := tt.fixture
		if tt.noImports {
			name += "/no-imports"
		}
		t.Run(name, func(t *testing.T) {
			opts, root := layout(t, txtar(t, filepath.Join("testdata", "load", tt.fixture+".txtar")), tt.env)
			opts.NoImports = tt.noImports
			cfg, err := Load(opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.wantServers, relServers(root, cfg.Servers)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			var sources []string
			for _, s := range cfg.Sources {
				sources = append(sources, rel(root, s))
			}
			if diff := cmp.Diff(tt.wantSources, sources); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantProblems, relProblems(root, cfg.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if errs := serverErrors(cfg.Servers...); len(errs) > 0 {
				t.Errorf("a loaded config has invalid servers: %v", errs)
			}
		})
	}
}
