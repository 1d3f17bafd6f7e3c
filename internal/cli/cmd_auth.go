package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/tui/consent"
)

// tokenStore returns where OAuth tokens are kept: the OS keyring when one answers,
// else the 0600 file under the user's state directory (ELICITTY_TOKEN_STORE picks one).
// It is chosen once per run.
func (a *app) tokenStore() (oauth.TokenStore, error) {
	c, err := a.tokenChoice()
	return c.Store, err
}

// tokenChoice is tokenStore with the reason for the choice, for doctor.
func (a *app) tokenChoice() (oauth.Choice, error) {
	a.tokensOnce.Do(func() {
		home, _ := os.UserHomeDir()
		a.tokens, a.tokensErr = oauth.ChooseStore(&oauth.ChooseOptions{
			Mode: os.Getenv("ELICITTY_TOKEN_STORE"),
			Path: oauth.DefaultStorePath(os.Getenv, home),
			Warn: func(msg string) { fmt.Fprintf(a.stderr, "elicitty: warning: %s\n", msg) },
		})
		if a.tokensErr != nil {
			a.tokensErr = usagef("token store: %w", a.tokensErr)
		}
	})
	return a.tokens, a.tokensErr
}

// oauthOptions returns the sign-in options for an HTTP server; nil for stdio.
func (a *app) oauthOptions(srv config.Server) (*oauth.Options, error) {
	if srv.EffectiveKind() == config.KindStdio {
		return nil, nil
	}
	store, err := a.tokenStore()
	if err != nil {
		return nil, err
	}
	o := &oauth.Options{Server: srv.Name, Resource: srv.URL, Store: store}
	if c := srv.OAuth; c != nil {
		o.ClientID, o.ClientSecret = c.ClientID, c.ClientSecret
		o.ClientMetadataURL, o.Scopes, o.RedirectPort = c.ClientMetadataURL, c.Scopes, c.RedirectPort
		if err := oauth.ApplyConfig(o, c); err != nil {
			return nil, err
		}
		if o.Grant != "" && o.Grant != config.GrantAuthorizationCode {
			return o, nil // no browser
		}
	}
	if a.timeout > 0 {
		o.Wait = a.timeout
	}
	switch {
	case a.isTTY():
		open, err := opener()
		if err != nil {
			return nil, err
		}
		o.Browser = a.consentBrowser(srv, open)
	case a.noWait:
		o.Browser = oauth.NoWaitBrowser{}
	default:
		o.Browser = oauth.PrintBrowser{W: a.stderr}
	}
	return o, nil
}

// consentBrowser shows the sign-in page on the URL consent screen (server, full URL,
// highlighted host, warnings, Open / Copy / QR / Cancel) before anything is opened.
func (a *app) consentBrowser(srv config.Server, open consent.Opener) oauth.Browser {
	ans := consent.NewAnswerer(a.stdin, a.stderr, consent.AnswererOptions{
		// The authorization server is usually another host than the MCP server, so
		// the server's allowedHosts do not apply; https-only does.
		Policy:     transport.URLPolicy(config.URLPolicy{HTTPSOnly: srv.URLPolicy.HTTPSOnly}),
		Opener:     open,
		CopyOnly:   srv.URLPolicy.Open == config.URLCopyOnly,
		Accessible: a.accessible,
		NoColor:    a.noColor(),
	})
	return oauth.BrowserFunc(func(ctx context.Context, s oauth.SignIn) error {
		resp, err := ans.Answer(ctx, s.Request())
		if err != nil {
			return err
		}
		if resp.Action != elicit.Accept {
			return oauth.ErrCancelled
		}
		fmt.Fprintln(a.stderr, "Waiting for the sign-in to finish in the browser...")
		return nil
	})
}

func (a *app) loginCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "login TARGET",
		Short: "Sign in to an HTTP server (OAuth) ahead of time",
		Long: `Signs in to an HTTP MCP server that requires OAuth and stores the token for later
commands: in the OS keyring when one is available, else in a 0600 file under
$XDG_STATE_HOME/elicitty (elicitty doctor shows which). Any stored token for the server is
dropped first. On a terminal the sign-in page is shown on the URL consent screen;
without one the URL is printed and the command waits (bounded by --timeout), or fails
with exit 4 under --no-wait.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, _, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if srv.EffectiveKind() == config.KindStdio {
				return usagef("login: %s is a stdio server; sign-in applies to http servers", srv.Name)
			}
			store, err := a.tokenStore()
			if err != nil {
				return err
			}
			if _, err := store.Delete(srv.Name, srv.URL); err != nil {
				return fmt.Errorf("login: %w", err)
			}
			log, closeLog, err := a.openLog()
			if err != nil {
				return err
			}
			defer closeLog()
			s, err := a.connect(cmd.Context(), srv, log)
			if err != nil {
				return err
			}
			defer s.Close()
			// A server that lets initialize through may still want a token for the rest.
			if caps := s.Capabilities(); caps == nil || caps.Tools != nil {
				if _, err := s.Tools(cmd.Context()); err != nil {
					return err
				}
			}
			if h := s.OAuth(); h != nil && h.Flows() > 0 {
				fmt.Fprintf(a.stdout, "Signed in to %s; the token is stored in %s.\n", srv.Name, store.Where())
				return nil
			}
			fmt.Fprintf(a.stdout, "%s did not ask for a sign-in.\n", srv.Name)
			return nil
		},
	}
}

func (a *app) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout TARGET",
		Short: "Forget the stored OAuth tokens of a server",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, _, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			store, err := a.tokenStore()
			if err != nil {
				return err
			}
			n, err := store.Delete(srv.Name, "")
			if err != nil {
				return fmt.Errorf("logout: %w", err)
			}
			if n == 0 {
				fmt.Fprintf(a.stdout, "No stored sign-in for %s.\n", srv.Name)
				return nil
			}
			fmt.Fprintf(a.stdout, "Signed out of %s (%d stored token(s) removed).\n", srv.Name, n)
			return nil
		},
	}
}
