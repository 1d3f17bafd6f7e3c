package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/elicitty/elicitty/tui/theme"
)

// styles holds every style the program uses; with NoColor they carry no colour,
// only bold/reverse where meaning needs it.
type styles struct {
	Title, Tab, ActiveTab  lipgloss.Style
	Pane                   lipgloss.Style
	Selected, Dim, Err, Ok lipgloss.Style
	Warn, Badge, Status    lipgloss.Style
	Host, Stderr           lipgloss.Style
}

func newStyles(noColor bool) styles {
	s := styles{
		Title:     lipgloss.NewStyle().Bold(true),
		Tab:       lipgloss.NewStyle().Padding(0, 1),
		ActiveTab: lipgloss.NewStyle().Padding(0, 1).Bold(true).Reverse(true),
		Pane:      lipgloss.NewStyle().Border(lipgloss.NormalBorder(), false, true, false, false).PaddingRight(1),
		Selected:  lipgloss.NewStyle().Reverse(true),
		Dim:       lipgloss.NewStyle(),
		Err:       lipgloss.NewStyle().Bold(true),
		Ok:        lipgloss.NewStyle(),
		Warn:      lipgloss.NewStyle().Bold(true),
		Badge:     lipgloss.NewStyle().Bold(true).Reverse(true),
		Status:    lipgloss.NewStyle(),
		Host:      lipgloss.NewStyle().Bold(true).Underline(true),
		Stderr:    lipgloss.NewStyle(),
	}
	if noColor {
		return s
	}
	s.Dim = s.Dim.Foreground(theme.Dim())
	s.Err = s.Err.Foreground(theme.Err())
	s.Ok = s.Ok.Foreground(theme.OK())
	s.Warn = s.Warn.Foreground(theme.Warn())
	s.Badge = s.Badge.Foreground(theme.Badge())
	s.Stderr = s.Stderr.Foreground(theme.Warn())
	s.Status = s.Status.Foreground(theme.Status())
	return s
}
