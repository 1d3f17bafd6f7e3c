package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCheckAgreesWithJSONSchema checks Form.Check against santhosh-tekuri/jsonschema/v6
// (draft 2020-12, formats asserted) on seeded random flat schemas and instances: both must
// agree on valid versus invalid. Intentional disagreements are excluded from generation
// and documented here:
//   - nested objects and arrays of objects (raw JSON fields) are included: their own
//     property schemas are checked recursively with the same subset.
//   - required naming an unknown property: we ignore it with a warning (docs/protocol.md, "Request checks"),
//     the oracle requires the member; the generator only requires real properties.
//   - integers beyond int64 are accepted by both in content; only defaults are bounded.
//   - format strings come from a fixed list on which both agree; the oracle's email and
//     uri grammars differ from net/mail and net/url on exotic inputs (quoted local parts,
//     IDNs), which servers do not rely on.
func TestCheckAgreesWithJSONSchema(t *testing.T) {
	const schemas, instances = 400, 10
	r := rand.New(rand.NewPCG(1, 2))
	cases, valid := 0, 0
	for i := range schemas {
		schema := genSchema(r)
		raw, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		form := Parse(raw, v11)
		if form.Unvalidatable {
			t.Fatalf("schema %d unvalidatable: %s %+v", i, raw, form.Findings)
		}
		oracle := compileOracle(t, raw)
		for range instances {
			inst := genInstance(r, schema)
			data, err := json.Marshal(inst)
			if err != nil {
				t.Fatal(err)
			}
			var mine map[string]any
			if err := json.Unmarshal(data, &mine); err != nil {
				t.Fatal(err)
			}
			theirs, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			vs := form.Check(mine)
			oerr := oracle.Validate(theirs)
			cases++
			if len(vs) == 0 {
				valid++
			}
			if (len(vs) == 0) != (oerr == nil) {
				t.Errorf("disagreement\nschema:   %s\ninstance: %s\nours:     %v\noracle:   %v", raw, data, vs, oerr)
			}
		}
	}
	t.Logf("%d cases, %d valid", cases, valid)
	if valid < cases/10 || valid > cases*9/10 {
		t.Errorf("generator is unbalanced: %d of %d valid", valid, cases)
	}
}

func compileOracle(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("oracle cannot compile %s: %v", raw, err)
	}
	return s
}

var (
	genChoices  = []string{"a", "b", "c", "dev", "prod"}
	genStrings  = []string{"", "a", "ab", "abc", "abcdef", "é", "ééé", "dev", "prod", "b", "c", "cab", "aaa", "x@example.com", "not an email", "https://example.com/p?q=1", "/relative", "2024-02-29", "2023-02-29", "2025-01-31T09:30:00Z", "2025-01-31T09:30:00+01:00", "2025-01-31 09:30"}
	genNumbers  = []float64{0, 1, -1, 2, 2.5, -1.5, 3, 1000, 0.1, 1e20}
	genBounds   = []float64{-2, -1.5, 0, 1, 2, 2.5}
	genPatterns = []string{"^a", "b$", "^[a-c]+$", "x", "^.{2}$"}
	genFormats  = []string{"email", "uri", "date", "date-time"}
)

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

func subset(r *rand.Rand, n int) []string {
	perm := r.Perm(len(genChoices))
	out := make([]string, n)
	for i := range n {
		out[i] = genChoices[perm[i]]
	}
	return out
}

func genSchema(r *rand.Rand) map[string]any {
	props := map[string]any{}
	var required []string
	n := 1 + r.IntN(5)
	for i := range n {
		name := "p" + strconv.Itoa(i)
		if r.IntN(10) == 0 {
			name += "/~x"
		}
		p := map[string]any{}
		switch r.IntN(10) {
		case 8:
			p["type"] = "object"
			p["properties"] = map[string]any{"x": map[string]any{"type": "string", "minLength": 1}, "n": map[string]any{"type": "integer", "maximum": 5}}
			if r.IntN(2) == 0 {
				p["required"] = []string{"x"}
			}
		case 9:
			p["type"] = "array"
			p["items"] = map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "string", "enum": []string{"a", "b"}}}, "required": []string{"k"}}
			if r.IntN(2) == 0 {
				p["minItems"] = 1
			}
		case 0:
			p["type"] = "string"
			if r.IntN(2) == 0 {
				p["minLength"] = r.IntN(4)
			}
			if r.IntN(2) == 0 {
				p["maxLength"] = r.IntN(6)
			}
			if r.IntN(4) == 0 {
				p["format"] = pick(r, genFormats)
			}
			if r.IntN(4) == 0 {
				p["pattern"] = pick(r, genPatterns)
			}
		case 1, 2:
			p["type"] = "number"
			if r.IntN(2) == 0 {
				p["type"] = "integer"
			}
			if r.IntN(2) == 0 {
				p["minimum"] = pick(r, genBounds)
			}
			if r.IntN(2) == 0 {
				p["maximum"] = pick(r, genBounds)
			}
		case 3:
			p["type"] = "boolean"
		case 4:
			p["type"] = "string"
			p["enum"] = subset(r, 1+r.IntN(3))
		case 5:
			p["type"] = "string"
			var one []any
			for _, c := range subset(r, 1+r.IntN(3)) {
				one = append(one, map[string]any{"const": c, "title": "T " + c})
			}
			p["oneOf"] = one
		case 6, 7:
			p["type"] = "array"
			choices := subset(r, 1+r.IntN(4))
			if r.IntN(2) == 0 {
				p["items"] = map[string]any{"type": "string", "enum": choices}
			} else {
				var alts []any
				for _, c := range choices {
					alts = append(alts, map[string]any{"const": c, "title": c})
				}
				p["items"] = map[string]any{"anyOf": alts}
			}
			if r.IntN(2) == 0 {
				p["minItems"] = r.IntN(3)
			}
			if r.IntN(2) == 0 {
				p["maxItems"] = r.IntN(4)
			}
		}
		props[name] = p
		if r.IntN(3) == 0 {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	return s
}

func genInstance(r *rand.Rand, schema map[string]any) map[string]any {
	out := map[string]any{}
	for name, p := range schema["properties"].(map[string]any) {
		if r.IntN(6) == 0 {
			continue
		}
		ps := p.(map[string]any)
		typ := ps["type"].(string)
		if items, ok := ps["items"].(map[string]any); ok && items["type"] == "object" {
			typ = "objects"
		}
		if r.IntN(8) == 0 {
			typ = pick(r, []string{"string", "number", "integer", "boolean", "array", "null", "object"})
		}
		out[name] = genValue(r, typ)
	}
	if r.IntN(10) == 0 {
		out["extra"] = 1
	}
	return out
}

func genValue(r *rand.Rand, typ string) any {
	switch typ {
	case "string":
		return pick(r, genStrings)
	case "number":
		return pick(r, genNumbers)
	case "integer":
		return float64(r.IntN(7) - 2)
	case "boolean":
		return r.IntN(2) == 0
	case "array":
		n := r.IntN(5)
		out := make([]any, n)
		for i := range out {
			if r.IntN(12) == 0 {
				out[i] = 1
			} else {
				out[i] = pick(r, genChoices)
			}
		}
		return out
	case "object":
		return pick(r, []map[string]any{{}, {"x": "a"}, {"x": ""}, {"x": "a", "n": 7}, {"n": 2.5}, {"x": 1}, {"x": "ab", "n": -1}, {"x": "a", "n": 5}})
	case "objects":
		return pick(r, [][]any{{}, {map[string]any{"k": "a"}}, {map[string]any{"k": "c"}}, {map[string]any{}}, {"a"}, {map[string]any{"k": "b"}, map[string]any{"k": "a"}}})
	}
	return nil
}

func ExampleForm_Check() {
	f := Parse(json.RawMessage(`{"type":"object","properties":{"replicas":{"type":"integer","maximum":10},"tags":{"type":"array","items":{"type":"string","enum":["web","api"]}}},"required":["env"]}`), "2025-11-25")
	for _, v := range f.Check(map[string]any{"replicas": 12.0, "tags": []any{"web", "db"}}) {
		fmt.Printf("%s %s: %s\n", v.Path, v.Keyword, v.Message)
	}
	// Output:
	// /replicas maximum: must be at most 10
	// /tags/1 enum: "db" is not an allowed choice
}
