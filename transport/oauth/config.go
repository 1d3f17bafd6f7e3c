package oauth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/boundedfile"
)

// maxKeyFile bounds the private key and identity token files read for a grant.
const maxKeyFile = 64 << 10

// ApplyConfig copies the grant settings of a server's oauth config into o: the grant,
// the client's private key (read now), the identity token source (read each time a
// token is needed), the identity provider and DPoP. Errors name the setting and file,
// never their contents.
func ApplyConfig(o *Options, c *config.OAuth) error {
	o.Grant = c.Grant
	o.DPoP = c.DPoP
	if c.PrivateKeyFile != "" {
		b, err := readSmall(c.PrivateKeyFile)
		if err != nil {
			return fmt.Errorf("oauth.privateKeyFile: %w", err)
		}
		o.PrivateKeyPEM = b
	}
	switch {
	case c.IdentityTokenFile != "":
		path := c.IdentityTokenFile
		o.IdentityToken = func(context.Context) (string, error) {
			b, err := readSmall(path)
			if err != nil {
				return "", fmt.Errorf("oauth.identityTokenFile: %w", err)
			}
			return string(b), nil
		}
	case c.IdentityTokenEnv != "":
		name := c.IdentityTokenEnv
		o.IdentityToken = func(context.Context) (string, error) {
			v, ok := os.LookupEnv(name)
			if !ok {
				return "", fmt.Errorf("oauth.identityTokenEnv: $%s is not set", name)
			}
			return v, nil
		}
	}
	if p := c.IdP; p != nil {
		o.IdP = &IdP{Issuer: p.Issuer, TokenEndpoint: p.TokenEndpoint, ClientID: p.ClientID, ClientSecret: p.ClientSecret}
	}
	return nil
}

// readSmall reads a file of at most maxKeyFile bytes; its errors name the path only.
func readSmall(path string) ([]byte, error) {
	// Bounded and regular files only: a FIFO or device at the path is refused at once.
	b, err := boundedfile.Read(path, maxKeyFile)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", path, pe.Err)
	}
	return b, err
}
