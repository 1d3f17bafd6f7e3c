package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
)

// grantContext is the part of MCP_CONFORMANCE_CONTEXT that the extension
// auth scenarios (client credentials, workload identity, enterprise sign-in) carry.
type grantContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	ValidJWT         string `json:"valid_jwt"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// grantFromContext turns the scenario's context into the oauth config a user would
// write (secrets and keys go to 0600 files named by privateKeyFile and
// identityTokenFile) and applies it to o. The returned function removes the files.
func grantFromContext(scenario, raw string, o *oauth.Options) (func(), error) {
	var cc grantContext
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return nil, &ContextError{Err: err}
		}
	}
	c := &config.OAuth{ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, DPoP: strings.HasPrefix(scenario, "auth/dpop")}
	var dir string
	write := func(name, content string) (string, error) {
		if dir == "" {
			d, err := os.MkdirTemp("", "elicitty-conformance-")
			if err != nil {
				return "", err
			}
			dir = d
		}
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, []byte(content), 0o600)
	}
	var err error
	switch {
	case cc.PrivateKeyPEM != "":
		c.Grant, c.ClientSecret = config.GrantClientCredentials, ""
		c.PrivateKeyFile, err = write("client-key.pem", cc.PrivateKeyPEM)
	case cc.ValidJWT != "":
		c.Grant = config.GrantJWTBearer
		c.IdentityTokenFile, err = write("workload-token", cc.ValidJWT)
	case cc.IdPIDToken != "":
		c.Grant = config.GrantTokenExchange
		c.IdP = &config.IdP{Issuer: cc.IdPIssuer, TokenEndpoint: cc.IdPTokenEndpoint, ClientID: cc.IdPClientID}
		c.IdentityTokenFile, err = write("id-token", cc.IdPIDToken)
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		c.Grant = config.GrantClientCredentials
	}
	cleanup := func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	if err == nil {
		err = oauth.ApplyConfig(o, c)
	}
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("conformance: %w", err)
	}
	return cleanup, nil
}
