package desc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/elicit"
)

// TestVocabularyAgreesWithRuntime checks the MCP Description lint and the run-time
// parser against the one vocabulary table: for every property shape and keyword, the
// run time accepts the keyword (no unsupported-keyword finding) exactly when the table
// lists it, the lint accepts it exactly when the table says it is in the
// specification, and the only keywords they disagree on are the table's extensions.
func TestVocabularyAgreesWithRuntime(t *testing.T) {
	base := map[elicit.Shape]map[string]any{
		elicit.ShapeString:  {"type": "string"},
		elicit.ShapeEnum:    {"type": "string", "enum": []any{"a"}},
		elicit.ShapeOneOf:   {"type": "string", "oneOf": []any{map[string]any{"const": "a", "title": "A"}}},
		elicit.ShapeNumber:  {"type": "number"},
		elicit.ShapeBoolean: {"type": "boolean"},
		elicit.ShapeArray:   {"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a"}}},
	}
	values := map[string]any{
		"title": "T", "description": "D", "default": nil, "minLength": 1, "maxLength": 3, "format": "email",
		"pattern": "^a$", "enumNames": []any{"A"}, "minimum": 0, "maximum": 9, "minItems": 0, "maxItems": 1,
		"const": "a", "$ref": "#/x", "multipleOf": 2, "uniqueItems": true, "examples": []any{"a"},
	}
	for _, shape := range elicit.Shapes {
		for k, v := range values {
			if _, ok := base[shape][k]; ok {
				continue
			}
			prop := map[string]any{}
			for bk, bv := range base[shape] {
				prop[bk] = bv
			}
			if k == "default" {
				continue // every shape allows it; its value is checked elsewhere
			}
			prop[k] = v
			schema, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"p": prop}})
			if err != nil {
				t.Fatal(err)
			}
			status := elicit.ShapeKeyword(shape, k)

			runtimeOK := true
			for _, f := range elicit.Parse(schema, "2025-11-25").Findings {
				if f.Code == elicit.CodeUnsupportedKeyword && strings.HasSuffix(f.Path, "/"+k) {
					runtimeOK = false
				}
			}
			n, lerr := loadJSON(schema, 64)
			if lerr != nil {
				t.Fatal(lerr)
			}
			lintOK := true
			p, _ := n.Get("properties")
			pn, _ := p.Get("p")
			property(pn, nil, func(_ Location, path Path, format string, args ...any) {
				if len(path) > 0 && path[len(path)-1].Key == k && strings.Contains(fmt.Sprintf(format, args...), "not allowed") {
					lintOK = false
				}
			})

			name := fmt.Sprintf("%s property with %s", shape, k)
			if runtimeOK != (status != 0) {
				t.Errorf("%s: run time accepts it = %v, but the table says %v", name, runtimeOK, status)
			}
			if lintOK != (status == elicit.InSpec) {
				t.Errorf("%s: lint accepts it = %v, but the table says %v", name, lintOK, status)
			}
		}
	}
}
