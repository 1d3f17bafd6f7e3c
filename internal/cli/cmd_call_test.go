package cli

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownArgsNameTheNearest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}}}`)
	for _, tc := range []struct {
		name   string
		schema any
		argv   map[string]any
		want   []string
	}{
		{"known", schema, map[string]any{"text": "a", "count": 1}, nil},
		{"typo", schema, map[string]any{"txt": "a", "Count": 2}, []string{
			`tool "t" has no argument "Count", sent anyway; did you mean "count"?`,
			`tool "t" has no argument "txt", sent anyway; did you mean "text"?`}},
		{"far", schema, map[string]any{"env": "prod"}, []string{`tool "t" has no argument "env", sent anyway (its arguments: count, text)`}},
		{"none", map[string]any{"type": "object"}, map[string]any{"env": "prod"}, []string{`tool "t" has no argument "env", sent anyway (it takes no arguments)`}},
		{"open", map[string]any{"type": "object", "additionalProperties": true}, map[string]any{"env": "prod"}, nil},
		{"unknown schema", nil, map[string]any{"env": "prod"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, unknownArgs("t", tc.argv, tc.schema)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
