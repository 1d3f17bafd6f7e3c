// Package elicit is elicitty's elicitation engine. It owns the typed request and answer
// (Request, Response, the Answerer interface), the parse of a requestedSchema into a
// typed Form in server property order with lint findings for the negotiated protocol
// version (Parse), the defaults preflight and merge (Form.Merge), validation of accepted
// content (Form.Check, Field.CheckValue, Field.ParseText), the Engine that checks
// requests and runs merge and validation around any Answerer, the answers-file Script,
// the Recorder that writes one, and AutoAccept. Server text is cleaned with package
// internal/safe.
// Sampling requests a person answers (sampling/createMessage) travel the same way, as
// Requests of ModeSampling: their model (Sampling, ParseSampling, SampleReply), their
// answers-file entries (kind: sampling) and the Drafter that asks a configured command
// for a draft reply live here too.
//
// It does not own the terminal UI (package tui and its tui/form), URL analysis
// (elicit/urlsafe), consent (tui/consent), MCP Description lint (elicit/desc) or any
// transport: transport builds Requests and turns a *ViolationsError into -32602.
package elicit
