// Package protocol names the MCP protocol versions elicitty knows. It is a leaf every
// layer may import (config, elicit, transport, the commands), so a version string is
// written in one place.
package protocol

// The MCP protocol versions, by release date. elicitty speaks the last three.
const (
	// Version20241105 and Version20250326 predate elicitation; MCP Description files
	// may still name them.
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	// Version20250618 introduced elicitation: form mode only, a bare capability.
	Version20250618 = "2025-06-18"
	// Version20251125 added URL mode, -32042 and elicitation modes in the capability.
	Version20251125 = "2025-11-25"
	// Version20260728 replaced server-pushed requests by multi round-trip results
	// (input_required) and added server/discover and per-request metadata.
	Version20260728 = "2026-07-28"
)

// Supported returns the versions elicitty speaks, oldest first.
func Supported() []string {
	return []string{Version20250618, Version20251125, Version20260728}
}

// All returns every version in this package, oldest first.
func All() []string {
	return []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}
}

// IsSupported reports whether v is a version elicitty speaks.
func IsSupported(v string) bool {
	for _, s := range Supported() {
		if v == s {
			return true
		}
	}
	return false
}
