package elicit

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ptr[T any](v T) *T { return &v }

// fieldCmp ignores Raw, which is checked separately.
var fieldCmp = cmpopts.IgnoreFields(Field{}, "Raw")

const v06, v11, v26 = "2025-06-18", "2025-11-25", "2026-07-28"

func TestParseFields(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		proto  string
		want   []Field
	}{
		{
			name:   "empty schema is a confirm form",
			schema: `{}`,
			want:   nil,
		},
		{
			name:   "object without properties is a confirm form",
			schema: `{"type":"object"}`,
			want:   nil,
		},
		{
			name:   "server order is kept, not alphabetical",
			schema: `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"number"}}}`,
			want: []Field{
				{Name: "zeta", Kind: KindText},
				{Name: "alpha", Kind: KindBool},
				{Name: "mid", Kind: KindNumber},
			},
		},
		{
			name: "text with title, description, lengths, format, pattern, default",
			schema: `{"type":"object","properties":{"email":{"type":"string","title":"E-mail","description":"Where we write",
				"minLength":3,"maxLength":64,"format":"email","pattern":"@","default":"a@b.example"}},"required":["email"]}`,
			want: []Field{{Name: "email", Title: "E-mail", Description: "Where we write", Kind: KindText, Required: true,
				MinLength: ptr(3), MaxLength: ptr(64), Format: "email", Pattern: "@", Default: "a@b.example"}},
		},
		{
			name:   "number and integer with bounds and defaults",
			schema: `{"type":"object","properties":{"ratio":{"type":"number","minimum":0.5,"maximum":2,"default":1.5},"n":{"type":"integer","minimum":1,"maximum":10,"default":2.0}}}`,
			want: []Field{
				{Name: "ratio", Kind: KindNumber, Minimum: ptr(0.5), Maximum: ptr(2.0), Default: 1.5},
				{Name: "n", Kind: KindInteger, Minimum: ptr(1.0), Maximum: ptr(10.0), Default: int64(2)},
			},
		},
		{
			name:   "boolean default",
			schema: `{"type":"object","properties":{"ok":{"type":"boolean","default":false}}}`,
			want:   []Field{{Name: "ok", Kind: KindBool, Default: false}},
		},
		{
			name:   "untitled enum",
			schema: `{"type":"object","properties":{"env":{"type":"string","enum":["dev","prod"],"default":"prod"}}}`,
			want:   []Field{{Name: "env", Kind: KindSelect, Options: []Option{{"dev", "dev"}, {"prod", "prod"}}, Default: "prod"}},
		},
		{
			name:   "legacy enum with enumNames",
			schema: `{"type":"object","properties":{"env":{"type":"string","enum":["dev","staging","prod"],"enumNames":["Development","Staging","Production"],"default":"dev"}}}`,
			want: []Field{{Name: "env", Kind: KindSelect, Default: "dev",
				Options: []Option{{"dev", "Development"}, {"staging", "Staging"}, {"prod", "Production"}}}},
		},
		{
			name:   "titled oneOf",
			schema: `{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"#f00","title":"Red"},{"const":"#0f0"}]}}}`,
			want:   []Field{{Name: "c", Kind: KindSelect, Options: []Option{{"#f00", "Red"}, {"#0f0", "#0f0"}}}},
		},
		{
			name:   "untitled multi-select",
			schema: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2,"default":["b"]}}}`,
			want: []Field{{Name: "tags", Kind: KindMulti, Options: []Option{{"a", "a"}, {"b", "b"}, {"c", "c"}},
				MinItems: ptr(1), MaxItems: ptr(2), Default: []string{"b"}}},
		},
		{
			name:   "titled multi-select",
			schema: `{"type":"object","properties":{"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}]}}}}`,
			want:   []Field{{Name: "tags", Kind: KindMulti, Options: []Option{{"a", "Alpha"}, {"b", "Beta"}}}},
		},
		{
			name: "unrenderable properties become raw",
			schema: `{"type":"object","properties":{"obj":{"type":"object","properties":{"x":{"type":"string"}}},
				"objs":{"type":"array","items":{"type":"object"}},"none":{"description":"no type"},"odd":{"type":"date"},
				"free":{"type":"array","items":{"type":"string"}}},"required":["obj"]}`,
			want: []Field{
				{Name: "obj", Kind: KindRaw, Required: true},
				{Name: "objs", Kind: KindRaw},
				{Name: "none", Kind: KindRaw, Description: "no type"},
				{Name: "odd", Kind: KindRaw},
				{Name: "free", Kind: KindRaw},
			},
		},
		{
			name:   "pointer-hostile names",
			schema: `{"type":"object","properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}`,
			want:   []Field{{Name: "a/b", Kind: KindText}, {Name: "c~d", Kind: KindText}},
		},
		{
			name:   "secret fields are marked",
			schema: `{"type":"object","properties":{"apiKey":{"type":"string"},"pw":{"type":"string","title":"Password"},"cc":{"type":"string","description":"Your credit card number"},"pin":{"type":"string","format":"password"},"max_tokens":{"type":"integer"},"name":{"type":"string"}}}`,
			want: []Field{
				{Name: "apiKey", Kind: KindText, Secret: true},
				{Name: "pw", Title: "Password", Kind: KindText, Secret: true},
				{Name: "cc", Description: "Your credit card number", Kind: KindText, Secret: true},
				{Name: "pin", Kind: KindText, Secret: true},
				{Name: "max_tokens", Kind: KindInteger},
				{Name: "name", Kind: KindText},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proto := tt.proto
			if proto == "" {
				proto = v11
			}
			f := Parse(json.RawMessage(tt.schema), proto)
			if f.Unvalidatable {
				t.Fatalf("Unvalidatable: findings %+v", f.Findings)
			}
			if diff := cmp.Diff(tt.want, f.Fields, fieldCmp, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRawKeepsPropertyBytes(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"a": {"type":"object", "x":[1, 2]} ,"b":{"type":"string"}}}`), v11)
	got := []string{string(f.Fields[0].Raw), string(f.Fields[1].Raw)}
	want := []string{`{"type":"object", "x":[1, 2]}`, `{"type":"string"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Raw (-want +got):\n%s", diff)
	}
}

type findingKey struct{ Path, Code string }

func findingKeys(fs []Finding) []findingKey {
	var out []findingKey
	for _, f := range fs {
		out = append(out, findingKey{f.Path, f.Code})
	}
	return out
}

func TestParseFindings(t *testing.T) {
	tests := []struct {
		name          string
		schema        string
		proto         string
		want          []findingKey
		unvalidatable bool
	}{
		{name: "clean 2025-11-25 schema", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string","default":"x"}}}`},
		{
			name:   "nested object and array of objects",
			schema: `{"type":"object","properties":{"o":{"type":"object"},"l":{"type":"array","items":{"type":"object"}}}}`,
			want:   []findingKey{{"/properties/o", CodeNestedObject}, {"/properties/l", CodeArrayOfObjects}},
		},
		{
			name:   "missing and unknown types",
			schema: `{"type":"object","properties":{"m":{},"u":{"type":"date"}}}`,
			want:   []findingKey{{"/properties/m", CodeMissingType}, {"/properties/u/type", CodeUnknownType}},
		},
		{
			name:   "unsupported keyword and format",
			schema: `{"type":"object","properties":{"a":{"type":"string","format":"hostname","exclusiveMinimum":1}},"additionalProperties":false}`,
			want: []findingKey{{"/additionalProperties", CodeUnsupportedKeyword}, {"/properties/a/format", CodeUnsupportedFormat},
				{"/properties/a/exclusiveMinimum", CodeUnsupportedKeyword}},
		},
		{
			name:   "enumNames length",
			schema: `{"type":"object","properties":{"e":{"type":"string","enum":["a","b"],"enumNames":["A"]}}}`,
			want:   []findingKey{{"/properties/e/enumNames", CodeEnumNamesLength}},
		},
		{
			name:   "default outside enum, oneOf and multi-select",
			schema: `{"type":"object","properties":{"e":{"type":"string","enum":["a"],"default":"b"},"o":{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"z"},"m":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a","q","a"],"maxItems":1}}}`,
			want: []findingKey{{"/properties/e/default", CodeDefaultOutsideEnum}, {"/properties/o/default", CodeDefaultOutsideEnum},
				{"/properties/m/default/1", CodeDefaultTrimmed}, {"/properties/m/default/2", CodeDefaultTrimmed}},
		},
		{
			name:   "multi-select default dropped when the remainder breaks minItems",
			schema: `{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a","q"],"minItems":2}}}`,
			want:   []findingKey{{"/properties/m/default/1", CodeDefaultTrimmed}, {"/properties/m/default", CodeDefaultDropped}},
		},
		{
			name:   "min above max",
			schema: `{"type":"object","properties":{"n":{"type":"number","minimum":5,"maximum":1},"s":{"type":"string","minLength":5,"maxLength":1},"m":{"type":"array","items":{"enum":["a"]},"minItems":2,"maxItems":1}}}`,
			want:   []findingKey{{"/properties/n", CodeMinAboveMax}, {"/properties/s", CodeMinAboveMax}, {"/properties/m", CodeMinAboveMax}},
		},
		{
			name:   "required naming an unknown property",
			schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","ghost"]}`,
			want:   []findingKey{{"/required/1", CodeUnknownRequired}},
		},
		{
			name:   "wrong-typed defaults are dropped",
			schema: `{"type":"object","properties":{"i":{"type":"integer","default":"two"},"f":{"type":"integer","default":2.5},"big":{"type":"integer","default":1e20},"s":{"type":"string","default":3},"b":{"type":"boolean","default":"true"},"n":{"type":"number","default":null}}}`,
			want: []findingKey{{"/properties/i/default", CodeDefaultDropped}, {"/properties/f/default", CodeDefaultDropped},
				{"/properties/big/default", CodeDefaultDropped}, {"/properties/s/default", CodeDefaultDropped},
				{"/properties/b/default", CodeDefaultDropped}, {"/properties/n/default", CodeDefaultDropped}},
		},
		{
			name:   "defaults violating length, range or format are dropped",
			schema: `{"type":"object","properties":{"s":{"type":"string","maxLength":2,"default":"long"},"n":{"type":"integer","maximum":3,"default":4},"d":{"type":"string","format":"date","default":"tomorrow"}}}`,
			want: []findingKey{{"/properties/s/default", CodeDefaultDropped}, {"/properties/n/default", CodeDefaultDropped},
				{"/properties/d/default", CodeDefaultDropped}},
		},
		{
			name:   "2025-06-18 lacks defaults except boolean, titled enums and multi-select",
			proto:  v06,
			schema: `{"$schema":"x","type":"object","properties":{"s":{"type":"string","default":"x"},"b":{"type":"boolean","default":true},"o":{"type":"string","oneOf":[{"const":"a","title":"A"}]},"m":{"type":"array","items":{"enum":["a"]}},"e":{"type":"string","enum":["a"],"enumNames":["A"]}}}`,
			want: []findingKey{{"/$schema", CodeNotInVersion}, {"/properties/s/default", CodeNotInVersion},
				{"/properties/o/oneOf", CodeNotInVersion}, {"/properties/m", CodeNotInVersion}},
		},
		{
			name:   "2026-07-28 has the 2025-11-25 vocabulary",
			proto:  v26,
			schema: `{"$schema":"x","type":"object","properties":{"s":{"type":"string","default":"x"},"o":{"type":"string","oneOf":[{"const":"a","title":"A"}]},"m":{"type":"array","items":{"enum":["a"]}}}}`,
		},
		{
			name:   "secret field warning",
			schema: `{"type":"object","properties":{"password":{"type":"string"}}}`,
			want:   []findingKey{{"/properties/password", CodeSecretField}},
		},
		{
			name:   "pattern Go cannot compile is reported and ignored",
			schema: `{"type":"object","properties":{"p":{"type":"string","pattern":"(?!x)"}}}`,
			want:   []findingKey{{"/properties/p/pattern", CodeBadPattern}},
		},
		{
			name:   "duplicate key",
			schema: `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`,
			want:   []findingKey{{"", CodeDuplicateKey}},
		},
		{name: "not JSON", schema: `{"type":`, want: []findingKey{{"", CodeMalformed}}, unvalidatable: true},
		{name: "missing", schema: ``, want: []findingKey{{"", CodeMalformed}}, unvalidatable: true},
		{name: "array schema", schema: `[]`, want: []findingKey{{"", CodeMalformed}}, unvalidatable: true},
		{name: "not an object schema", schema: `{"type":"string"}`, want: []findingKey{{"/type", CodeMalformed}}, unvalidatable: true},
		{name: "type of wrong JSON type", schema: `{"type":"object","properties":{"a":{"type":42}}}`, want: []findingKey{{"/properties/a/type", CodeMalformed}}, unvalidatable: true},
		{name: "properties not an object", schema: `{"type":"object","properties":[]}`, want: []findingKey{{"/properties", CodeMalformed}}, unvalidatable: true},
		{name: "required not a list", schema: `{"type":"object","required":"a"}`, want: []findingKey{{"/required", CodeMalformed}}, unvalidatable: true},
		{name: "maxLength not a count", schema: `{"type":"object","properties":{"a":{"type":"string","maxLength":"5"}}}`, want: []findingKey{{"/properties/a/maxLength", CodeMalformed}}, unvalidatable: true},
		{name: "minimum not a number", schema: `{"type":"object","properties":{"a":{"type":"number","minimum":"0"}}}`, want: []findingKey{{"/properties/a/minimum", CodeMalformed}}, unvalidatable: true},
		{name: "enum not a list", schema: `{"type":"object","properties":{"a":{"type":"string","enum":"x"}}}`, want: []findingKey{{"/properties/a/enum", CodeMalformed}}, unvalidatable: true},
		{name: "property schema not an object", schema: `{"type":"object","properties":{"a":true}}`, want: []findingKey{{"/properties/a", CodeMalformed}}, unvalidatable: true},
		{name: "title not a string", schema: `{"type":"object","properties":{"a":{"type":"string","title":7}}}`, want: []findingKey{{"/properties/a/title", CodeMalformed}}, unvalidatable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proto := tt.proto
			if proto == "" {
				proto = v11
			}
			f := Parse(json.RawMessage(tt.schema), proto)
			if diff := cmp.Diff(tt.want, findingKeys(f.Findings), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %+v", diff, f.Findings)
			}
			if f.Unvalidatable != tt.unvalidatable {
				t.Errorf("Unvalidatable = %v, want %v", f.Unvalidatable, tt.unvalidatable)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   any
	}{
		{"integer 2", `{"type":"integer","default":2}`, int64(2)},
		{"integer 2.0 is whole", `{"type":"integer","default":2.0}`, int64(2)},
		{"integer 2e3", `{"type":"integer","default":2e3}`, int64(2000)},
		{"integer 2.5 dropped", `{"type":"integer","default":2.5}`, nil},
		{"integer 1e20 dropped", `{"type":"integer","default":1e20}`, nil},
		{"integer max int64", `{"type":"integer","default":9223372036854775807}`, int64(9223372036854775807)},
		{"integer string dropped", `{"type":"integer","default":"two"}`, nil},
		{"number", `{"type":"number","default":0.25}`, 0.25},
		{"number zero", `{"type":"number","default":0}`, float64(0)},
		{"string empty", `{"type":"string","default":""}`, ""},
		{"boolean false", `{"type":"boolean","default":false}`, false},
		{"enum inside", `{"type":"string","enum":["a","b"],"default":"b"}`, "b"},
		{"enum outside dropped", `{"type":"string","enum":["a","b"],"default":"c"}`, nil},
		{"multi trimmed", `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["b","x","b",1]}`, []string{"b"}},
		{"multi empty", `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":[]}`, []string{}},
		{"multi not a list dropped", `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":"a"}`, nil},
		{"multi over maxItems dropped", `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a","b"],"maxItems":1}`, nil},
		{"email ok", `{"type":"string","format":"email","default":"a@example.com"}`, "a@example.com"},
		{"email bad dropped", `{"type":"string","format":"email","default":"nope"}`, nil},
		{"pattern bad dropped", `{"type":"string","pattern":"^[0-9]+$","default":"x1"}`, nil},
		{"raw gets none", `{"type":"object","default":{}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse(json.RawMessage(`{"type":"object","properties":{"p":`+tt.schema+`}}`), v11)
			if len(f.Fields) != 1 {
				t.Fatalf("got %d fields", len(f.Fields))
			}
			if diff := cmp.Diff(tt.want, f.Fields[0].Default); diff != "" {
				t.Errorf("Default (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSanitizesDisplayText(t *testing.T) {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"e":{"type":"string","title":"\u001b[31mEnv","description":"a\u202eb","enum":["x\u001b[0m"],"enumNames":["\u001b]8;;https://evil\u0007X"]}}}`), v11)
	want := []Field{{Name: "e", Title: "Env", Description: "ab", Kind: KindSelect, Options: []Option{{Value: "x\x1b[0m", Label: "X"}}}}
	if diff := cmp.Diff(want, f.Fields, fieldCmp); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
}

func TestParsedFormOutsideEngineParses(t *testing.T) {
	req := formReq(deploySchema)
	if f := req.ParsedForm(); len(f.Fields) != 2 {
		t.Errorf("ParsedForm = %+v", f)
	}
}

// TestParseChoiceLists: oneOf, anyOf and enum lists give the same options and findings
// whether their items parse packed (objects of strings only, tree.Options.PackRecords)
// or one node each (a list with another kind of item in it).
func TestParseChoiceLists(t *testing.T) {
	const clean = `{"const":"a","title":"A"},{"const":"a","title":"A again"},{"const":"b","title":"","note":"x"},{"const":"c"}`
	abc := []Option{{Value: "a", Label: "A"}, {Value: "b", Label: "b"}, {Value: "c", Label: "c"}}
	cleanFindings := func(list string) []findingKey {
		return []findingKey{{"/properties/f/" + list + "/1", CodeDuplicateChoice}, {"/properties/f/" + list + "/2/note", CodeUnsupportedKeyword}}
	}
	tests := []struct {
		name, schema string
		kind         Kind
		options      []Option
		want         []findingKey
	}{
		{name: "packed oneOf", schema: `{"type":"string","oneOf":[` + clean + `]}`, kind: KindSelect, options: abc, want: cleanFindings("oneOf")},
		{
			name: "oneOf with a number const", schema: `{"type":"string","oneOf":[` + clean + `,{"const":3}]}`, kind: KindSelect, options: abc,
			want: append(cleanFindings("oneOf"), findingKey{"/properties/f/oneOf/4/const", CodeBadChoice}),
		},
		{
			name: "oneOf with a number title", schema: `{"type":"string","oneOf":[` + clean + `,{"const":"d","title":5}]}`, kind: KindSelect,
			options: append(abc, Option{Value: "d", Label: "d"}),
			want:    append(cleanFindings("oneOf"), findingKey{"/properties/f/oneOf/4/title", CodeMalformed}),
		},
		{name: "packed anyOf", schema: `{"type":"array","items":{"type":"string","anyOf":[` + clean + `]}}`, kind: KindMulti, options: abc, want: cleanFindings("items/anyOf")},
		{
			name: "packed oneOf with a choice without const", schema: `{"type":"string","oneOf":[{"const":"a"},{"title":"B"}]}`, kind: KindRaw,
			want: []findingKey{{"/properties/f/oneOf", CodeUnsupportedShape}},
		},
		{name: "oneOf of strings", schema: `{"type":"string","oneOf":["a","b"]}`, kind: KindRaw, want: []findingKey{{"/properties/f/oneOf", CodeUnsupportedShape}}},
		{
			name: "enum of objects of strings", schema: `{"type":"string","enum":[{"a":"b"},{"c":"d"}]}`, kind: KindSelect,
			want: []findingKey{{"/properties/f/enum/0", CodeBadChoice}, {"/properties/f/enum/1", CodeBadChoice}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse(json.RawMessage(`{"type":"object","properties":{"f":`+tt.schema+`}}`), v11)
			if len(f.Fields) != 1 || f.Fields[0].Kind != tt.kind {
				t.Fatalf("fields %+v, want one %v", f.Fields, tt.kind)
			}
			if diff := cmp.Diff(tt.options, f.Fields[0].Options, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, findingKeys(f.Findings), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %+v", diff, f.Findings)
			}
		})
	}
}
