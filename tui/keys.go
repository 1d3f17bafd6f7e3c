package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/elicitty/elicitty/tui/keymap"
)

// programKeys is the key map (keymap.Map) as the program's help bar shows it.
type programKeys struct{ keymap.Map }

// ShortHelp implements help.KeyMap.
func (k programKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Enter, k.Inbox, k.Copy, k.Filter, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k programKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.Up, k.Down, k.PageUp, k.PageDown, k.Subscribe, k.LogLevel},
		{k.Enter, k.Describe, k.Inbox, k.Aside, k.Copy, k.PrevCall, k.NextCall, k.RetryNow},
		{k.Servers, k.Reconnect, k.Details, k.SignIn, k.Filter, k.Follow, k.CancelCall},
		{k.Tasks, k.Roots, k.Status, k.Help, k.Quit},
	}
}
