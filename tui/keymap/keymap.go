// Package keymap is the one key map of the terminal UI: every binding of the program
// (tui), its forms (tui/form), the URL consent screen (tui/consent) and the sampling
// screen (tui/sampling), each defined once by what it means. A screen reads the bindings
// it needs; one that gives a key two meanings matches both, or joins them with Either
// (the consent screen moves up on ↑/k and on shift+tab, Up and Prev). The help texts
// are the ones the program's help bar shows.
package keymap

import "charm.land/bubbles/v2/key"

// Map holds every binding of the terminal UI. Create it with Default.
type Map struct {
	// Moving: through a list, a message, a form's fields or a review's buttons.
	Up, Down         key.Binding // ↑/k, ↓/j
	Left, Right      key.Binding // ←/h, →/l: a review's buttons
	PageUp, PageDown key.Binding // pgup, pgdown: a page of a list or a message
	Next, Prev       key.Binding // tab, shift+tab: the next or previous tab, field or button

	// Answering a question.
	Enter     key.Binding // enter: open the selected item, send a reviewed answer
	Select    key.Binding // enter, space: press the focused button
	Review    key.Binding // ctrl+s: a sampling reply goes to its review step
	Cancel    key.Binding // esc: cancel, close, go back
	Interrupt key.Binding // ctrl+c: cancel at once
	Decline   key.Binding // ctrl+x: decline the request
	Editor    key.Binding // ctrl+e: the focused text field in $EDITOR
	Aside     key.Binding // ctrl+b: set the open request or form aside

	// The one-letter buttons of a review step and of the consent screen.
	Accept        key.Binding // a
	Yes           key.Binding // y: send a reviewed reply, confirm a question
	Edit          key.Binding // e: back to editing from the review
	DeclineButton key.Binding // d
	CancelButton  key.Binding // c
	No            key.Binding // n: decline a link, refuse
	Open          key.Binding // o: open the link in the browser
	Copy          key.Binding // y: copy (a result, a log entry, a link)
	QR            key.Binding // r: show a link's QR code
	Opened        key.Binding // i: "I opened it myself"

	// The program's tabs.
	Servers    key.Binding // s: only the next server's items
	Reconnect  key.Binding // r
	SignIn     key.Binding // l
	Inbox      key.Binding // i
	PrevCall   key.Binding // [
	NextCall   key.Binding // ]
	Filter     key.Binding // /
	Follow     key.Binding // f: the log follows new entries
	RetryNow   key.Binding // n: retry a URL flow's call now
	CancelCall key.Binding // x: cancel the selected call or flow
	Details    key.Binding // e: the selected server's details
	Describe   key.Binding // d: the selected item in full
	Tasks      key.Binding // t
	Subscribe  key.Binding // u
	LogLevel   key.Binding // v
	Roots      key.Binding // o
	Status     key.Binding // ctrl+o: the whole status message
	Help       key.Binding // ?
	Quit       key.Binding // q, ctrl+c
}

// Default returns the key map.
func Default() Map {
	b := func(keys []string, helpKey, desc string) key.Binding {
		if helpKey == "" {
			return key.NewBinding(key.WithKeys(keys...))
		}
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
	}
	k := func(keys ...string) []string { return keys }
	return Map{
		Up:       b(k("up", "k"), "↑/k", "up"),
		Down:     b(k("down", "j"), "↓/j", "down"),
		Left:     b(k("left", "h"), "", ""),
		Right:    b(k("right", "l"), "", ""),
		PageUp:   b(k("pgup"), "pgup", "scroll up"),
		PageDown: b(k("pgdown"), "pgdn", "scroll down"),
		Next:     b(k("tab"), "tab", "next tab"),
		Prev:     b(k("shift+tab"), "shift+tab", "prev tab"),

		Enter:     b(k("enter"), "enter", "open"),
		Select:    b(k("enter", "space"), "", ""),
		Review:    b(k("ctrl+s"), "ctrl+s", "review"),
		Cancel:    b(k("esc"), "esc", "cancel"),
		Interrupt: b(k("ctrl+c"), "ctrl+c", "cancel"),
		Decline:   b(k("ctrl+x"), "ctrl+x", "decline"),
		Editor:    b(k("ctrl+e"), "ctrl+e", "$EDITOR"),
		Aside:     b(k("ctrl+b"), "ctrl+b", "set aside"),

		Accept:        b(k("a"), "", ""),
		Yes:           b(k("y"), "", ""),
		Edit:          b(k("e"), "", ""),
		DeclineButton: b(k("d"), "", ""),
		CancelButton:  b(k("c"), "", ""),
		No:            b(k("n"), "", ""),
		Open:          b(k("o"), "", ""),
		Copy:          b(k("y"), "y", "copy"),
		QR:            b(k("r"), "", ""),
		Opened:        b(k("i"), "", ""),

		Servers:    b(k("s"), "s", "next server"),
		Reconnect:  b(k("r"), "r", "restart/reconnect"),
		SignIn:     b(k("l"), "l", "sign in"),
		Inbox:      b(k("i"), "i", "inbox"),
		PrevCall:   b(k("["), "[", "prev result"),
		NextCall:   b(k("]"), "]", "next result"),
		Filter:     b(k("/"), "/", "filter"),
		Follow:     b(k("f"), "f", "follow"),
		RetryNow:   b(k("n"), "n", "retry flow now"),
		CancelCall: b(k("x"), "x", "cancel call/flow"),
		Details:    b(k("e"), "e", "server details"),
		Describe:   b(k("d"), "d", "describe item"),
		Tasks:      b(k("t"), "t", "tasks"),
		Subscribe:  b(k("u"), "u", "subscribe"),
		LogLevel:   b(k("v"), "v", "log level"),
		Roots:      b(k("o"), "o", "roots"),
		Status:     b(k("ctrl+o"), "ctrl+o", "full status"),
		Help:       b(k("?"), "?", "help"),
		Quit:       b(k("q", "ctrl+c"), "q", "quit"),
	}
}

// Either returns a binding matched by the keys of every one of bs, with the help of
// the first: one key of a screen that means two things there.
func Either(bs ...key.Binding) key.Binding {
	var keys []string
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
	}
	if len(bs) == 0 || bs[0].Help().Key == "" {
		return key.NewBinding(key.WithKeys(keys...))
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(bs[0].Help().Key, bs[0].Help().Desc))
}

// Plus returns b matched also by keys: a letter one screen adds to a meaning (the
// consent screen copies on c, as its button says, as well as on y).
func Plus(b key.Binding, keys ...string) key.Binding {
	return Either(b, key.NewBinding(key.WithKeys(keys...)))
}
