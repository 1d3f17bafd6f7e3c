package elicit

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const mergeSchema = `{"type":"object","properties":{
	"env":{"type":"string","default":"dev"},
	"replicas":{"type":"integer","default":2},
	"debug":{"type":"boolean","default":true},
	"ratio":{"type":"number","default":0.5},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a"]},
	"note":{"type":"string"}}}`

func TestMerge(t *testing.T) {
	f := Parse(json.RawMessage(mergeSchema), v11)
	tests := []struct {
		name    string
		content map[string]any
		want    map[string]any
	}{
		{
			name:    "guide example: user input plus defaults",
			content: map[string]any{"env": "prod"},
			want:    map[string]any{"env": "prod", "replicas": int64(2), "debug": true, "ratio": 0.5, "tags": []string{"a"}},
		},
		{
			name:    "zero values win",
			content: map[string]any{"env": "", "replicas": float64(0), "debug": false, "ratio": float64(0), "tags": []any{}},
			want:    map[string]any{"env": "", "replicas": float64(0), "debug": false, "ratio": float64(0), "tags": []any{}},
		},
		{
			name:    "explicit null stays",
			content: map[string]any{"env": nil, "replicas": nil, "debug": nil, "ratio": nil, "tags": nil},
			want:    map[string]any{"env": nil, "replicas": nil, "debug": nil, "ratio": nil, "tags": nil},
		},
		{
			name:    "accept without content gets the defaults",
			content: nil,
			want:    map[string]any{"env": "dev", "replicas": int64(2), "debug": true, "ratio": 0.5, "tags": []string{"a"}},
		},
		{
			name:    "unknown keys pass through",
			content: map[string]any{"extra": 1.0, "env": "x", "replicas": 3.0, "debug": true, "ratio": 1.0, "tags": []any{"b"}},
			want:    map[string]any{"extra": 1.0, "env": "x", "replicas": 3.0, "debug": true, "ratio": 1.0, "tags": []any{"b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before map[string]any
			if tt.content != nil {
				before = map[string]any{}
				for k, v := range tt.content {
					before[k] = v
				}
			}
			got := f.Merge(tt.content)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.content); diff != "" {
				t.Errorf("Merge modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestMergeNoDefaultsKeepsNil(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), v11)
	if got := f.Merge(nil); got != nil {
		t.Errorf("Merge(nil) = %v, want nil (accept carries no content)", got)
	}
	if vs := f.Check(nil); vs != nil {
		t.Errorf("Check(nil) = %v, want valid {}", vs)
	}
}

func TestMergeDefaultIsNotShared(t *testing.T) {
	f := Parse(json.RawMessage(mergeSchema), v11)
	got := f.Merge(nil)
	got["tags"].([]string)[0] = "mutated"
	if d := f.Fields[4].Default.([]string)[0]; d != "a" {
		t.Errorf("form default changed to %q through the merged content", d)
	}
}

const checkSchema = `{"type":"object","properties":{
	"name":{"type":"string","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"day":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"},
	"n":{"type":"integer","minimum":1,"maximum":10},
	"x":{"type":"number","minimum":-1.5,"maximum":1.5},
	"ok":{"type":"boolean"},
	"env":{"type":"string","enum":["dev","prod"]},
	"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2},
	"ttags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}},
	"a/b~c":{"type":"string"},
	"raw":{"type":"object"}
	},"required":["name","n"]}`

func TestCheck(t *testing.T) {
	f := Parse(json.RawMessage(checkSchema), v11)
	ok := map[string]any{"name": "ada", "n": int64(3)}
	with := func(k string, v any) map[string]any {
		c := map[string]any{"name": "ada", "n": int64(3)}
		c[k] = v
		return c
	}
	tests := []struct {
		name    string
		content map[string]any
		want    []Violation
	}{
		{"valid minimal", ok, nil},
		{"required points at the missing member", map[string]any{}, []Violation{
			{"/name", "required", "is required"}, {"/n", "required", "is required"}}},
		{"explicit null fails type", with("name", nil), []Violation{{"/name", "type", "must be a string, not null"}}},
		{"too short in code points", with("name", "é"), []Violation{{"/name", "minLength", "must be at least 2 characters long"}}},
		{"five code points is not too long", with("name", "ééééé"), nil},
		{"too long", with("name", "abcdef"), []Violation{{"/name", "maxLength", "must be at most 5 characters long"}}},
		{"email", with("email", "a@example.com"), nil},
		{"bad email", with("email", "not an email"), []Violation{{"/email", "format", "must be an email address"}}},
		{"uri", with("site", "https://example.com/x?y"), nil},
		{"relative uri", with("site", "/x"), []Violation{{"/site", "format", "must be an absolute URI"}}},
		{"date", with("day", "2024-02-29"), nil},
		{"bad date", with("day", "2023-02-29"), []Violation{{"/day", "format", "must be a date (YYYY-MM-DD)"}}},
		{"date-time", with("at", "2025-01-31T09:30:00+01:00"), nil},
		{"bad date-time", with("at", "2025-01-31 09:30"), []Violation{{"/at", "format", "must be a date-time (RFC 3339, e.g. 2025-01-31T09:30:00Z)"}}},
		{"pattern", with("code", "ABC"), nil},
		{"pattern fails", with("code", "abc"), []Violation{{"/code", "pattern", `must match the pattern "^[A-Z]{3}$"`}}},
		{"integer as whole float64", with("n", 2.0), nil},
		{"integer 2.5", with("n", 2.5), []Violation{{"/n", "type", "must be a whole number, not 2.5"}}},
		{"integer as string", with("n", "3"), []Violation{{"/n", "type", "must be an integer, not a string"}}},
		{"above maximum", with("n", 11.0), []Violation{{"/n", "maximum", "must be at most 10"}}},
		{"below minimum", with("n", int64(0)), []Violation{{"/n", "minimum", "must be at least 1"}}},
		{"number bounds", with("x", -1.6), []Violation{{"/x", "minimum", "must be at least -1.5"}}},
		{"number as json.Number", with("x", json.Number("1.5")), nil},
		{"boolean", with("ok", "yes"), []Violation{{"/ok", "type", "must be a boolean, not a string"}}},
		{"enum", with("env", "db"), []Violation{{"/env", "enum", `"db" is not an allowed choice`}}},
		{"oneOf is one entry", with("color", "b"), []Violation{{"/color", "oneOf", `"b" is not an allowed choice`}}},
		{"oneOf by const", with("color", "g"), nil},
		{"items membership path", with("tags", []any{"a", "db"}), []Violation{{"/tags/1", "enum", `"db" is not an allowed choice`}}},
		{"items as []string", with("tags", []string{"a", "b"}), nil},
		{"minItems", with("tags", []any{}), []Violation{{"/tags", "minItems", "must have at least 1 choice"}}},
		{"maxItems", with("tags", []string{"a", "b", "c"}), []Violation{{"/tags", "maxItems", "must have at most 2 choices"}}},
		{"items not strings", with("tags", []any{1.0}), []Violation{{"/tags/0", "type", "must be a string, not a number"}}},
		{"array expected", with("tags", "a"), []Violation{{"/tags", "type", "must be an array of strings, not a string"}}},
		{"anyOf item keyword", with("ttags", []any{"z"}), []Violation{{"/ttags/0", "anyOf", `"z" is not an allowed choice`}}},
		{"pointer escaping", with("a/b~c", 1.0), []Violation{{"/a~1b~0c", "type", "must be a string, not a number"}}},
		{"raw type", with("raw", []any{}), []Violation{{"/raw", "type", "must be object, not an array"}}},
		{"raw ok", with("raw", map[string]any{"k": 1.0}), nil},
		{"unknown keys allowed", with("zzz", 1.0), nil},
		{"several in field order", map[string]any{"n": 99.0, "env": "x", "name": "a"}, []Violation{
			{"/name", "minLength", "must be at least 2 characters long"},
			{"/n", "maximum", "must be at most 10"},
			{"/env", "enum", `"x" is not an allowed choice`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, f.Check(tt.content)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckAfterMergeDefaultSatisfiesRequired(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"env":{"type":"string","default":"dev"}},"required":["env"]}`), v11)
	if vs := f.Check(f.Merge(nil)); vs != nil {
		t.Errorf("Check(Merge(nil)) = %v, want valid", vs)
	}
}

func TestCheckUnvalidatableSkips(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"a":{"type":42}},"required":["a"]}`), v11)
	if vs := f.Check(map[string]any{}); vs != nil {
		t.Errorf("Check = %v, want nil for an unvalidatable schema", vs)
	}
}

func TestCheckUnknownRequiredIgnored(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{},"required":["ghost"]}`), v11)
	if vs := f.Check(nil); vs != nil {
		t.Errorf("Check = %v, want unknown required names ignored", vs)
	}
}

func TestParseText(t *testing.T) {
	f := Parse(json.RawMessage(checkSchema), v11)
	field := func(name string) Field {
		for _, fl := range f.Fields {
			if fl.Name == name {
				return fl
			}
		}
		t.Fatalf("no field %q", name)
		return Field{}
	}
	tests := []struct {
		field, in string
		want      any
		wantErr   bool
	}{
		{"name", " ada ", " ada ", false},
		{"n", "42", int64(42), false},
		{"n", "2.0", int64(2), false},
		{"n", "2.5", nil, true},
		{"n", "1e20", nil, true},
		{"n", "NaN", nil, true},
		{"n", "x", nil, true},
		{"x", "-1.25", -1.25, false},
		{"x", "Inf", nil, true},
		{"ok", "y", true, false},
		{"ok", "No", false, false},
		{"ok", "maybe", nil, true},
		{"env", "prod", "prod", false},
		{"color", "green", "g", false},
		{"color", "blue", nil, true},
		{"tags", "a, c", []string{"a", "c"}, false},
		{"tags", "", []string{}, false},
		{"tags", "a,z", nil, true},
		{"raw", `{"k":[1,true]}`, map[string]any{"k": []any{1.0, true}}, false},
		{"raw", `{`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.field+"/"+tt.in, func(t *testing.T) {
			got, err := field(tt.field).ParseText(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseText(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseText(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCheckRawFields(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{
		"addr":{"type":"object","properties":{"city":{"type":"string","minLength":1},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["city"]},
		"hosts":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer","maximum":65535}},"required":["port"]},"maxItems":2},
		"any":{},
		"maybe":{"type":["string","null"],"enum":["x",null]}}}`), v11)
	tests := []struct {
		name    string
		content map[string]any
		want    []Violation
	}{
		{"valid", map[string]any{"addr": map[string]any{"city": "Oslo", "zip": "01234"}, "hosts": []any{map[string]any{"port": 22.0}}, "any": []any{1.0}, "maybe": nil}, nil},
		{"nested required and pattern", map[string]any{"addr": map[string]any{"zip": "x"}}, []Violation{
			{"/addr/city", "required", "is required"}, {"/addr/zip", "pattern", `must match the pattern "^[0-9]{5}$"`}}},
		{"array of objects", map[string]any{"hosts": []any{map[string]any{}, map[string]any{"port": 70000.0}, map[string]any{"port": 1.5}}}, []Violation{
			{"/hosts", "maxItems", "must have at most 2 items"}, {"/hosts/0/port", "required", "is required"},
			{"/hosts/1/port", "maximum", "must be at most 65535"}, {"/hosts/2/port", "type", "must be integer, not a number"}}},
		{"union and enum", map[string]any{"maybe": "y"}, []Violation{{"/maybe", "enum", `"y" is not an allowed choice`}}},
		{"union type", map[string]any{"maybe": 1.0}, []Violation{{"/maybe", "type", "must be string or null, not a number"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, f.Check(tt.content)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
