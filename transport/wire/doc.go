// Package wire is elicitty's message log: a bounded ring of [Entry] values, one per
// JSON-RPC message sent or received, stderr line or note, with an optional JSONL sink.
//
// Readers poll [Log.Since] after a notification from [Log.Subscribe]; appending never
// blocks on them.
package wire
