package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOAuthSettings(t *testing.T) {
	opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": "servers:\n  api:\n    url: https://x.test/mcp\n" +
		"    oauth:\n      clientId: cli\n      clientSecret: ${SECRET}\n      scopes: [read, write]\n      redirectPort: 8765\n"},
		map[string]string{"SECRET": secret})
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ParseTarget("api", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := &OAuth{ClientID: "cli", ClientSecret: secret, Scopes: []string{"read", "write"}, RedirectPort: 8765}
	if diff := cmp.Diff(want, srv.OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	for _, out := range []string{srv.String(), fmt.Sprintf("%+v", srv), fmt.Sprintf("%#v", srv), fmt.Sprintf("%+v", *srv.Redacted().OAuth)} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows the client secret: %s", out)
		}
	}
	if srv.OAuth.ClientSecret != secret {
		t.Error("Redacted changed the original server")
	}
}

func TestOAuthSettingsErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"secret without id", "oauth: {clientSecret: " + secret + "}", "oauth.clientSecret: needs oauth.clientId"},
		{"bad port", "oauth: {redirectPort: 70000}", "oauth.redirectPort: must be between 0 and 65535"},
		{"http metadata url", "oauth: {clientMetadataUrl: \"http://x.test/c.json\"}", "oauth.clientMetadataUrl: must be an https URL with a path"},
		{"unknown key", "oauth: {clientSecert: " + secret + "}", "oauth.clientSecert: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": "servers:\n  api:\n    url: https://x.test/mcp\n    " + tt.yaml + "\n"}, nil)
			cfg, err := Load(opts)
			var texts []string
			if err != nil {
				texts = append(texts, err.Error())
			}
			for _, p := range cfg.Problems {
				texts = append(texts, p.Err.Error())
			}
			all := strings.Join(texts, "\n")
			if !strings.Contains(all, tt.want) {
				t.Errorf("errors %q do not contain %q", all, tt.want)
			}
			if strings.Contains(all, secret) {
				t.Errorf("errors show the secret: %s", all)
			}
		})
	}
}
