package config

import (
	"net/url"
	"strings"
)

// checkGrant checks the settings of the OAuth grants that need no browser.
func (o *OAuth) checkGrant() []fieldErr {
	var errs []fieldErr
	add := func(field, msg string) { errs = append(errs, fieldErr{"oauth." + field, msg}) }
	machine := o.Grant != "" && o.Grant != GrantAuthorizationCode
	switch o.Grant {
	case "", GrantAuthorizationCode:
		if o.PrivateKeyFile != "" {
			add("privateKeyFile", "applies to grants client_credentials, jwt_bearer and token_exchange only")
		}
	case GrantClientCredentials:
		if o.ClientID == "" {
			add("grant", "client_credentials needs oauth.clientId")
		}
		if o.ClientSecret == "" && o.PrivateKeyFile == "" {
			add("grant", "client_credentials needs oauth.clientSecret or oauth.privateKeyFile")
		}
	case GrantJWTBearer:
	case GrantTokenExchange:
		if o.ClientID == "" {
			add("grant", "token_exchange needs oauth.clientId (the client at the server's authorization server)")
		}
		switch {
		case o.IdP == nil:
			add("grant", "token_exchange needs oauth.idp")
		case o.IdP.Issuer == "" && o.IdP.TokenEndpoint == "":
			add("idp", "needs issuer or tokenEndpoint")
		case o.IdP.ClientID == "":
			add("idp", "needs clientId")
		}
	default:
		add("grant", "unknown grant (want authorization_code, client_credentials, jwt_bearer or token_exchange)")
	}
	if o.ClientSecret != "" && o.PrivateKeyFile != "" {
		add("privateKeyFile", "set either clientSecret or privateKeyFile, not both")
	}
	needsToken := o.Grant == GrantJWTBearer || o.Grant == GrantTokenExchange
	switch {
	case needsToken && o.IdentityTokenFile == "" && o.IdentityTokenEnv == "":
		add("grant", string(o.Grant)+" needs oauth.identityTokenFile or oauth.identityTokenEnv")
	case o.IdentityTokenFile != "" && o.IdentityTokenEnv != "":
		add("identityTokenEnv", "set either identityTokenFile or identityTokenEnv, not both")
	case !needsToken && (o.IdentityTokenFile != "" || o.IdentityTokenEnv != ""):
		add("grant", "an identity token applies to grants jwt_bearer and token_exchange only")
	}
	if o.IdentityTokenEnv != "" && (strings.ContainsAny(o.IdentityTokenEnv, "=\x00$ ") || o.IdentityTokenEnv == "") {
		add("identityTokenEnv", "must be the name of an environment variable")
	}
	if o.IdP != nil {
		if o.Grant != GrantTokenExchange {
			add("idp", "applies to grant token_exchange only")
		}
		for _, f := range [][2]string{{"idp.issuer", o.IdP.Issuer}, {"idp.tokenEndpoint", o.IdP.TokenEndpoint}} {
			if f[1] == "" {
				continue
			}
			if u, err := url.Parse(f[1]); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				add(f[0], "must be an http(s) URL")
			}
		}
	}
	if machine {
		if o.ClientMetadataURL != "" {
			add("clientMetadataUrl", "applies to grant authorization_code only")
		}
		if o.RedirectPort != 0 {
			add("redirectPort", "applies to grant authorization_code only")
		}
	}
	return errs
}
