// Package theme is the one palette of the terminal UI: the colour of each role, shared by
// the program (tui), its forms (tui/form), the URL consent screen (tui/consent) and the
// sampling screen (tui/sampling). Colours are ANSI palette indexes, so the terminal's own
// theme decides the exact shade; under NO_COLOR no screen asks for one, and meaning is
// carried by bold, reverse and underline alone.
package theme

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// The ANSI palette index of each role.
const (
	dim    = "8"  // bright black: secondary text, hints
	err    = "9"  // bright red: errors, refusals, a URL's hidden userinfo
	ok     = "2"  // green: a server that runs, a check that passed
	warn   = "11" // bright yellow: warnings, stderr lines
	accent = "12" // bright blue: labels, JSON
	host   = "14" // bright cyan: the registrable part of a URL's host
	badge  = "5"  // magenta: counts that want attention
	status = "6"  // cyan: the status line
)

// Dim is the colour of secondary text and hints.
func Dim() color.Color { return lipgloss.Color(dim) }

// Err is the colour of errors and refusals.
func Err() color.Color { return lipgloss.Color(err) }

// OK is the colour of what works.
func OK() color.Color { return lipgloss.Color(ok) }

// Warn is the colour of warnings and of a server's stderr.
func Warn() color.Color { return lipgloss.Color(warn) }

// Accent is the colour of labels and JSON.
func Accent() color.Color { return lipgloss.Color(accent) }

// Host is the colour of the registrable part of a URL's host, the part a person checks.
func Host() color.Color { return lipgloss.Color(host) }

// Badge is the colour of counts that want attention (the Inbox's).
func Badge() color.Color { return lipgloss.Color(badge) }

// Status is the colour of the status line.
func Status() color.Color { return lipgloss.Color(status) }
