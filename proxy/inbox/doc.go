// Package inbox brings the questions an `elicitty proxy` takes on to the user's
// terminals: the proxy's Broker listens on a unix socket in the user's runtime
// directory, and every `elicitty inbox` (and the TUI) attaches to each running proxy
// with Watch, shows its asks and sends the answers back.
//
// The wire is line-delimited JSON, one typed message a line (hello, ask, withdraw,
// answer; see the message types), each line bounded by MaxLine. The directory is the
// user's own (mode 0700, owner checked) and each socket has mode 0600; both ends check
// that the peer process runs as the same user. Server text on the wire is untrusted:
// every string that reaches a log line is sanitized, and the receiving end sanitizes
// the display fields of an ask (screens sanitize the message themselves).
//
// An ask whose request is marked Consented is no new question but a proxy's wait for a
// URL flow the user consented to (a -32042): the inbox shows its waiting screen, and
// an accept means "retry now". Where proxies listen and inboxes look: Places.
package inbox
