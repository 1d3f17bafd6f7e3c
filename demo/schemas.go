package demo

import "encoding/json"

// The requested schemas are raw JSON so that their property order, which
// is deliberate, reaches the client as written.

// allKindsSchema has every field kind of the elicitation vocabulary, in an
// order that is neither alphabetical nor grouped by kind.
var allKindsSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Full name", "description": "As it should appear on your badge", "minLength": 2, "maxLength": 40, "default": "Ada Lovelace"},
    "seats": {"type": "integer", "title": "Seats", "description": "How many seats to book", "minimum": 1, "maximum": 12, "default": 2},
    "email": {"type": "string", "title": "Email", "format": "email"},
    "region": {"type": "string", "title": "Region", "oneOf": [
      {"const": "eu-west", "title": "Europe (Ireland)"},
      {"const": "us-east", "title": "US East (Virginia)"},
      {"const": "ap-south", "title": "Asia Pacific (Mumbai)"}
    ], "default": "eu-west"},
    "homepage": {"type": "string", "title": "Homepage", "format": "uri"},
    "budget": {"type": "number", "title": "Budget (EUR)", "minimum": 0.5, "maximum": 1000, "default": 99.5},
    "size": {"type": "string", "title": "T-shirt size", "enum": ["S", "M", "L", "XL"], "default": "M"},
    "birthday": {"type": "string", "title": "Birthday", "format": "date"},
    "tags": {"type": "array", "title": "Tags", "description": "Pick one to three", "items": {"type": "string", "enum": ["api", "db", "ui", "ops"]}, "minItems": 1, "maxItems": 3, "default": ["api"]},
    "subscribe": {"type": "boolean", "title": "Subscribe to the newsletter", "default": true},
    "color": {"type": "string", "title": "Favourite colour", "enum": ["r", "g", "b"], "enumNames": ["Red", "Green", "Blue"]},
    "meeting": {"type": "string", "title": "Meeting time", "format": "date-time"},
    "features": {"type": "array", "title": "Features", "items": {"anyOf": [
      {"const": "sso", "title": "Single sign-on"},
      {"const": "audit", "title": "Audit log"},
      {"const": "backup", "title": "Nightly backups"}
    ]}, "minItems": 0, "maxItems": 2}
  },
  "required": ["name", "email", "seats", "region", "tags"]
}`)

var deployEnvSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "env": {"type": "string", "title": "Environment", "oneOf": [
      {"const": "dev", "title": "Development"},
      {"const": "staging", "title": "Staging"},
      {"const": "prod", "title": "Production"}
    ], "default": "staging"}
  },
  "required": ["env"]
}`)

var deployConfirmSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10, "default": 2},
    "confirm": {"type": "boolean", "title": "Deploy now?", "default": false}
  },
  "required": ["confirm"]
}`)

var emptySchema = json.RawMessage(`{"type": "object", "properties": {}}`)

var secretSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "api_token": {"type": "string", "title": "API token", "description": "Your personal API token for the demo service", "minLength": 8}
  },
  "required": ["api_token"]
}`)

var nthSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "answer": {"type": "string", "title": "Answer", "default": "ok"}
  }
}`)

var colorSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "color": {"type": "string", "title": "Colour", "oneOf": [
      {"const": "red", "title": "Red"},
      {"const": "green", "title": "Green"},
      {"const": "blue", "title": "Blue"}
    ]}
  },
  "required": ["color"]
}`)

var nameSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"name": {"type": "string", "title": "Your name", "minLength": 1}},
  "required": ["name"]
}`)

var ageSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150}},
  "required": ["age"]
}`)

var okSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"ok": {"type": "boolean", "title": "Is that right?", "default": true}},
  "required": ["ok"]
}`)

var citySchema = json.RawMessage(`{
  "type": "object",
  "properties": {"city": {"type": "string", "title": "City", "minLength": 1}},
  "required": ["city"]
}`)

var daysSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"days": {"type": "integer", "title": "Days", "minimum": 1, "maximum": 30, "default": 3}},
  "required": ["days"]
}`)

var topicSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"topic": {"type": "string", "title": "Topic", "enum": ["autumn", "the sea", "terminals"], "default": "terminals"}},
  "required": ["topic"]
}`)

var sectionSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"section": {"type": "string", "title": "Section", "oneOf": [
    {"const": "intro", "title": "Introduction"},
    {"const": "usage", "title": "Usage"}
  ], "default": "intro"}},
  "required": ["section"]
}`)

// Tool input schemas.
var (
	noArgs      = json.RawMessage(`{"type": "object", "properties": {}}`)
	deployArgs  = json.RawMessage(`{"type": "object", "properties": {"service": {"type": "string", "description": "Service to deploy (default \"api\")"}}}`)
	elicitNArgs = json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many forms to ask in a row"}}, "required": ["n"]}`)
)
