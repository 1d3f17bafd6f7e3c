package form

import (
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"

	"github.com/elicitty/elicitty/tui/theme"
)

// styles are the lipgloss styles of a Model and the huh theme of its fields.
type styles struct {
	theme    huh.Theme
	title    lipgloss.Style
	warn     lipgloss.Style
	err      lipgloss.Style
	dim      lipgloss.Style
	json     lipgloss.Style
	button   lipgloss.Style
	focused  lipgloss.Style
	disabled lipgloss.Style
}

func newStyles(noColor bool) styles {
	plain := lipgloss.NewStyle()
	if noColor {
		return styles{
			theme:    newCachedTheme(noColorTheme),
			title:    plain.Bold(true),
			warn:     plain,
			err:      plain,
			dim:      plain,
			json:     plain,
			button:   plain,
			focused:  plain.Bold(true),
			disabled: plain.Faint(true),
		}
	}
	return styles{
		theme:    newCachedTheme(huh.ThemeCharm),
		title:    plain.Bold(true),
		warn:     plain.Foreground(theme.Warn()),
		err:      plain.Foreground(theme.Err()),
		dim:      plain.Foreground(theme.Dim()),
		json:     plain.Foreground(theme.Accent()),
		button:   plain,
		focused:  plain.Bold(true).Reverse(true),
		disabled: plain.Faint(true).Strikethrough(true),
	}
}

// noColorTheme is huh's base theme without its button colours.
func noColorTheme(isDark bool) *huh.Styles {
	t := huh.ThemeBase(isDark)
	t.Focused.FocusedButton = t.Focused.FocusedButton.UnsetForeground().UnsetBackground().Bold(true)
	t.Focused.BlurredButton = t.Focused.BlurredButton.UnsetForeground().UnsetBackground()
	t.Focused.TextInput.Placeholder = t.Focused.TextInput.Placeholder.UnsetForeground().Faint(true)
	t.Blurred = t.Focused
	t.Blurred.Base = t.Blurred.Base.BorderStyle(lipgloss.HiddenBorder())
	t.Blurred.Card = t.Blurred.Base
	t.Blurred.MultiSelectSelector = lipgloss.NewStyle().SetString("  ")
	t.Blurred.NextIndicator = lipgloss.NewStyle()
	t.Blurred.PrevIndicator = lipgloss.NewStyle()
	return t
}

// cachedTheme is a huh theme built once. huh asks its theme for styles on every render
// of every option, and a huh.ThemeFunc builds the whole theme on each call.
type cachedTheme struct{ dark, light *huh.Styles }

func newCachedTheme(f func(isDark bool) *huh.Styles) cachedTheme {
	return cachedTheme{dark: f(true), light: f(false)}
}

// Theme implements huh.Theme.
func (c cachedTheme) Theme(isDark bool) *huh.Styles {
	if isDark {
		return c.dark
	}
	return c.light
}
