// Package transport turns a config.Server into a live MCP session over stdio,
// Streamable HTTP or legacy HTTP+SSE, on top of go-sdk.
//
// It runs the stdio server through package process (stderr to the log, shutdown by
// closing stdin, then SIGTERM, then SIGKILL to its whole process group, which gets the
// SIGKILL even when the server itself exited and left a child behind) and skips its
// non-JSON stdout lines, reads messages with package jsonrpcio, taps every JSON-RPC
// message into a [wire.Log], and hosts the three places where a server asks the user something: the
// elicitation/create middleware (2025-06-18, 2025-11-25), the multi round-trip driver
// (2026-07-28 input_required) and the -32042 URL-required driver. Each builds an
// elicit.Request, hands it to the configured elicit.Answerer and writes back what comes
// out.
//
// # Tasks
//
// In 2025-11-25 a tool whose execution.taskSupport is required runs as a task
// (CallToolTask): tasks/get is polled, tasks/result fetched, and the questions the task
// asks arrive as pushed elicitation/create like any other. We declare
// tasks.requests.elicitation.create (and sampling.createMessage with sampling) and serve
// tasks/get, tasks/result, tasks/list and tasks/cancel for the requests a server makes
// tasks of (taskserve.go). In 2026-07-28 the tasks extension lets a server
// turn a tools/call into a task, polled by CallTool (tasks26.go).
//
// # Timeouts
//
// Each request is bounded by config.Server.Timeout (DefaultTimeout) of idle time: each
// progress notification that carries the request's own progress token starts it over
// (progress with any other token keeps nothing alive), and the handshake has its own
// config.Server.HandshakeTimeout (DefaultHandshakeTimeout). The timer stands still while any
// Answerer call of the session is running, so a legacy tools/call that waits on a form
// does not time out under the user; each MRTR retry gets a fresh budget. The polling of
// a task of ours (one loop, pollTask, with a step per era) is bounded in all by
// Options.TaskWait (DefaultTaskWait), and every listing by maxListPages and
// maxListItems.
//
// # Lost HTTP sessions
//
// A Streamable HTTP server that restarted answers 404 to the old Mcp-Session-Id; the
// request's session is then re-initialized once, the request sent again, and an
// EventReconnected reports it.
//
// # -32042 retries
//
// After the user accepts every entry of a -32042 error, the call waits for the server's
// notifications/elicitation/complete for each elicitationId, then retries under a new id.
// Options.RetryNow (per entry, e.g. an answers file's "retry: now") and Session.RetryNow
// (interactive) skip the wait; Options.URLWait bounds it. A URL named more than three
// times, more than eight -32042 errors in one call (across elicitationIds) or more than
// sixteen URL entries end the call with an error wrapping elicit.ErrUnanswered. Retries
// after the first back off (100 ms doubling to 2 s), and with a request timeout the
// chain's own time (outside prompts and completion waits) is bounded by it.
package transport
