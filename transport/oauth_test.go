package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
	"github.com/elicitty/elicitty/transport/wire"
)

func TestConnectSignsInAndLogsNoToken(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{StepUp: []string{"write"}})
	log := wire.New(1000)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Connect(ctx, config.Server{Name: "api", URL: srv.URL}, Options{Log: log,
		OAuth: &oauth.Options{Browser: oauth.FollowBrowser{}}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatalf("call after step-up: %v", err)
	}
	if n := s.OAuth().Flows(); n != 2 {
		t.Errorf("sign-ins = %d, want 2 (sign-in, step-up)", n)
	}
	var all strings.Builder
	for _, e := range log.Snapshot() {
		b, _ := json.Marshal(e)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "oauth: step-up sign-in finished") {
		t.Errorf("wire log has no note of the step-up:\n%s", all.String())
	}
	for _, sec := range srv.Secrets() {
		if strings.Contains(all.String(), sec) {
			t.Errorf("wire log shows a secret issued by the server (%.6s...)", sec)
		}
	}
}

func TestConnectSignInErrorIsConnError(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{FailRegistration: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Connect(ctx, config.Server{Name: "api", URL: srv.URL}, Options{OAuth: &oauth.Options{Browser: oauth.FollowBrowser{}}})
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a ConnError", err)
	}
	want := `server "api": sign-in to api failed at registration: invalid_client_metadata (redirect URI not allowed)`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err.Error(), want)
	}
}
