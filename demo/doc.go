// Package demo is elicitty's built-in demo MCP server: a go-sdk server whose
// tools, prompts and resources exercise every way a server asks the user for
// input, in both protocol eras.
//
// It owns the demo's tools (forms with every field kind, chained forms, a
// secret-asking form, N forms in a row, URL-mode consent, -32042, and the
// 2026-07-28 multi round-trip tools), the loopback listener that serves the
// consent pages, and the transports it serves on (stdio, Streamable HTTP in
// both eras, legacy HTTP+SSE). It does not own the client side: nothing here
// is imported by transport, elicit or tui.
//
// Every eliciting handler is written once, as straight-line code over an
// asker, and works in both eras: legacy clients get elicitation/create
// pushes; 2026-07-28 clients get input_required results whose signed
// requestState carries the answers so far, and the handler replays them on
// each retry.
package demo
