package elicit

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var fuzzSchemas = []string{
	``, `{}`, `null`, `[]`, `{"type":"string"}`,
	mergeSchema, checkSchema, deploySchema, scriptSchema,
	`{"type":"object","properties":{"a":{"type":"integer","default":2.5,"minimum":3,"maximum":1}},"required":["a","b"]}`,
	`{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"default":["a","a","z"],"maxItems":1}}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{}}},"l":{"type":"array","items":{"type":"object"}},"t":{"type":["string","null"]}}}`,
	`{"type":"object","properties":{"e":{"type":"string","enum":["a",1,"a"],"enumNames":["A"],"default":"b"},"p":{"type":"string","pattern":"(?!x)","format":"uuid"}}}`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSchemas {
		f.Add(s, v11)
		f.Add(s, v06)
	}
	f.Fuzz(func(t *testing.T, schema, proto string) {
		var want any
		if json.Unmarshal([]byte(schema), &want) == nil {
			if tree, _, err := decodeTree([]byte(schema)); err == nil {
				if diff := cmp.Diff(want, jsonValue(tree)); diff != "" && utf8.ValidString(schema) {
					t.Fatalf("order-preserving decode differs from encoding/json (-want +got):\n%s", diff)
				}
			}
		}
		form := Parse(json.RawMessage(schema), proto)
		seen := map[string]bool{}
		for _, fld := range form.Fields {
			if seen[fld.Name] {
				t.Fatalf("field %q listed twice", fld.Name)
			}
			seen[fld.Name] = true
			if fld.Default != nil {
				if vs := fld.CheckValue(fld.Default); vs != nil {
					t.Fatalf("kept default %#v of %q fails its field: %v", fld.Default, fld.Name, vs)
				}
			}
		}
		for _, v := range form.Check(form.Merge(nil)) {
			if v.Keyword != "required" {
				t.Fatalf("the defaults alone fail with %+v", v)
			}
		}
		if !form.Unvalidatable {
			for _, fnd := range form.Findings {
				if fnd.Code == CodeMalformed {
					t.Fatalf("malformed finding %+v without Unvalidatable", fnd)
				}
			}
		}
	})
}

func FuzzCheck(f *testing.F) {
	contents := []string{`{}`, `{"env":"prod","replicas":3}`, `{"env":null}`, `{"tags":["a","db",1]}`, `{"name":"ééé","n":2.5}`, `{"a/b~c":{}}`}
	for i, s := range fuzzSchemas {
		f.Add(s, contents[i%len(contents)])
	}
	f.Fuzz(func(t *testing.T, schema, content string) {
		var c map[string]any
		if json.Unmarshal([]byte(content), &c) != nil {
			return
		}
		form := Parse(json.RawMessage(schema), v11)
		vs := form.Check(form.Merge(c))
		if diff := cmp.Diff(vs, form.Check(form.Merge(c))); diff != "" {
			t.Fatalf("Check is not deterministic:\n%s", diff)
		}
		for _, v := range vs {
			ok := false
			for _, fld := range form.Fields {
				if v.Path == fld.path() || strings.HasPrefix(v.Path, fld.path()+"/") {
					ok = true
				}
			}
			if !ok || v.Keyword == "" || v.Message == "" {
				t.Fatalf("violation %+v does not point at a field", v)
			}
		}
	})
}

func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"- match: {server: demo, message: \"Which*\", fields: [env]}\n  action: accept\n  content: {env: prod, n: 3, tags: [a], when: 2025-01-31}\n  times: 2\n",
		"- match: {mode: url}\n  action: accept\n  open: false\n  retry: now\n",
		`[{"match":{},"action":"decline"}]`,
		"- action: acept\n", "[]", "", "- [1]\n", "- action: accept\n  content: {a: .inf}\n",
		"- &x {action: accept}\n- *x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		out, err := marshalEntries(s.Entries())
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := ParseScript(out, "again.yaml")
		if err != nil {
			t.Fatalf("written entries do not parse: %v\n%s", err, out)
		}
		// Compare as JSON, what reaches the wire: YAML writes the float 0 as 0, read back as an integer.
		a, _ := json.Marshal(s.Entries())
		b, _ := json.Marshal(again.Entries())
		if diff := cmp.Diff(string(a), string(b)); diff != "" {
			t.Fatalf("round trip changed the entries (-first +second):\n%s\n%s", diff, out)
		}
	})
}
