package desc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitty/elicitty/internal/testkit/cputime"
)

// FuzzLint runs the loader and linter on arbitrary bytes, as YAML and as JSON. It must
// never panic, must finish quickly, and every report must serialize.
func FuzzLint(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.mcpdesc.*")
	for _, file := range files {
		if strings.HasSuffix(file, ".want") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, strings.HasSuffix(file, ".json"))
	}
	f.Add([]byte(strings.Repeat("[", 300)), true)
	f.Add([]byte("a: &x [*x]"), false)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "fuzz.mcpdesc.yaml"
		if asJSON {
			name = "fuzz.mcpdesc.json"
		}
		start := time.Now()
		r, err := Lint(data, name, &Options{MaxBytes: 1 << 20})
		if err != nil {
			t.Fatalf("Lint: %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Lint took %v on %d bytes", d, len(data))
		}
		var out bytes.Buffer
		if err := r.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		if r.Document != nil {
			// Find must cope with whatever the document holds.
			_, _ = Find(r.Document, "tools/t", "a")
		}
	})
}

// genDescription builds a description of about size bytes: tools with form and URL
// declarations, every property kind, and component references.
func genDescription(size int, asJSON bool) []byte {
	var b strings.Builder
	b.WriteString(`{"mcpdesc": "0.9.0", "info": {"name": "bench", "version": "1.0.0"},
"protocolVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
"components": {"schemas": {"Confirm": {"type": "object", "properties": {"ok": {"type": "boolean", "default": false}}, "required": ["ok"]}}},
"tools": [`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name": "tool_%d", "description": "Tool number %d does things.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]},
 "elicitations": [
  {"name": "confirm", "mode": "form", "message": "Proceed with %d?", "requestedSchema": {"$componentRef": "#/components/schemas/Confirm"}},
  {"name": "details", "mode": "form", "message": "Details?", "when": "Sometimes.", "onDecline": "Stops.", "onCancel": "Stops.",
   "protocolVersions": ["2025-11-25", "2026-07-28"],
   "requestedSchema": {"type": "object", "properties": {
     "email": {"type": "string", "format": "email", "minLength": 3, "maxLength": 100, "default": "a@example.com"},
     "n": {"type": "integer", "minimum": 0, "maximum": 10, "default": 5},
     "env": {"type": "string", "enum": ["dev", "stg", "prd"], "enumNames": ["Dev", "Staging", "Prod"], "default": "dev"},
     "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "s"},
     "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 0, "maxItems": 2, "default": ["x"]}},
     "required": ["email", "n"]}},
  {"name": "login", "mode": "url", "message": "Sign in.", "url": "https://auth.example.com/login?tool=%d", "protocolVersions": ["2025-11-25", "2026-07-28"]}]}`, i, i, i, i)
	}
	b.WriteString("]}\n")
	if !asJSON {
		// JSON is a subset of YAML's flow style, but a block-style document is the
		// realistic case: re-emit through the node tree as indented YAML.
		r, _ := Lint([]byte(b.String()), "gen.json", nil)
		var y strings.Builder
		writeYAML(&y, r.Document.Root, 0)
		return []byte(y.String())
	}
	return []byte(b.String())
}

// writeYAML writes a node as block YAML (test helper for the benchmark corpus).
func writeYAML(b *strings.Builder, n *Node, indent int) {
	pad := strings.Repeat("  ", indent)
	switch n.Kind {
	case KindObject:
		for i, k := range n.Keys {
			v := n.Values[i]
			fmt.Fprintf(b, "%s%q:", pad, k)
			if (v.Kind == KindObject && len(v.Keys) > 0) || (v.Kind == KindArray && len(v.Items) > 0) {
				b.WriteString("\n")
				writeYAML(b, v, indent+1)
			} else {
				js, _ := v.MarshalJSON()
				fmt.Fprintf(b, " %s\n", js)
			}
		}
	case KindArray:
		for _, v := range n.Items {
			if v.Kind == KindObject && len(v.Keys) > 0 {
				fmt.Fprintf(b, "%s-\n", pad)
				writeYAML(b, v, indent+1)
			} else {
				js, _ := v.MarshalJSON()
				fmt.Fprintf(b, "%s- %s\n", pad, js)
			}
		}
	}
}

func TestGeneratedDescriptionIsValid(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		data := genDescription(64<<10, asJSON)
		r := mustLint(t, string(data), map[bool]string{true: "g.json", false: "g.yaml"}[asJSON], nil)
		if !r.Valid(true) {
			t.Fatalf("generated description (json=%v) is not clean:\n%s", asJSON, wantLines(r))
		}
	}
}

func benchmarkLint(b *testing.B, asJSON bool) {
	const target = 5 << 20
	data := genDescription(target, asJSON)
	if len(data) > target*21/20 { // block YAML is wordier than the JSON it comes from
		data = genDescription(target*target/len(data), asJSON)
	}
	name := map[bool]string{true: "bench.mcpdesc.json", false: "bench.mcpdesc.yaml"}[asJSON]
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cputime.Now()
	for b.Loop() {
		r, err := Lint(data, name, nil)
		if err != nil || !r.Valid(false) {
			b.Fatalf("lint failed: %v", err)
		}
	}
	b.ReportMetric(float64(cputime.Now()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLint5MB lints a generated 5 MB JSON description (target: under 1 s).
func BenchmarkLint5MB(b *testing.B) { benchmarkLint(b, true) }

// BenchmarkLint5MBYAML lints the same kind of content as a 5 MB block-style YAML file.
func BenchmarkLint5MBYAML(b *testing.B) { benchmarkLint(b, false) }

// FuzzJSONLoader holds the position-tracking JSON parser to encoding/json: it accepts
// exactly what json.Valid accepts, except duplicate keys and over-deep nesting, which it
// rejects on purpose, and it decodes to the same value.
func FuzzJSONLoader(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, -0, 1.5e+3, true, false, null, "x\u00e9\ud83d\ude00\n\/"]}`,
		`[]`, `{}`, `"s"`, `01`, `1.`, `-`, `[1,]`, `{"a":1,}`, `{"a" 1}`, "\"\x01\"", `"\x"`,
		`{"a":1,"a":2}`, `[` + strings.Repeat("[", 10) + `]`, ` 1 2`, `tru`, `1e`, `"\ud800"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return
		}
		n, err := loadJSON(data, 64)
		valid := json.Valid(data)
		if err != nil {
			if valid && !strings.Contains(err.msg, "duplicate key") && !strings.Contains(err.msg, "nests deeper") {
				t.Fatalf("rejected valid JSON %q: %s", data, err.msg)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var want, got any
		if json.Unmarshal(data, &want) != nil {
			return // e.g. a number out of float64 range: valid JSON, no Go value
		}
		js, _ := n.MarshalJSON()
		if err := json.Unmarshal(js, &got); err != nil {
			t.Fatalf("re-encoding %q gave invalid JSON %q: %v", data, js, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decoded %q as %#v, want %#v", data, got, want)
		}
	})
}
