// Package urlsafe analyses the URL of a URL-mode elicitation before the user is asked to
// open it. It owns the scheme allowlist, host extraction (the real host, its registrable
// part, punycode and mixed-script checks, IP literals, userinfo tricks), the per-server
// host policy, and rendering a URL in full, wrapped, with its host highlighted.
//
// It never touches the network: nothing here resolves, fetches or opens a URL. It does not
// ask the user anything; the consent screen lives in tui/consent.
package urlsafe
