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

func TestOAuthGrantSettings(t *testing.T) {
	opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": "servers:\n  api:\n    url: https://x.test/mcp\n" +
		"    oauth:\n      grant: token_exchange\n      clientId: cli\n      clientSecret: ${SECRET}\n      identityTokenEnv: ID_TOKEN\n      dpop: true\n" +
		"      idp:\n        issuer: https://idp.test\n        clientId: idp-cli\n        clientSecret: ${SECRET}\n"},
		map[string]string{"SECRET": secret})
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ParseTarget("api", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := &OAuth{Grant: GrantTokenExchange, ClientID: "cli", ClientSecret: secret, IdentityTokenEnv: "ID_TOKEN", DPoP: true,
		IdP: &IdP{Issuer: "https://idp.test", ClientID: "idp-cli", ClientSecret: secret}}
	if diff := cmp.Diff(want, srv.OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	for _, out := range []string{srv.String(), fmt.Sprintf("%+v", srv.Redacted().OAuth.IdP), fmt.Sprintf("%#v", srv)} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows a secret: %s", out)
		}
	}
	if srv.OAuth.IdP.ClientSecret != secret {
		t.Error("Redacted changed the original server")
	}
}

func TestOAuthGrantErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown grant", "oauth: {grant: password}", "oauth.grant: unknown grant"},
		{"cc without secret", "oauth: {grant: client_credentials, clientId: c}", "client_credentials needs oauth.clientSecret or oauth.privateKeyFile"},
		{"cc both", "oauth: {grant: client_credentials, clientId: c, clientSecret: " + secret + ", privateKeyFile: k.pem}", "oauth.privateKeyFile: set either clientSecret or privateKeyFile"},
		{"jwt bearer without token", "oauth: {grant: jwt_bearer}", "jwt_bearer needs oauth.identityTokenFile or oauth.identityTokenEnv"},
		{"bad env name", "oauth: {grant: jwt_bearer, identityTokenEnv: \"A=B\"}", "oauth.identityTokenEnv: must be the name"},
		{"exchange without idp", "oauth: {grant: token_exchange, clientId: c, identityTokenFile: t}", "token_exchange needs oauth.idp"},
		{"idp bad url", "oauth: {grant: token_exchange, clientId: c, identityTokenFile: t, idp: {issuer: \"ftp://x\", clientId: i}}", "oauth.idp.issuer: must be an http(s) URL"},
		{"key with code flow", "oauth: {privateKeyFile: k.pem}", "oauth.privateKeyFile: applies to grants"},
		{"idp unknown key", "oauth: {idp: {clientSecert: " + secret + "}}", "oauth.idp.clientSecert: unknown key"},
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
			if !strings.Contains(all, "config.yaml:") {
				t.Errorf("errors %q do not name the file and position", all)
			}
			if strings.Contains(all, secret) {
				t.Errorf("errors show the secret: %s", all)
			}
		})
	}
}
