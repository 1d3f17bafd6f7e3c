package elicit

import "github.com/elicitty/elicitty/elicit/safe"

// Sanitize strips terminal control sequences, controls, bidi and zero-width characters
// from server-provided text before display, keeping newlines and tabs. It is
// safe.Block; see package safe for the rules and for Line, its one-line form.
func Sanitize(s string) string { return safe.Block(s) }
