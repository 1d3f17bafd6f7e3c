// Package jsonrpcio reads JSON-RPC messages off the wire for the transport and the relay
// (proxy): newline-delimited frames of at most MaxFrame bytes (LineReader), the id of a
// frame too large to read (FrameID), and the envelope of one message (ParseEnvelope:
// kind, method, id and the raw params, result or error, in one pass over the bytes, so
// that go-sdk decodes each message in full only once). Scanner walks valid JSON for
// callers that pick members out of params and results the same way.
package jsonrpcio
