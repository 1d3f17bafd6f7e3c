package proxy

import (
	"encoding/json"
	"testing"
)

// callNameJSON is callName as it was written first, with encoding/json: the reference
// the one-pass reading must agree with.
func callNameJSON(params []byte) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Name != "" {
		return p.Name
	}
	return p.URI
}

func TestCallName(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{`{"name":"search","arguments":{"name":"inner"}}`, "search"},
		{`{"arguments":{"name":"inner"},"name":"search"}`, "search"},
		{`{"uri":"file:///a"}`, "file:///a"},
		{`{"name":"","uri":"file:///a"}`, "file:///a"},
		{`{"NAME":"upper"}`, "upper"},
		{`{"n\u0061me":"escaped"}`, "escaped"},
		{`{"name":"a","name":"b"}`, "b"},
		{`{"name":"a","name":5}`, "a"},
		{`{"name":null}`, ""},
		{`{"name":"caf\u00e9 \"x\""}`, `café "x"`},
		{` { "name" : "spaced" } `, "spaced"},
		{`[]`, ""},
		{`{}`, ""},
	} {
		if got, ref := callName([]byte(tc.params)), callNameJSON([]byte(tc.params)); got != tc.want || ref != tc.want {
			t.Errorf("callName(%s) = %q (encoding/json: %q), want %q", tc.params, got, ref, tc.want)
		}
	}
}

// FuzzCallName: for every valid JSON value, the one-pass callName reads what
// encoding/json reads.
func FuzzCallName(f *testing.F) {
	for _, s := range []string{`{"name":"search","arguments":{"q":[1,{"name":"x"}]}}`, `{"uri":"a","Uri":"b"}`, `{"n\u0061me":"\ud800"}`, `{"name":"\xff"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return
		}
		if got, want := callName(params), callNameJSON(params); got != want {
			t.Errorf("callName(%q) = %q, encoding/json reads %q", params, got, want)
		}
	})
}
