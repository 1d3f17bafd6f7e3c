package oauth_test

import (
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

func TestDPoPAuthorizationCode(t *testing.T) {
	for _, nonce := range []string{"", "server-nonce-1"} {
		srv := oauthtest.New(t, oauthtest.Config{DPoP: true, DPoPNonce: nonce})
		s, err := connect(t, srv, oauth.Options{DPoP: true})
		if err != nil {
			t.Fatalf("nonce %q: connect: %v", nonce, err)
		}
		for _, text := range []string{"a", "b"} {
			if got, err := s.echo(t, text); err != nil || got != "echo: "+text {
				t.Fatalf("nonce %q: echo = %q, %v", nonce, got, err)
			}
		}
		c := srv.Counts()
		// initialize and two calls (at least): each with a fresh proof
		// (the fixture refuses a replayed one).
		if c.DPoPRequests < 3 || c.CodeGrants != 1 {
			t.Errorf("nonce %q: counts = %+v; want one code grant and >= 3 MCP requests with valid proofs", nonce, c)
		}
		if nonce != "" && c.DPoPNonceChallenges != 2 {
			t.Errorf("nonce challenges = %d; want 2 (token endpoint and MCP server, each honoured once)", c.DPoPNonceChallenges)
		}
	}
}

func TestDPoPClientCredentials(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{DPoP: true, DPoPNonce: "n", Clients: map[string]string{"ci-bot": ccSecret}})
	s, err := connect(t, srv, oauth.Options{DPoP: true, Grant: config.GrantClientCredentials, ClientID: "ci-bot", ClientSecret: ccSecret})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := s.echo(t, "x"); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if c := srv.Counts(); c.DPoPRequests == 0 || c.ClientCredentials != 1 {
		t.Errorf("counts = %+v", c)
	}
}

func TestWithoutDPoPABoundTokenIsNotUsable(t *testing.T) {
	// The control: a client without DPoP cannot present the fixture's bound tokens.
	srv := oauthtest.New(t, oauthtest.Config{DPoP: true})
	if _, err := connect(t, srv, oauth.Options{}); err == nil {
		t.Fatal("a client without DPoP got through a server that requires it")
	}
}
