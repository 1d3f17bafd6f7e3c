package elicit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// schema50 builds a 50-field schema using every field kind, and a valid content for it.
func schema50() (json.RawMessage, map[string]any) {
	var props []string
	content := map[string]any{}
	var required []string
	for i := range 50 {
		name := fmt.Sprintf("f%02d", i)
		var p string
		switch i % 10 {
		case 0:
			p = `{"type":"string","title":"Name","description":"Your name","minLength":1,"maxLength":64,"default":"ada"}`
			content[name] = "grace"
		case 1:
			p = `{"type":"string","format":"email","title":"E-mail"}`
			content[name] = "grace@example.com"
		case 2:
			p = `{"type":"string","format":"date-time"}`
			content[name] = "2025-01-31T09:30:00Z"
		case 3:
			p = `{"type":"integer","minimum":1,"maximum":100,"default":3}`
			content[name] = float64(7)
		case 4:
			p = `{"type":"number","minimum":0,"maximum":1}`
			content[name] = 0.5
		case 5:
			p = `{"type":"boolean","default":false}`
			content[name] = true
		case 6:
			p = `{"type":"string","enum":["dev","staging","prod"],"enumNames":["Development","Staging","Production"],"default":"dev"}`
			content[name] = "prod"
		case 7:
			p = `{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"},{"const":"b","title":"Blue"}]}`
			content[name] = "g"
		case 8:
			p = `{"type":"array","items":{"type":"string","enum":["a","b","c","d"]},"minItems":1,"maxItems":3,"default":["a"]}`
			content[name] = []any{"b", "c"}
		case 9:
			p = `{"type":"array","items":{"anyOf":[{"const":"x","title":"X"},{"const":"y","title":"Y"}]}}`
			content[name] = []any{"x"}
		}
		props = append(props, fmt.Sprintf("%q:%s", name, p))
		if i%3 == 0 {
			required = append(required, fmt.Sprintf("%q", name))
		}
	}
	s := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(required, ",") + `]}`
	return json.RawMessage(s), content
}

func TestSchema50IsValid(t *testing.T) {
	raw, content := schema50()
	f := Parse(raw, v11)
	if len(f.Fields) != 50 || len(f.Findings) != 0 {
		t.Fatalf("%d fields, findings %+v", len(f.Fields), f.Findings)
	}
	if vs := f.Check(f.Merge(content)); vs != nil {
		t.Fatalf("content invalid: %v", vs)
	}
}

// BenchmarkParse50 measures parse + lint + defaults preflight of a 50-field schema
// (target: under 1 ms).
func BenchmarkParse50(b *testing.B) {
	raw, _ := schema50()
	b.ReportAllocs()
	for b.Loop() {
		if f := Parse(raw, v11); len(f.Fields) != 50 {
			b.Fatal("bad parse")
		}
	}
}

// BenchmarkCheck50 measures merge + validation of a 50-field content (target: under 50 µs).
func BenchmarkCheck50(b *testing.B) {
	raw, content := schema50()
	f := Parse(raw, v11)
	b.ReportAllocs()
	for b.Loop() {
		if vs := f.Check(f.Merge(content)); vs != nil {
			b.Fatal(vs)
		}
	}
}

// schemaN is a requestedSchema with n string properties, then extra members of
// properties.
func schemaN(n int, extra string) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","title":"P%d"}`, i, i)
	}
	b.WriteString(extra + `}}`)
	return []byte(b.String())
}

// BenchmarkParse100kProperties parses a hostile 100,000-property schema: parsing is
// linear, so this stays well under a second (it took 23.5 s with a quadratic
// duplicate-key check).
func BenchmarkParse100kProperties(b *testing.B) {
	raw := schemaN(100_000, "")
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if f := Parse(raw, v11); len(f.Fields) != 100_000 {
			b.Fatalf("%d fields", len(f.Fields))
		}
	}
}

// TestDuplicateKeyInLargeSchema checks that a duplicate property is still found among
// many (where the parser indexes keys instead of scanning them).
func TestDuplicateKeyInLargeSchema(t *testing.T) {
	f := Parse(schemaN(1000, `,"p500":{"type":"number"}`), v11)
	found := false
	for _, fd := range f.Findings {
		if fd.Code == CodeDuplicateKey && strings.Contains(fd.Message, `"p500"`) {
			found = true
		}
	}
	if !found || len(f.Fields) != 1000 {
		t.Errorf("%d fields, findings %+v; want 1000 fields and a duplicate-key finding for p500", len(f.Fields), f.Findings)
	}
	for _, fld := range f.Fields {
		if fld.Name == "p500" && fld.Kind != KindNumber {
			t.Errorf("p500 is %v; the last value should win", fld.Kind)
		}
	}
}

// bigEnumSchema is a schema with one string field choosing among n options: an enum
// with enumNames, or (oneOf) titled consts.
func bigEnumSchema(n int, oneOf bool) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"pick":{"type":"string",`)
	if oneOf {
		b.WriteString(`"oneOf":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"const":"v%d","title":"Option %d"}`, i, i)
		}
		b.WriteString(`]`)
	} else {
		b.WriteString(`"enum":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"v%d"`, i)
		}
		b.WriteString(`],"enumNames":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"Option %d"`, i)
		}
		b.WriteString(`]`)
	}
	fmt.Fprintf(&b, `,"default":"v%d"}},"required":["pick"]}`, n-1)
	return json.RawMessage(b.String())
}

// BenchmarkParseBigEnum parses and lints a schema whose one field chooses among 1,000,
// 50,000 and 1,000,000 options, and checks an answer picking the last one: the work
// grows linearly with the number of options.
func BenchmarkParseBigEnum(b *testing.B) {
	for _, oneOf := range []bool{false, true} {
		shape := "enum"
		if oneOf {
			shape = "oneOf"
		}
		for _, n := range []int{1_000, 50_000, 1_000_000} {
			raw := bigEnumSchema(n, oneOf)
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f := Parse(raw, v11)
					if len(f.Fields) != 1 || len(f.Fields[0].Options) != n {
						b.Fatalf("bad parse: %+v", f.Findings)
					}
					if vs := f.Check(f.Merge(map[string]any{"pick": fmt.Sprintf("v%d", n-1)})); vs != nil {
						b.Fatal(vs)
					}
				}
			})
		}
	}
}

// BenchmarkAnswerBigEnum answers a request whose one field chooses among 1,000,000
// options headless, from an answers file: parse, lint, the scripted answer, validation.
func BenchmarkAnswerBigEnum(b *testing.B) {
	raw := bigEnumSchema(1_000_000, false)
	s, err := ParseScript([]byte("- match: {}\n  action: accept\n  content: {pick: v999998}\n"), "answers.yaml")
	if err != nil {
		b.Fatal(err)
	}
	e := NewEngine(s, nil)
	req := &Request{Server: "demo", Protocol: v11, Mode: ModeForm, Message: "Pick", Schema: raw}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := e.Answer(b.Context(), req)
		if err != nil || resp.Content["pick"] != "v999998" {
			b.Fatalf("%+v, %v", resp, err)
		}
	}
}
