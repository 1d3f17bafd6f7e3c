package elicit

import "github.com/elicitty/elicitty/protocol"

// vocabulary is the form-schema vocabulary of one protocol version (docs/protocol.md, "Form schemas").
type vocabulary struct {
	// legacy is the 2025-06-18 vocabulary: defaults only on booleans, no titled
	// single-select, no multi-select, no $schema.
	legacy bool
}

// vocabularyOf returns the vocabulary of a negotiated protocol version. Versions before
// 2025-11-25 use the 2025-06-18 vocabulary; 2025-11-25, 2026-07-28, later and unknown
// (empty) versions use the current one.
func vocabularyOf(version string) vocabulary {
	return vocabulary{legacy: version != "" && version < protocol.Version20251125}
}
