package form

import "charm.land/bubbles/v2/key"

// keyMap holds the keys a Model handles itself; every other key goes to the huh form.
type keyMap struct {
	// At every step. Esc is left to a field that is filtering its options.
	Interrupt   key.Binding
	Cancel      key.Binding
	Decline     key.Binding
	MessageUp   key.Binding
	MessageDown key.Binding
	// Back on the first field of a page goes to the previous page.
	Back key.Binding
	// Editor opens the focused text field in $EDITOR.
	Editor key.Binding
	// At the review step.
	Left, Right   key.Binding
	Up, Down      key.Binding
	Press         key.Binding
	Accept        key.Binding
	Edit          key.Binding
	DeclineButton key.Binding
	CancelButton  key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Interrupt:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel")),
		Cancel:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Decline:       key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "decline")),
		MessageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "message up")),
		MessageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdown", "message down")),
		Back:          key.NewBinding(key.WithKeys("shift+tab")),
		Editor:        key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "$EDITOR")),
		Left:          key.NewBinding(key.WithKeys("left", "h", "shift+tab")),
		Right:         key.NewBinding(key.WithKeys("right", "l", "tab")),
		Up:            key.NewBinding(key.WithKeys("up", "k")),
		Down:          key.NewBinding(key.WithKeys("down", "j")),
		Press:         key.NewBinding(key.WithKeys("enter", "space")),
		Accept:        key.NewBinding(key.WithKeys("a")),
		Edit:          key.NewBinding(key.WithKeys("e")),
		DeclineButton: key.NewBinding(key.WithKeys("d")),
		CancelButton:  key.NewBinding(key.WithKeys("c")),
	}
}
