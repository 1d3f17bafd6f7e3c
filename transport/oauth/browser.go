package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/elicitty/elicitty/elicit"
)

// SignIn is one browser step: the page the user must visit and where the
// authorization server will send the browser back.
type SignIn struct {
	Server      string // catalog name of the MCP server asking
	URL         string // the full authorization URL
	RedirectURL string // the loopback callback
}

// SignInCall is the Call of the URL request that shows an OAuth sign-in page.
const SignInCall = "sign-in (OAuth)"

// Request is the URL-mode request that shows the sign-in page on a consent screen:
// every front end asks the user with this one.
func (s SignIn) Request() *elicit.Request {
	return &elicit.Request{
		Server:  s.Server,
		Mode:    elicit.ModeURL,
		Call:    SignInCall,
		Message: fmt.Sprintf("%s asks you to sign in. After you sign in, the browser returns to %s.", s.Server, s.RedirectURL),
		URL:     s.URL,
	}
}

// Browser sends the user to a sign-in page. SignIn returns once the user has been
// sent there (or has the URL); the Handler then waits for the redirect. Returning an
// error aborts the sign-in (ErrCancelled when the user declined).
type Browser interface {
	SignIn(ctx context.Context, s SignIn) error
}

// BrowserFunc adapts a function to Browser.
type BrowserFunc func(ctx context.Context, s SignIn) error

// SignIn implements Browser.
func (f BrowserFunc) SignIn(ctx context.Context, s SignIn) error { return f(ctx, s) }

// PrintBrowser prints the sign-in URL for a headless user and returns at once, so the
// Handler waits for the redirect.
type PrintBrowser struct{ W io.Writer }

// SignIn implements Browser.
func (p PrintBrowser) SignIn(_ context.Context, s SignIn) error {
	fmt.Fprintf(p.W, "%s asks you to sign in. Open this URL in a browser:\n%s\nWaiting for the sign-in to finish (redirect to %s)...\n", s.Server, s.URL, s.RedirectURL)
	return nil
}

// NoWaitBrowser refuses every sign-in with ErrNoWait (headless runs asked not to wait).
type NoWaitBrowser struct{}

// SignIn implements Browser.
func (NoWaitBrowser) SignIn(context.Context, SignIn) error { return ErrNoWait }

// FollowBrowser plays the browser with an HTTP client: it GETs the authorization URL
// and follows the redirects, down to the loopback callback. It is for test and
// conformance authorization servers that redirect at once, without a login page.
type FollowBrowser struct {
	// Client follows the redirects; nil means a plain client with no cookies.
	Client *http.Client
}

// SignIn implements Browser.
func (f FollowBrowser) SignIn(ctx context.Context, s SignIn) error {
	c := f.Client
	if c == nil {
		c = &http.Client{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return fmt.Errorf("authorization request: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("authorization request: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 400 {
		return fmt.Errorf("authorization request: HTTP %s", resp.Status)
	}
	return nil
}
