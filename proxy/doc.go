// Package proxy relays one MCP host's session to one server and answers, in the
// user's terminal, the questions the host cannot: `elicitty proxy`.
//
// To the host the proxy is the server (newline-delimited JSON-RPC on stdio); to the
// server it is the client, over stdio (Stdio: lines relayed byte for byte) or
// Streamable HTTP (HTTP). Every message passes through unchanged (ids, _meta,
// progress, cancellation, list_changed, sampling, roots and ping) except:
//
//   - the host's elicitation capability: when the host's initialize (2025 eras) or a
//     2026-07-28 request's own declaration lacks form or URL mode, the proxy adds it
//     (the only host message it edits) and answers those questions itself;
//   - a server's elicitation/create of a mode the proxy answers: answered under the
//     same id and never shown to the host; the server's notifications/cancelled for it
//     cancels the question;
//   - a -32042 error to a host request: consent for each entry, the
//     notifications/elicitation/complete of each accepted one awaited (and consumed),
//     or the user's "retry now" on the inbox's waiting screen (Options.Waits), then the
//     host's request sent again under the host's id, so the host sees only the final
//     result; declined, cancelled or timed out, the error goes to the host unchanged;
//   - a 2026-07-28 input_required result whose input requests are elicitations: they
//     are answered and the request sent again with inputResponses and requestState.
//     A round with input requests of other kinds (sampling, roots) goes to the host.
//
// With Options.AnswerHere the proxy answers every elicitation even when the host
// declared the mode. A host's notifications/cancelled for a call nobody is asked about
// stops the proxy's work on it and is passed on. A call a person is asked about
// outlives the host's cancellation: the host's identical next call joins it (the tool
// runs once), and host requests waiting for it that carry a progressToken get
// notifications/progress (keep.go). A host's response to a server request the proxy
// answers is refused.
//
// Questions go to an elicit.Answerer wrapped in an elicit.Engine; each Answer call is
// bounded by Options.Wait, past which the question is cancelled and the log says so.
// The proxy writes nothing to the host but JSON-RPC (a server line that is neither a
// JSON-RPC object nor a batch is dropped; bytes that are not UTF-8 become U+FFFD); its
// log lines are single safe lines of at most 2000 bytes naming methods and tools only,
// never a message's contents.
//
// It does not translate between protocol eras: host and server speak the same one.
package proxy
