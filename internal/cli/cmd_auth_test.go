package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
)

type recordOpener struct{ urls []string }

func (r *recordOpener) Open(_ context.Context, url string) error {
	r.urls = append(r.urls, url)
	return nil
}

func TestConsentBrowser(t *testing.T) {
	const signInURL = "https://auth.example.com/authorize?client_id=c&state=s1"
	tests := []struct {
		name, input string
		wantErr     error
		wantOpened  []string
	}{
		{"open", "o\n", nil, []string{signInURL}},
		{"decline", "d\n", oauth.ErrCancelled, nil},
		{"end of input", "", oauth.ErrCancelled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			a := newApp(strings.NewReader(tt.input), &bytes.Buffer{}, &stderr)
			a.accessible = true
			op := &recordOpener{}
			b := a.consentBrowser(config.Server{Name: "tracker", URL: "https://mcp.example.com/mcp"}, op)
			err := b.SignIn(context.Background(), oauth.SignIn{Server: "tracker", URL: signInURL, RedirectURL: "http://127.0.0.1:5555/callback"})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("SignIn = %v, want %v", err, tt.wantErr)
			}
			if strings.Join(op.urls, " ") != strings.Join(tt.wantOpened, " ") {
				t.Errorf("opened %q, want %q", op.urls, tt.wantOpened)
			}
			out := stderr.String()
			for _, want := range []string{"tracker asks you to sign in", "auth.example.com", "Nothing has been opened"} {
				if !strings.Contains(out, want) {
					t.Errorf("consent screen lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
