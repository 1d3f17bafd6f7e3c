package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestImportFormats loads real-looking files of Claude Code, VS Code's user profile,
// Windsurf, Gemini CLI and Codex.
func TestImportFormats(t *testing.T) {
	tests := []struct {
		fixture      string
		env          map[string]string
		wantServers  []Server
		wantSources  []string
		wantProblems []problem
	}{
		{
			fixture: "claude_code",
			env:     map[string]string{"DB_URL": "postgres://s3cret-db"},
			wantServers: []Server{
				{Name: "github", Source: "$ROOT/work/.mcp.json", Kind: KindHTTP, URL: "https://api.githubcopilot.com/mcp/"},
				{Name: "sentry", Source: "$ROOT/home/.claude.json", Kind: KindHTTP, URL: "https://mcp.sentry.dev/mcp"},
				{Name: "shared", Source: "$ROOT/home/.claude.json", Kind: KindStdio, Command: "local-scope",
					Args: []string{"--verbose"}, Env: map[string]string{"DB_URL": "postgres://s3cret-db"}},
			},
			wantSources: []string{"$ROOT/home/.claude.json", "$ROOT/work/.mcp.json"},
			wantProblems: []problem{
				{"$ROOT/home/.claude.json", "airtable",
					`$ROOT/home/.claude.json:36:19: projects."$ROOT/work".mcpServers.airtable.env.AIRTABLE_API_KEY: environment variable "AIRTABLE_API_KEY" is not set (use ${AIRTABLE_API_KEY:-} to allow empty)`},
			},
		},
		{
			fixture: "vscode_user",
			wantServers: []Server{
				{Name: "fetch", Source: "$ROOT/work/.vscode/mcp.json", Command: "uvx", Args: []string{"mcp-server-fetch", "--ignore-robots-txt"}},
				{Name: "microsoft-docs", Source: "$ROOT/config/Code/User/mcp.json", Kind: KindHTTP, URL: "https://learn.microsoft.com/api/mcp"},
			},
			wantSources: []string{"$ROOT/config/Code/User/mcp.json", "$ROOT/work/.vscode/mcp.json"},
			wantProblems: []problem{
				{"$ROOT/config/Code/User/mcp.json", "brave",
					`$ROOT/config/Code/User/mcp.json:16:15: servers.brave.env.BRAVE_API_KEY: input "brave-key" (Brave Search API key) has no value: elicitty does not prompt for VS Code inputs; set ELICITTY_INPUT_BRAVE_KEY`},
			},
		},
		{
			fixture: "windsurf",
			env:     map[string]string{"GITHUB_TOKEN": "s3cret-gh", "FIGMA_TOKEN": "s3cret-fg"},
			wantServers: []Server{
				{Name: "figma", Source: "$ROOT/home/.codeium/windsurf/mcp_config.json", URL: "https://mcp.figma.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer s3cret-fg"}},
				{Name: "github", Source: "$ROOT/home/.codeium/windsurf/mcp_config.json", Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "s3cret-gh"}},
				{Name: "legacy", Source: "$ROOT/home/.codeium/windsurf/mcp_config.json", Kind: KindSSE, URL: "http://127.0.0.1:9000/sse"},
			},
			wantSources: []string{"$ROOT/home/.codeium/windsurf/mcp_config.json"},
			wantProblems: []problem{
				{"$ROOT/home/.codeium/windsurf/mcp_config.json", "broken",
					`$ROOT/home/.codeium/windsurf/mcp_config.json:14:16: mcpServers.broken.serverUrl: invalid url: missing http:// or https://`},
			},
		},
		{
			fixture: "gemini",
			env:     map[string]string{"DB_CONNECTION_STRING": "s3cret-dsn", "API_TOKEN": "s3cret-at"},
			wantServers: []Server{
				{Name: "both", Source: "$ROOT/home/.gemini/settings.json", Kind: KindHTTP, URL: "https://new.example.com/mcp"},
				{Name: "events", Source: "$ROOT/home/.gemini/settings.json", Kind: KindSSE, URL: "http://localhost:8080/sse"},
				{Name: "pythonTools", Source: "$ROOT/home/.gemini/settings.json", Command: "python",
					Args: []string{"-m", "my_mcp_server", "--port", "8080"}, Cwd: "./mcp-servers/python",
					Env: map[string]string{"DATABASE_URL": "s3cret-dsn"}, Timeout: 15 * time.Second},
				{Name: "remote", Source: "$ROOT/home/.gemini/settings.json", Kind: KindHTTP, URL: "https://api.example.com/mcp/",
					Headers: map[string]string{"Authorization": "Bearer s3cret-at"}, Timeout: 5 * time.Second},
			},
			wantSources: []string{"$ROOT/home/.gemini/settings.json", "$ROOT/work/.gemini/settings.json"},
			wantProblems: []problem{
				{"$ROOT/work/.gemini/settings.json", "shared",
					`$ROOT/work/.gemini/settings.json:4:38: mcpServers.shared.timeout: must be a whole number`},
			},
		},
		{
			fixture: "codex",
			env:     map[string]string{"CONTEXT7_KEY": "s3cret-c7", "FIGMA_OAUTH_TOKEN": "s3cret-fo", "FIGMA_TENANT": "s3cret-acme"},
			wantServers: []Server{
				{Name: "context7", Source: "$ROOT/home/.codex/config.toml", Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"},
					Env: map[string]string{"CONTEXT7_API_KEY": "s3cret-c7"}, Timeout: 60500 * time.Millisecond, HandshakeTimeout: 20 * time.Second},
				{Name: "figma", Source: "$ROOT/home/.codex/config.toml", URL: "https://mcp.figma.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer s3cret-fo", "X-Figma-Region": "us-east-1", "X-Tenant": "s3cret-acme"}},
				{Name: "playwright", Source: "$ROOT/home/.codex/config.toml", Command: "npx", Args: []string{"@playwright/mcp@latest", "--headless"},
					Env: map[string]string{"DEBUG": "pw:*"}, Cwd: "/srv/playwright"},
			},
			wantSources: []string{"$ROOT/home/.codex/config.toml"},
			wantProblems: []problem{
				{"$ROOT/home/.codex/config.toml", "bad",
					`$ROOT/home/.codex/config.toml:40:1: mcp_servers.bad.args: must be a list of strings, got a string`},
				{"$ROOT/home/.codex/config.toml", "needs-token",
					`$ROOT/home/.codex/config.toml:44:1: mcp_servers.needs-token.bearer_token_env_var: environment variable "UNSET_TOKEN" is not set`},
			},
		},
		{
			fixture: "malformed",
			wantServers: []Server{
				{Name: "ok", Source: "$ROOT/work/.mcp.json", Command: "fine"},
				{Name: "w", Source: "$ROOT/home/.codeium/windsurf/mcp_config.json", Command: "windsurf-server"},
			},
			wantSources: []string{
				"$ROOT/home/.codeium/windsurf/mcp_config.json",
				"$ROOT/home/.gemini/settings.json",
				"$ROOT/home/.codex/config.toml",
				"$ROOT/work/.mcp.json",
			},
			wantProblems: []problem{
				{"$ROOT/home/.gemini/settings.json", "",
					`$ROOT/home/.gemini/settings.json:5:3: invalid JSON: invalid character '"' after object value (expecting ',' or '}')`},
				{"$ROOT/home/.codex/config.toml", "",
					`$ROOT/home/.codex/config.toml:5:23: invalid TOML: basic strings cannot have new lines`},
			},
		},
		{
			fixture:     "codex_duplicate",
			wantServers: []Server{},
			wantSources: []string{"$ROOT/home/.codex/config.toml"},
			wantProblems: []problem{
				{"$ROOT/home/.codex/config.toml", "", `$ROOT/home/.codex/config.toml:4:2: invalid TOML: table a already exists`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			opts, root := layout(t, txtar(t, filepath.Join("testdata", "load", tt.fixture+".txtar")), tt.env)
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
			for _, p := range cfg.Problems {
				for _, secret := range tt.env {
					if strings.Contains(p.Err.Error(), secret) {
						t.Errorf("problem %v shows the value of a variable", p.Err)
					}
				}
			}
			opts.NoImports = true
			if cfg, err := Load(opts); err != nil || len(cfg.Servers)+len(cfg.Sources)+len(cfg.Problems) > 0 {
				t.Errorf("with NoImports: %v, %d servers, sources %v, %d problems", err, len(cfg.Servers), cfg.Sources, len(cfg.Problems))
			}
		})
	}
}

// TestImportPaths checks where each client's file is looked for: the macOS and Windows
// VS Code profiles and $CODEX_HOME.
func TestImportPaths(t *testing.T) {
	files := map[string]string{
		"home/Library/Application Support/Code/User/mcp.json": `{"servers": {"mac": {"command": "m"}}}`,
		"appdata/Code/User/mcp.json":                          `{"servers": {"win": {"command": "w"}}}`,
		"codexhome/config.toml":                               "[mcp_servers.codex]\ncommand = \"c\"\n",
		"home/.codex/config.toml":                             "[mcp_servers.ignored]\ncommand = \"i\"\n",
	}
	opts, root := layout(t, files, nil)
	opts.Getenv = mapEnv(map[string]string{"APPDATA": filepath.Join(root, "appdata"), "CODEX_HOME": filepath.Join(root, "codexhome")})
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"codex", "mac", "win"}, cfg.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// TestLayers checks that every server says which layer it came from.
func TestLayers(t *testing.T) {
	files := map[string]string{
		"home/.gemini/settings.json":  `{"mcpServers": {"imported": {"command": "i"}, "replaced": {"command": "r"}}}`,
		"config/elicitty/config.yaml": "servers:\n  replaced: {command: own}\n",
		"env.yaml":                    "servers:\n  fromenv: {command: e}\n",
	}
	opts, root := layout(t, files, nil)
	layers := func(cfg Config) map[string]string {
		out := map[string]string{}
		for _, s := range cfg.Servers {
			out[s.Name] = s.Layer.String()
		}
		return out
	}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"imported": "imported", "replaced": "own"}, layers(cfg)); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	opts.Getenv = mapEnv(map[string]string{"ELICITTY_CONFIG": filepath.Join(root, "env.yaml")})
	if cfg, err = Load(opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"imported": "imported", "replaced": "imported", "fromenv": "env"}, layers(cfg)); diff != "" {
		t.Errorf("layers with ELICITTY_CONFIG (-want +got):\n%s", diff)
	}
	if got := (Server{}).Layer.String(); got != "built-in" {
		t.Errorf("zero layer = %q, want built-in", got)
	}
}
