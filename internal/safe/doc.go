// Package safe is the one place where text a server controls becomes text elicitty
// shows or writes. An MCP server is untrusted: any string it sends (names, titles,
// descriptions, messages, error messages, stderr lines, log notifications, URLs,
// cancel reasons) may carry terminal escape sequences (OSC 52 clipboard writes, OSC 8
// links, DCS queries the terminal answers into our input, title changes, screen
// clears), C1 controls, bidi overrides, zero-width characters, line separators or bare
// carriage returns meant to spoof lines.
//
// The package closes that class with a type and three choke points rather than with a
// call at every use:
//
//   - Text is server text in our own types (transport events, cancel reasons, stderr
//     tails, crash reasons). It has no String method and no exported field: the only
//     ways out are Line (one line: no newlines, tabs, separators or zero-width
//     characters) and Block (several lines); printing it with fmt yields Line. Server
//     text held as a Text cannot reach a writer, a view or an error unsanitized.
//   - Error wraps an error whose message may quote a server (a JSON-RPC error message,
//     a stderr tail, a crash reason) where that error is made: its Error is a
//     sanitized single line, and Unwrap keeps the cause for errors.Is/As.
//   - JSON and NewJSONWriter escape what JSON allows raw but a terminal must not see
//     (C1, DEL, bidi, zero-width, U+2028/U+2029) as \u escapes, so --json output and
//     the --log file stay valid and faithful and carry no raw control bytes.
//
// Strings a server sends inside go-sdk types (a tool's Name, a content block's Text)
// cannot be retyped; views and printers pass them through Block where they are
// rendered (text that is several lines by nature), Field (a one-line field such as a
// MIME type, URI or name: its line breaks shown escaped) or Line (a message folded
// onto one line), and the hostile-server tests scan the raw bytes of every output for
// anything that slipped through.
//
// Package safe imports nothing of elicitty's, so every layer can use it.
package safe
