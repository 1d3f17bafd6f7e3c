package oauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

const ccSecret = "cc-secret-that-must-not-leak"

// leaks fails the test when any secret shows in the texts.
func leaks(t *testing.T, secrets []string, texts ...string) {
	t.Helper()
	for _, sec := range secrets {
		for _, txt := range texts {
			if sec != "" && strings.Contains(txt, sec) {
				t.Errorf("secret %.6s... shows in %q", sec, txt)
			}
		}
	}
}

func TestClientCredentialsSecret(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{ScopesSupported: []string{"read"}, Clients: map[string]string{"ci-bot": ccSecret}})
	s, err := connect(t, srv, oauth.Options{Grant: config.GrantClientCredentials, ClientID: "ci-bot", ClientSecret: ccSecret, Browser: oauth.NoWaitBrowser{}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got, err := s.echo(t, "hi"); err != nil || got != "echo: hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	if c := srv.Counts(); c.ClientCredentials != 1 || c.Authorizations != 0 || c.Registrations != 0 {
		t.Errorf("counts = %+v; want one client_credentials grant, no browser sign-in, no registration", c)
	}
	leaks(t, append(srv.Secrets(), ccSecret), s.notes.String())
}

func TestClientCredentialsWrongSecretFailsOnce(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{Clients: map[string]string{"ci-bot": "right"}})
	s, err := connect(t, srv, oauth.Options{Grant: config.GrantClientCredentials, ClientID: "ci-bot", ClientSecret: ccSecret})
	if err == nil {
		t.Fatal("connect succeeded with a wrong secret")
	}
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Step != oauth.StepToken || ae.Code != "invalid_client" {
		t.Errorf("error = %v; want a token request error invalid_client", err)
	}
	if c := srv.Counts(); c.ClientCredentials != 1 {
		t.Errorf("client_credentials requests = %d, want 1 (no retry)", c.ClientCredentials)
	}
	leaks(t, []string{ccSecret}, err.Error(), s.notes.String())
}

func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	srv := oauthtest.New(t, oauthtest.Config{ClientKeys: map[string]crypto.PublicKey{"ci-bot": key.Public()}})
	s, err := connect(t, srv, oauth.Options{Grant: config.GrantClientCredentials, ClientID: "ci-bot", PrivateKeyPEM: pemKey})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := s.echo(t, "x"); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if c := srv.Counts(); c.ClientCredentials != 1 {
		t.Errorf("client_credentials requests = %d, want 1", c.ClientCredentials)
	}
	// A key the server does not know is refused.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv2 := oauthtest.New(t, oauthtest.Config{ClientKeys: map[string]crypto.PublicKey{"ci-bot": other.Public()}})
	if _, err := connect(t, srv2, oauth.Options{Grant: config.GrantClientCredentials, ClientID: "ci-bot", PrivateKeyPEM: pemKey}); err == nil {
		t.Error("a client assertion signed by the wrong key was accepted")
	}
}

func TestBadPrivateKeyIsRefusedWithoutQuotingIt(t *testing.T) {
	bad := []byte("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END PRIVATE KEY-----\n")
	_, err := oauth.NewHandler(oauth.Options{Grant: config.GrantClientCredentials, ClientID: "x", PrivateKeyPEM: bad})
	if err == nil {
		t.Fatal("NewHandler accepted a key that is not one")
	}
	leaks(t, []string{"c2VjcmV0LWtleS1ieXRlcw"}, err.Error())
}

func TestWorkloadIdentityJWTBearer(t *testing.T) {
	const workload = "eyJ.workload-token.sig"
	srv := oauthtest.New(t, oauthtest.Config{WorkloadToken: workload})
	reads := 0
	s, err := connect(t, srv, oauth.Options{Grant: config.GrantJWTBearer, IdentityToken: func(context.Context) (string, error) {
		reads++
		return workload + "\n", nil // as read from a file
	}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := s.echo(t, "x"); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if c := srv.Counts(); c.JWTBearer != 1 || reads != 1 {
		t.Errorf("jwt-bearer requests = %d, token reads = %d; want 1, 1", c.JWTBearer, reads)
	}
	leaks(t, append(srv.Secrets(), workload), s.notes.String())
}

func TestWorkloadIdentityRefusedIsNotRetried(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{WorkloadToken: "the-right-one"})
	const stale = "stale-workload-token"
	s, err := connect(t, srv, oauth.Options{Grant: config.GrantJWTBearer, IdentityToken: func(context.Context) (string, error) { return stale, nil }})
	if err == nil {
		t.Fatal("connect succeeded with a refused assertion")
	}
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Code != "invalid_grant" {
		t.Errorf("error = %v, want invalid_grant", err)
	}
	if c := srv.Counts(); c.JWTBearer != 1 || c.ClientCredentials+c.CodeGrants+c.Authorizations != 0 {
		t.Errorf("counts = %+v; want one jwt-bearer request and no other grant", c)
	}
	// The fixture quotes the assertion in its error_description: it must not show.
	leaks(t, []string{stale}, err.Error(), s.notes.String())
}

func TestMissingIdentityTokenNamesTheStep(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{WorkloadToken: "w"})
	_, err := connect(t, srv, oauth.Options{Grant: config.GrantJWTBearer, IdentityToken: func(context.Context) (string, error) { return " \n", nil }})
	var ae *oauth.Error
	if !errors.As(err, &ae) || ae.Step != oauth.StepIdentityToken {
		t.Fatalf("error = %v, want a failure at the identity token step", err)
	}
}

func TestEnterpriseTokenExchange(t *testing.T) {
	const idToken = "eyJ.id-token-from-the-idp.sig"
	srv := oauthtest.New(t, oauthtest.Config{IDToken: idToken, IdPClient: "elicitty-at-idp", Clients: map[string]string{"elicitty-at-mcp": ccSecret}})
	for _, idp := range []oauth.IdP{
		{Issuer: srv.IdPURL(), ClientID: "elicitty-at-idp"},                   // metadata names the token endpoint
		{TokenEndpoint: srv.IdPURL() + "/token", ClientID: "elicitty-at-idp"}, // given
	} {
		s, err := connect(t, srv, oauth.Options{Grant: config.GrantTokenExchange, ClientID: "elicitty-at-mcp", ClientSecret: ccSecret, IdP: &idp,
			IdentityToken: func(context.Context) (string, error) { return idToken, nil }})
		if err != nil {
			t.Fatalf("connect (%+v): %v", idp, err)
		}
		if _, err := s.echo(t, "x"); err != nil {
			t.Fatalf("echo: %v", err)
		}
		leaks(t, append(srv.Secrets(), idToken, ccSecret), s.notes.String())
	}
	if c := srv.Counts(); c.TokenExchanges != 2 || c.JWTBearer != 2 {
		t.Errorf("token exchanges = %d, jwt-bearer grants = %d; want 2, 2", c.TokenExchanges, c.JWTBearer)
	}
}
