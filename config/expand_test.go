package config

import "testing"

func TestExpand(t *testing.T) {
	env := mapEnv(map[string]string{"HOST": "mcp.test", "TOKEN": "t0k", "EMPTY": "", "ELICITTY_INPUT_API_KEY": "k3y"})
	tests := []struct {
		name    string
		in      string
		vscode  bool
		want    string
		wantErr string
	}{
		{name: "plain", in: "no refs here", want: "no refs here"},
		{name: "braced", in: "https://${HOST}/mcp", want: "https://mcp.test/mcp"},
		{name: "env prefix", in: "Bearer ${env:TOKEN}", want: "Bearer t0k"},
		{name: "two refs", in: "${HOST}:${TOKEN}", want: "mcp.test:t0k"},
		{name: "dollar escape", in: "cost $$5 and $${HOST}", want: "cost $5 and ${HOST}"},
		{name: "bare dollar kept", in: "pa$word $HOME $", want: "pa$word $HOME $"},
		{name: "default used", in: "${PORT:-8080}", want: "8080"},
		{name: "default unused", in: "${HOST:-x}", want: "mcp.test"},
		{name: "empty default", in: "[${EMPTY:-}]", want: "[]"},
		{name: "workspace and home", in: "${workspaceFolder}|${userHome}", want: "/w|/h"},
		{name: "input", in: "${input:api-key}", vscode: true, want: "k3y"},
		{name: "unset", in: "${NOPE}", wantErr: `environment variable "NOPE" is not set (use ${NOPE:-} to allow empty)`},
		{name: "empty is unset", in: "${EMPTY}", wantErr: `environment variable "EMPTY" is not set (use ${EMPTY:-} to allow empty)`},
		{name: "unset env prefix", in: "x${env:NOPE}", wantErr: `environment variable "NOPE" is not set (use ${NOPE:-} to allow empty)`},
		{name: "unterminated", in: "ab${HOST", wantErr: "unterminated ${ at character 3"},
		{name: "empty ref", in: "${}", wantErr: "invalid variable reference ${}"},
		{name: "bad name", in: "${1X}", wantErr: "invalid variable reference ${1X}"},
		{name: "unknown scheme", in: "${config:editor.fontSize}", wantErr: "invalid variable reference ${config:editor.fontSize}"},
		{name: "input outside vs code", in: "${input:api-key}", wantErr: "${input:api-key}: inputs are only available in VS Code mcp.json files"},
		{name: "undeclared input", in: "${input:other}", vscode: true, wantErr: `input "other" is not declared in inputs`},
		{name: "input without value", in: "${input:pat}", vscode: true,
			wantErr: `input "pat" (GitHub PAT) has no value: elicitty does not prompt for VS Code inputs; set ELICITTY_INPUT_PAT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &expander{getenv: env, home: "/h", work: "/w"}
			if tt.vscode {
				x.inputOK = true
				x.inputs = map[string]input{"api-key": {id: "api-key"}, "pat": {id: "pat", description: "GitHub PAT"}}
			}
			got, err := x.expand(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("expand(%q) error = %q, want %q", tt.in, gotErr, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestInputEnv(t *testing.T) {
	for in, want := range map[string]string{
		"api-key":        "ELICITTY_INPUT_API_KEY",
		"github_pat":     "ELICITTY_INPUT_GITHUB_PAT",
		"perplexity.key": "ELICITTY_INPUT_PERPLEXITY_KEY",
		"Token2":         "ELICITTY_INPUT_TOKEN2",
	} {
		if got := InputEnv(in); got != want {
			t.Errorf("InputEnv(%q) = %q, want %q", in, got, want)
		}
	}
}
