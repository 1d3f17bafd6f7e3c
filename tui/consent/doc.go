// Package consent asks the user before a URL-mode elicitation's link is opened. It owns
// the consent screen (an embeddable bubbletea model the TUI reuses, which stays open to
// offer the link itself when no browser opens), the one waiting screen shown after
// consent whatever carried the request (Waiting), the terminal Answerer that runs the
// consent screen inline for headless commands (or a line prompt in accessible mode) and
// then its waiting line, the browser and command openers, OSC 52 copy and terminal QR codes,
// the styled rendering of an analysed URL, and the one-line check the answers-file
// Script prints.
//
// It does not analyse URLs (elicit/urlsafe does), speak to servers, or decide protocol
// errors. Nothing in this package opens or fetches a URL before the user has chosen to.
package consent
