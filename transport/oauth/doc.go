// Package oauth signs elicitty in to HTTP MCP servers that answer 401: the OAuth 2.1
// authorization code flow with PKCE, built on go-sdk's auth.AuthorizationCodeHandler
// (discovery, client registration, scope selection and step-up, the resource
// parameter, refresh), plus what that handler leaves to its caller: the browser step
// (a Browser seam and a loopback redirect listener on 127.0.0.1 that checks state), a
// token Store (a 0600 file keyed by server and resource), a bound on repeated sign-ins,
// and errors that name the failed step and the server's error code without ever
// carrying a token or a secret.
//
// A Handler is an auth.OAuthHandler: set it as mcp.StreamableClientTransport.OAuthHandler
// (transport.Options.OAuth does that).
package oauth
