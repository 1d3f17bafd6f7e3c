package tui

import "charm.land/bubbles/v2/key"

// keyMap is the program's keymap; it feeds the help bar.
type keyMap struct {
	NextTab, PrevTab key.Binding
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Enter            key.Binding
	Servers          key.Binding
	Reconnect        key.Binding
	SignIn           key.Binding
	Inbox            key.Binding
	Aside            key.Binding
	Copy             key.Binding
	PrevCall         key.Binding
	NextCall         key.Binding
	Filter, Follow   key.Binding
	RetryNow         key.Binding
	CancelCall       key.Binding
	Help, Quit       key.Binding
	Details          key.Binding
	Describe         key.Binding
	Tasks            key.Binding
	Status           key.Binding
	Subscribe        key.Binding
	LogLevel         key.Binding
	Roots            key.Binding
}

func defaultKeys() keyMap {
	return keyMap{
		NextTab:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev tab")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		Enter:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Servers:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "next server")),
		Reconnect:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "restart/reconnect")),
		Details:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "server details")),
		Describe:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "describe item")),
		SignIn:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "sign in")),
		Inbox:      key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "inbox")),
		Tasks:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tasks")),
		Aside:      key.NewBinding(key.WithKeys("ctrl+b"), key.WithHelp("ctrl+b", "set aside")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		PrevCall:   key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev result")),
		NextCall:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next result")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Follow:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow")),
		RetryNow:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "retry flow now")),
		CancelCall: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel call/flow")),
		Subscribe:  key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "subscribe")),
		LogLevel:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "log level")),
		Roots:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "roots")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Status:     key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "full status")),
	}
}

// ShortHelp implements help.KeyMap.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextTab, k.Enter, k.Inbox, k.Copy, k.Filter, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.NextTab, k.PrevTab, k.Up, k.Down, k.PageUp, k.PageDown, k.Subscribe, k.LogLevel},
		{k.Enter, k.Describe, k.Inbox, k.Aside, k.Copy, k.PrevCall, k.NextCall, k.RetryNow},
		{k.Servers, k.Reconnect, k.Details, k.SignIn, k.Filter, k.Follow, k.CancelCall},
		{k.Tasks, k.Roots, k.Status, k.Help, k.Quit},
	}
}
