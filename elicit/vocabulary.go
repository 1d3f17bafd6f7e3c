package elicit

// Shape is one kind of property a requestedSchema may declare, as the specification's
// schema.ts spells them: a string, a single-select (enum or oneOf), a number or integer,
// a boolean, or a multi-select array.
type Shape string

// The property shapes of the form vocabulary.
const (
	ShapeString  Shape = "string"
	ShapeEnum    Shape = "enum"  // a string with enum (and the legacy enumNames)
	ShapeOneOf   Shape = "oneOf" // a string with titled oneOf choices
	ShapeNumber  Shape = "number"
	ShapeBoolean Shape = "boolean"
	ShapeArray   Shape = "array"
)

// KeywordStatus says where a keyword of the vocabulary comes from.
type KeywordStatus int

const (
	// InSpec keywords are in the specification's schema.ts.
	InSpec KeywordStatus = iota + 1
	// Extension keywords are not in schema.ts but honoured by elicitty at run time
	// (pattern: enforced when Go's regexp compiles it). The run-time parser accepts
	// them; the MCP Description lint, which checks declarations against the
	// specification, refuses them.
	Extension
)

// vocabularyTable is the one table of the elicitation form-schema vocabulary: the
// keywords each property shape allows besides title and description, which every
// shape allows. Package elicit (run time, lenient) and package desc (MCP Description
// lint, strict) both read it through ShapeKeywords.
var vocabularyTable = map[Shape]map[string]KeywordStatus{
	ShapeString:  {"type": InSpec, "minLength": InSpec, "maxLength": InSpec, "format": InSpec, "default": InSpec, "pattern": Extension},
	ShapeEnum:    {"type": InSpec, "enum": InSpec, "enumNames": InSpec, "default": InSpec},
	ShapeOneOf:   {"type": InSpec, "oneOf": InSpec, "default": InSpec},
	ShapeNumber:  {"type": InSpec, "minimum": InSpec, "maximum": InSpec, "default": InSpec},
	ShapeBoolean: {"type": InSpec, "default": InSpec},
	ShapeArray:   {"type": InSpec, "items": InSpec, "minItems": InSpec, "maxItems": InSpec, "default": InSpec},
}

// Shapes lists the property shapes of the vocabulary.
var Shapes = []Shape{ShapeString, ShapeEnum, ShapeOneOf, ShapeNumber, ShapeBoolean, ShapeArray}

// ShapeKeyword reports the status of keyword k in a property of shape s; 0 when the
// shape does not allow it. title and description are InSpec in every shape.
func ShapeKeyword(s Shape, k string) KeywordStatus {
	if k == "title" || k == "description" {
		return InSpec
	}
	return vocabularyTable[s][k]
}

// StringFormats are the string formats of the vocabulary (format); they are checked.
var StringFormats = map[string]bool{"email": true, "uri": true, "date": true, "date-time": true}

// secretFormats are non-standard formats servers use for secrets; they are accepted
// without a finding but mark the field secret.
var secretFormats = map[string]bool{"password": true, "secret": true, "token": true}

// shapeOf is the shape a parsed field of kind was declared as; oneOf tells a titled
// single-select from an enum. "" for kinds outside the vocabulary (raw JSON).
func shapeOf(kind Kind, oneOf bool) Shape {
	switch kind {
	case KindText:
		return ShapeString
	case KindNumber, KindInteger:
		return ShapeNumber
	case KindSelect:
		if oneOf {
			return ShapeOneOf
		}
		return ShapeEnum
	case KindMulti:
		return ShapeArray
	case KindBool:
		return ShapeBoolean
	}
	return ""
}
