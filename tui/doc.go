// Package tui is elicitty's interactive terminal program: the servers pane, the Tools,
// Prompts, Resources and Log tabs, the elicitation inbox, the embedded answer screens
// (forms and URL consent) and Bridge, the interactive elicit.Answerer.
//
// It owns the bubbletea program, its panes, keymap and styles. It validates nothing (the
// elicit engine does) and speaks no protocol (the transport does). Goroutines outside the
// program (SDK handlers, calls in flight) talk to it only through messages sent with
// Program.Send and through reply channels; no model field is touched outside Update.
package tui
