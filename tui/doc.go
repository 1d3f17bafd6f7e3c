// Package tui is elicitty's interactive terminal program: the servers pane, the Tools,
// Prompts, Resources, Log and Inbox tabs, the embedded answer screens (tui/form's form
// and tui/consent's URL consent screen) and Bridge, the interactive elicit.Answerer.
//
// Run is the entry point:
//
//	err := tui.Run(ctx, tui.Options{Servers: servers, Connect: connect, Log: log, Opener: op})
//
// Connect must pass the Answerer it is given (the Bridge) to transport.Connect, wrapped
// in elicit.NewEngine, and the onEvent callback as transport.Options.OnEvent; for HTTP
// servers it passes the Bridge as the oauth.Browser of transport.Options.OAuth, so that
// a server needing a sign-in shows "sign-in needed" in the servers pane and l signs in
// through the URL consent screen. With Options.Accessible, Run serves a line mode for
// screen readers instead.
//
// Key t opens the Tasks view: the tasks of every server that implements taskSession
// (transport.Session does), re-read with tasks/list on enter; x cancels one.
//
// "Open in browser" runs the Opener before the answer: when it fails the consent screen
// stays open (consent.Model.OpenFailed) to say why and offer the link itself. A URL flow
// the user consented to is shown on the waiting screen (consent.Waiting, see waiting.go)
// and listed in the Inbox until the server completes it, its call retries or ends: r or
// n is "retry now" (transport.Session.RetryNow), c or x cancels the originating call
// (the waiting screen asks first) and esc goes back, the flow still waiting.
// A 2026-07-28 link that comes back in a later round (elicit.Request.Repeat) is not
// reopened: the same waiting screen, as a request, offers retry, reopen and cancel.
//
// What opens over the tabs (a request, an argument form, the trust, roots, waiting and
// Tasks screens, the full help, a description, a server's details, a filter being
// typed) is a screen on one stack (screens.go): the top screen gets each key first and
// leaves the ones it does not use to the screen below, the tabs last; closing a screen
// shows what was under it. A question that arrives opens over whatever is open, unless
// a request or form is open or it is a proxy's (those wait in the Inbox); while a
// filter is being typed it waits for the filter to end.
//
// The package owns the program, its panes and styles; the key map is tui/keymap's. It validates nothing (the
// elicit engine does) and speaks no protocol (the transport does). Goroutines outside
// the program (SDK handlers, calls in flight) talk to it only through messages sent with
// Program.Send and through reply channels of capacity 1; no model field is touched
// outside Update, and Update and View do no I/O: calls, connections, log reads and URL
// opening run in commands.
package tui
