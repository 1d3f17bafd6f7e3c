package config

import (
	"fmt"
	"strings"
	"testing"
)

const secret = "s3cr3t-VALUE-42"

// TestSecretsNeverInErrors loads broken configs whose env and header values hold a secret
// and checks that no error, problem or description contains it.
func TestSecretsNeverInErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		env   map[string]string
	}{
		{
			name: "bad timeout beside a header",
			files: map[string]string{"config/elicitty/config.yaml": "servers:\n  a:\n    url: https://x.test\n" +
				"    headers: {Authorization: \"Bearer " + secret + "\"}\n    timeout: soon\n"},
		},
		{
			name: "unknown key beside an env value",
			files: map[string]string{"config/elicitty/config.yaml": "servers:\n  a:\n    command: x\n" +
				"    env: {TOKEN: " + secret + "}\n    bogus: 1\n"},
		},
		{
			name: "header value with a line break",
			files: map[string]string{"config/elicitty/config.yaml": "servers:\n  a:\n    url: https://x.test\n" +
				"    headers: {Authorization: \"Bearer " + secret + "\\nX-Evil: 1\"}\n"},
		},
		{
			name:  "expanded header value with a line break",
			env:   map[string]string{"TOKEN": secret + "\r\n"},
			files: map[string]string{"config/elicitty/config.yaml": "servers:\n  a:\n    url: https://x.test\n    headers: {X-Token: \"${TOKEN}\"}\n"},
		},
		{
			name:  "env value of the wrong type",
			files: map[string]string{"config/elicitty/config.json": `{"servers": {"a": {"command": "x", "env": {"TOKEN": {"v": "` + secret + `"}}}}}`},
		},
		{
			name:  "unquoted secret in JSON",
			files: map[string]string{"config/elicitty/config.json": `{"servers": {"a": {"command": "x", "env": {"TOKEN": ` + secret + `}}}}`},
		},
		{
			name:  "unterminated secret in YAML",
			files: map[string]string{"config/elicitty/config.yaml": "servers:\n  a:\n    command: x\n    env: {TOKEN: \"" + secret + "}\n"},
		},
		{
			name:  "env value with a NUL",
			files: map[string]string{"config/elicitty/config.json": `{"servers": {"a": {"command": "x", "env": {"TOKEN": "` + secret + `\u0000"}}}}`},
		},
		{
			name: "imported server with a secret and an unset input",
			files: map[string]string{"work/.vscode/mcp.json": `{"inputs": [], "servers": {"a": {"url": "https://x.test",
				"headers": {"A": "` + secret + `", "B": "${input:b}"}}}}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := layout(t, tt.files, tt.env)
			cfg, err := Load(opts)
			var texts []string
			if err != nil {
				texts = append(texts, err.Error())
			}
			for _, p := range cfg.Problems {
				texts = append(texts, p.Err.Error())
				if _, err := ParseTarget(p.Server, cfg); err != nil {
					texts = append(texts, err.Error())
				}
			}
			if len(texts) == 0 {
				t.Fatal("no error, want one")
			}
			t.Logf("errors:\n%s", strings.Join(texts, "\n"))
			for _, s := range texts {
				if strings.Contains(s, secret) || strings.Contains(s, secret[:8]) {
					t.Errorf("error shows the secret:\n%s", s)
				}
			}
		})
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	s := Server{
		Name:    "api",
		URL:     "https://user:" + secret + "@x.test/mcp",
		Headers: map[string]string{"Authorization": "Bearer " + secret},
		Env:     map[string]string{"TOKEN": secret},
	}
	cfg := Config{Servers: []Server{s}}
	for _, out := range []string{
		s.String(), s.Describe(), s.GoString(),
		fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), fmt.Sprint(cfg),
		fmt.Sprintf("%+v", s.Redacted()), fmt.Sprint(s.Redacted().Headers), fmt.Sprint(s.Redacted().Env), s.Redacted().URL,
	} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows the secret: %s", out)
		}
	}
	s.Headers["X-Bad"] = secret + "\n"
	if errs := serverErrors(s); len(errs) == 0 || strings.Contains(strings.Join(errs, "\n"), secret) {
		t.Errorf("validateServer = %v, want an error without the secret", errs)
	}
	if s.Headers["Authorization"] != "Bearer "+secret {
		t.Error("Redacted changed the original server")
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		s    Server
		want string
	}{
		{Server{Name: "demo", Command: "elicitty", Args: []string{"serve-demo"}, Env: map[string]string{"B": "1", "A": "2"}, Source: "config.yaml"},
			"demo (stdio: elicitty serve-demo; env: A, B; from config.yaml)"},
		{Server{Name: "api", URL: "https://u:p@x.test/mcp", Headers: map[string]string{"Authorization": "x"}},
			"api (http: https://u:xxxxx@x.test/mcp; headers: Authorization)"},
		{Server{Name: "old", Kind: KindSSE, URL: "http://127.0.0.1:1/sse"}, "old (sse: http://127.0.0.1:1/sse)"},
	}
	for _, tt := range tests {
		if got := tt.s.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}

// TestRedactedKeepsNames checks Redacted masks values only, and leaves the original intact.
func TestRedactedKeepsNames(t *testing.T) {
	s := Server{Name: "x", URL: "https://x.test", Headers: map[string]string{"H": "v"}, Env: map[string]string{"E": "v"}}
	r := s.Redacted()
	if r.Headers["H"] != "<redacted>" || r.Env["E"] != "<redacted>" || s.Headers["H"] != "v" {
		t.Errorf("Redacted() = %#v, original %v", r.Headers, s.Headers)
	}
}
