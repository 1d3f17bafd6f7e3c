package elicit

import (
	"encoding/json"
	"fmt"

	"github.com/elicitty/elicitty/internal/safe"
)

// Kind is the kind of one form field.
type Kind int

// Field kinds. KindRaw is a property we cannot render natively (nested object, array of
// objects, unknown type): it is answered as raw JSON with its own validation.
const (
	KindText Kind = iota
	KindNumber
	KindInteger
	KindBool
	KindSelect
	KindMulti
	KindRaw
	// KindFile is a file input (SEP-2356, behind ParseOptions.FileInputs): a data URI,
	// or a list of them when File.Multi.
	KindFile
)

// Option is one choice of a single- or multi-select field.
type Option struct {
	// Value is the wire value (the enum member or const).
	Value string
	// Label is the title, enumNames entry or, failing those, the value.
	Label string
}

// Field is one property of a requestedSchema, in server order.
type Field struct {
	Name        string
	Title       string
	Description string
	Kind        Kind
	Required    bool
	// Format is the string format (email, uri, date, date-time) or "".
	Format string
	// MinLength/MaxLength (code points), Minimum/Maximum, MinItems/MaxItems; nil when absent.
	MinLength, MaxLength *int
	Minimum, Maximum     *float64
	MinItems, MaxItems   *int
	// Pattern is a string pattern that Go's regexp compiles, or "".
	Pattern string
	// Options are the choices of KindSelect and KindMulti.
	Options []Option
	// Default is the validated default (string, float64, int64, bool or []string), or nil.
	Default any
	// Secret reports a field that looks like a password, token, key or card number.
	Secret bool
	// Raw is the property schema as sent.
	Raw json.RawMessage
	// File describes a KindFile field; nil for the other kinds.
	File *FileSpec
}

// Form is a parsed requestedSchema. An empty Fields slice is a confirm-only form.
type Form struct {
	Fields []Field
	// Findings are lint findings about the schema (shown as warnings, never fatal).
	Findings []Finding
	// Unvalidatable is true when the schema is malformed and validation is skipped.
	Unvalidatable bool
	// ExtraKeys is true when the schema allows keys it does not list (additionalProperties
	// true or a schema). Without it an answers file's unknown content key is an error.
	ExtraKeys bool
}

// Severity of a lint finding.
type Severity int

// Lint severities.
const (
	SevWarning Severity = iota
	SevError
)

// String is the finding as one line for a terminal or a CI log:
// "warning: /properties/n/default: MESSAGE [code]", the message sanitized.
func (f Finding) String() string {
	sev := "warning"
	if f.Severity == SevError {
		sev = "error"
	}
	return fmt.Sprintf("%s: %s: %s [%s]", sev, safe.Block(f.Path), safe.Block(f.Message), f.Code)
}

// Finding is one lint finding about a requestedSchema.
type Finding struct {
	// Path is a JSON Pointer into the schema, e.g. "/properties/env/default".
	Path     string
	Code     string
	Severity Severity
	Message  string
}
