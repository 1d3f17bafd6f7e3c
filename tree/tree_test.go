package tree

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseKeepsOrderAndPositions(t *testing.T) {
	for name, parse := range map[string]func() (*Result, error){
		"json": func() (*Result, error) { return ParseJSON([]byte("{\"b\": 1,\n  \"a\": [true, \"é\"]}"), nil) },
		"jsonc": func() (*Result, error) {
			return ParseJSONC([]byte("{\"b\": 1, // one\n  \"a\": [true, \"é\",],}"), nil)
		},
		"yaml": func() (*Result, error) { return ParseYAML([]byte("b: 1\na: [true, é]\n"), nil) },
	} {
		t.Run(name, func(t *testing.T) {
			r, err := parse()
			if err != nil {
				t.Fatal(err)
			}
			root := r.Root
			if diff := cmp.Diff([]string{"b", "a"}, root.Keys); diff != "" {
				t.Errorf("key order (-want +got):\n%s", diff)
			}
			a := root.At("a")
			if a == nil || a.Kind != KindArray || len(a.Items) != 2 || a.Items[1].Str != "é" || !a.Items[0].Bool {
				t.Fatalf("a = %+v", a)
			}
			if got := root.KeyLoc("a"); got.Line != 2 {
				t.Errorf("key a at %+v, want line 2", got)
			}
			if b := root.At("b"); b.Kind != KindNumber || b.Num != 1 || b.Loc.Line != 1 {
				t.Errorf("b = %+v", b)
			}
		})
	}
}

// TestDuplicateKeys checks that duplicate keys are found in both formats, at the
// second key with the first one's position, and kept-last when asked.
func TestDuplicateKeys(t *testing.T) {
	many := bigObject(1000, `"k500": 0`) // past the index threshold
	for name, parse := range map[string]func() (*Result, error){
		"json small": func() (*Result, error) { return ParseJSON([]byte("{\"a\": 1,\n \"a\": 2}"), nil) },
		"yaml small": func() (*Result, error) { return ParseYAML([]byte("a: 1\na: 2\n"), nil) },
		"json large": func() (*Result, error) { return ParseJSON(many, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse()
			var e *Error
			if !errors.As(err, &e) || e.Kind != Duplicate {
				t.Fatalf("err = %v, want a duplicate-key error", err)
			}
			if e.Key == "" || e.First.Line == 0 || e.Loc == e.First {
				t.Errorf("duplicate %+v: want the key and two positions", e)
			}
		})
	}
	r, err := ParseJSON([]byte(`{"a": 1, "b": 2, "a": 3}`), &Options{KeepLastDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, r.Root.Keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if r.Root.At("a").Num != 3 || len(r.Duplicates) != 1 || r.Duplicates[0] != "a" {
		t.Errorf("kept-last duplicate: a = %v, duplicates %v", r.Root.At("a").Num, r.Duplicates)
	}
}

func TestInvalidJSONGivesLineAndColumn(t *testing.T) {
	for _, tt := range []struct {
		data string
		want Location
	}{
		{"{\n  \"a\": tru\n}", Location{Line: 2, Column: 8}},
		{"{\"a\": 1,\n \"é\": }", Location{Line: 2, Column: 7}},
		{"[1, 2", Location{Line: 1, Column: 6}},
		{"{} x", Location{Line: 1, Column: 4}},
	} {
		_, err := ParseJSON([]byte(tt.data), nil)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Syntax {
			t.Fatalf("%q: err = %v, want a syntax error", tt.data, err)
		}
		if e.Loc != tt.want || !strings.HasPrefix(e.Error(), fmt.Sprintf("%d:%d: invalid JSON: ", tt.want.Line, tt.want.Column)) {
			t.Errorf("%q: error %q at %+v, want %+v", tt.data, e, e.Loc, tt.want)
		}
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	var e *Error
	if _, err := ParseJSON([]byte(deep), nil); !errors.As(err, &e) || e.Kind != Limit {
		t.Errorf("100 levels: err = %v, want a limit error", err)
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n"
	if _, err := ParseYAML([]byte(bomb), &Options{MaxNodes: 1000}); !errors.As(err, &e) || e.Kind != Limit {
		t.Errorf("alias bomb: err = %v, want a limit error", err)
	}
	if _, err := ParseYAML([]byte("a: &x 1\nb: *x\n"), &Options{StrictYAML: true}); !errors.As(err, &e) || e.Kind != Unsupported {
		t.Errorf("strict YAML with an anchor: err = %v, want unsupported", err)
	}
}

func TestRawAndMarshal(t *testing.T) {
	data := `{"z": {"b": [1, 2.50]}, "a": "x"}`
	r, err := ParseJSON([]byte(data), &Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Root.At("z").Raw); got != `{"b": [1, 2.50]}` {
		t.Errorf("raw = %q", got)
	}
	b, _ := r.Root.MarshalJSON()
	if string(b) != `{"z":{"b":[1,2.50]},"a":"x"}` {
		t.Errorf("MarshalJSON = %s", b)
	}
}

// bigObject is a JSON object with n properties, then extra members.
func bigObject(n int, extra ...string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"k%d": {"type": "string", "title": "T%d"}`, i, i)
	}
	for _, e := range extra {
		b.WriteString(",\n" + e)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// BenchmarkParseJSON100kProperties parses a schema-like object with 100,000 members;
// linear parsing keeps it well under a second.
func BenchmarkParseJSON100kProperties(b *testing.B) {
	data := []byte(`{"type":"object","properties":` + string(bigObject(100_000)) + `}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseJSON(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseYAML100kKeys is the YAML counterpart.
func BenchmarkParseYAML100kKeys(b *testing.B) {
	var s strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&s, "k%d: {type: string}\n", i)
	}
	data := []byte(s.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseYAML(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLocator checks the incremental offset-to-position cursor against a direct count,
// in increasing order and after a jump back.
func TestLocator(t *testing.T) {
	data := []byte("ab\nçé€x\n\ny")
	naive := func(off int) Location {
		line := 1 + strings.Count(string(data[:off]), "\n")
		start := strings.LastIndexByte(string(data[:off]), '\n') + 1
		return Location{Line: line, Column: 1 + len([]rune(string(data[start:off])))}
	}
	l := locator{line: 1, col: 1}
	for off := 0; off <= len(data); off++ {
		if off < len(data) && data[off]&0xC0 == 0x80 {
			continue // offsets are always at the start of a character
		}
		if got, want := l.at(data, off), naive(off); got != want {
			t.Errorf("at(%d) = %v, want %v", off, got, want)
		}
	}
	if got, want := l.at(data, 3), naive(3); got != want {
		t.Errorf("at(3) after the end = %v, want %v", got, want)
	}
}
