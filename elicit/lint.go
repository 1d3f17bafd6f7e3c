package elicit

import "github.com/elicitty/elicitty/protocol"

// vocabulary is the form-schema vocabulary of one protocol version (PROTOCOL.md §3).
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

// knownFormats are the string formats of the vocabulary; they are checked.
var knownFormats = map[string]bool{"email": true, "uri": true, "date": true, "date-time": true}

// secretFormats are non-standard formats servers use for secrets; they are accepted
// without a finding but mark the field secret.
var secretFormats = map[string]bool{"password": true, "secret": true, "token": true}

// allowedKeyword reports whether keyword k belongs to the vocabulary of a field of kind.
func allowedKeyword(kind Kind, k string) bool {
	switch k {
	case "type", "title", "description", "default":
		return true
	}
	switch kind {
	case KindText:
		return k == "minLength" || k == "maxLength" || k == "format" || k == "pattern"
	case KindNumber, KindInteger:
		return k == "minimum" || k == "maximum"
	case KindSelect:
		return k == "enum" || k == "enumNames" || k == "oneOf"
	case KindMulti:
		return k == "items" || k == "minItems" || k == "maxItems"
	}
	return false
}
