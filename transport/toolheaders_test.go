package transport

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHeaderProblem covers the invalid annotations of SEP-2243 (the cases of the
// conformance suite's http-invalid-tool-headers) and the valid ones around them.
func TestHeaderProblem(t *testing.T) {
	tests := []struct {
		schema, want string // want: a word of the problem, "" for valid
	}{
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, ""},
		{`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}}}`, ""},
		{`{"type":"object","properties":{"plain":{"type":"number"}}}`, ""},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}`, "empty"},
		{`{"type":"object","properties":{"d":{"type":"object","x-mcp-header":"Data"}}}`, "not a string, integer or boolean"},
		{`{"type":"object","properties":{"i":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}}`, "not a string, integer or boolean"},
		{`{"type":"object","properties":{"z":{"type":"null","x-mcp-header":"Nil"}}}`, "not a string, integer or boolean"},
		{`{"type":"object","properties":{"s":{"type":"number","x-mcp-header":"Score"}}}`, "not a string, integer or boolean"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`, "the same"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`, "the same"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}}`, "not a valid header name"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Region:Primary"}}}`, "not a valid header name"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Région"}}}`, "not a valid header name"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Bad\u0001"}}}`, "not a valid header name"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":7}}}`, "not a string"},
	}
	for _, tt := range tests {
		got := headerProblem(json.RawMessage(tt.schema))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("headerProblem(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}
