// Package tui is elicitty's interactive terminal program: the servers pane, the Tools,
// Prompts, Resources, Log and Inbox tabs, the embedded answer screens (elicit/ui's form
// and elicit/consent's URL consent screen) and Bridge, the interactive elicit.Answerer.
//
// Run is the entry point:
//
//	err := tui.Run(ctx, tui.Options{Servers: servers, Connect: connect, Log: log, Opener: op})
//
// Connect must pass the Answerer it is given (the Bridge) to transport.Connect, wrapped
// in elicit.NewEngine, and the onEvent callback as transport.Options.OnEvent. With
// Options.Accessible, Run serves a line mode for screen readers instead.
//
// The package owns the program, its panes, keymap and styles. It validates nothing (the
// elicit engine does) and speaks no protocol (the transport does). Goroutines outside
// the program (SDK handlers, calls in flight) talk to it only through messages sent with
// Program.Send and through reply channels of capacity 1; no model field is touched
// outside Update, and Update and View do no I/O: calls, connections, log reads and URL
// opening run in commands.
package tui
