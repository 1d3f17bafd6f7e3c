package tree

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// packCases are JSON documents whose arrays of strings or of records pack, or must not.
var packCases = []string{
	`[{"const":"a","title":"A"},{"title":"B","const":"b"},{},{ "const" : "c" }]`,
	`{"oneOf":[{"const":"a\u0021","t\u0069tle":"x"},{"const":"b","title":"y"}],"n":[{"a":1}],"e":[{"a":"b"},"c"]}`,
	`[{"a":"b","a":"c"},{"a":"d"}]`,
	`[{"a":"b"},{"a":"c","b":"d","a":"e"}]`,
	`[{"a":"b"},{"a":{"b":"c"}}]`,
	`[{"a":"b"},{"a":"c",}]`,
	`[{"a":"b"} {"a":"c"}]`,
	`[{"a":"b"},{"a":"\x"}]`,
	`[{"a":"b"},{"\x":"c"}]`,
	`[{"a":"b"},{"a":"c"}`,
	`[{"a":"b"},{"a" "c"}]`,
	`[{"a":"b"},{"a":"c"]`,
	`[{"1":"","2":"","3":"","4":"","5":"","6":"","7":"","8":"","9":"","10":"","11":"","12":"","13":"","14":"","15":"","16":""}]`,
	`[{"1":"","2":"","3":"","4":"","5":"","6":"","7":"","8":"","9":"","10":"","11":"","12":"","13":"","14":"","15":"","16":"","17":""}]`,
	`[[{"a":"b"}],[{"a":"c"},{"b":"d"}]]`,
	`["a","b","c"]`,
	`{"enum": [ "x" , "y\n", "\u00e9", "" ], "n": [1, "a"], "e": []}`,
	`[["a"], ["b", "c"], "d"]`,
	`["a", "b\"c", "\\"]`,
	`["a", "b`,
	`["a", "b",]`,
	`["a" "b"]`,
	`["a", "b\x"]`,
	"[\"a\", \"b\tc\"]",
	`["a", "b"] x`,
	`["a", "\ud800"]`,
	"[\"a\", \"\xff\"]",
}

// TestPackStringsSameTree: a packed parse gives the tree, errors and limits of an
// unpacked one; only arrays of strings pack, and their items read the same.
func TestPackStringsSameTree(t *testing.T) {
	for _, in := range packCases {
		for _, maxNodes := range []int{0, 3, 100} {
			comparePack(t, []byte(in), Options{MaxNodes: maxNodes})
		}
		comparePack(t, []byte(in), Options{KeepLastDuplicate: true})
		comparePack(t, []byte(in), Options{MaxDepth: 1})
		comparePack(t, []byte(in), Options{MaxDepth: 2})
	}
	r, err := ParseJSON([]byte(`{"enum": ["a", "b\u0021"], "mixed": ["a", 1], "empty": []}`), &Options{PackStrings: 1, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	enum := r.Root.At("enum")
	if strs, ok := enum.Strings(); !ok || !reflect.DeepEqual(strs, []string{"a", "b!"}) || enum.Items != nil || enum.Len() != 2 || enum.Item(1).Str != "b!" {
		t.Errorf("enum = %+v, want packed [a b!]", enum)
	}
	if string(enum.Raw) != `["a", "b\u0021"]` {
		t.Errorf("enum.Raw = %s", enum.Raw)
	}
	for _, k := range []string{"mixed", "empty"} {
		if _, ok := r.Root.At(k).Strings(); ok {
			t.Errorf("%s is packed", k)
		}
	}
	r, err = ParseJSON([]byte(`["a", "b"]`), &Options{PackStrings: 3})
	if _, ok := r.Root.Strings(); err != nil || ok || r.Root.Len() != 2 || r.Root.Item(0).Str != "a" {
		t.Errorf("an array shorter than PackStrings: %+v, %v", r.Root, err)
	}
}

// TestPackRecords: an array of flat objects of strings packs into records that keep
// their keys in order, share the keys of records shaped alike, and read as objects.
func TestPackRecords(t *testing.T) {
	in := `{"oneOf": [{"const":"r","title":"Red"}, {"const":"g","title":"Gr\u0065en"}, {"title":"Blue","const":"b"}, {}]}`
	r, err := ParseJSON([]byte(in), &Options{PackRecords: 1, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	list := r.Root.At("oneOf")
	if list.Items != nil || list.Len() != 4 || string(list.Raw) != in[len(`{"oneOf": `):len(in)-1] {
		t.Fatalf("oneOf = %+v, want 4 packed records and its bytes", list)
	}
	k0, v0, _ := list.Record(0)
	k1, v1, _ := list.Record(1)
	k2, v2, _ := list.Record(2)
	k3, v3, ok := list.Record(3)
	if !slices.Equal(k0, []string{"const", "title"}) || !slices.Equal(v0, []string{"r", "Red"}) || !slices.Equal(v1, []string{"g", "Green"}) ||
		!slices.Equal(k2, []string{"title", "const"}) || !slices.Equal(v2, []string{"Blue", "b"}) || !ok || len(k3) != 0 || len(v3) != 0 {
		t.Errorf("records %q %q / %q %q / %q %q / %q %q", k0, v0, k1, v1, k2, v2, k3, v3)
	}
	if &k0[0] != &k1[0] {
		t.Error("records with the same keys do not share them")
	}
	if it := list.Item(2); it.Kind != KindObject || it.At("const").Str != "b" || it.KeyLoc("title") != (Location{}) {
		t.Errorf("item 2 = %+v", it)
	}
	if _, _, ok := r.Root.Record(0); ok {
		t.Error("an object reads as a packed record list")
	}
	if _, ok := list.Strings(); ok {
		t.Error("records read as strings")
	}
	r, err = ParseJSON([]byte(`[{"a":"b"}, {"a":"c"}]`), &Options{PackRecords: 3})
	if _, _, ok := r.Root.Record(0); err != nil || ok || r.Root.Len() != 2 {
		t.Errorf("an array shorter than PackRecords: %+v, %v", r.Root, err)
	}
}

// comparePack parses in with and without packing and reports any difference.
func comparePack(t *testing.T, in []byte, opts Options) {
	t.Helper()
	plain, perr := ParseJSON(in, &opts)
	opts.PackStrings, opts.PackRecords = 1, 1
	packed, kerr := ParseJSON(in, &opts)
	if (perr == nil) != (kerr == nil) {
		t.Fatalf("%q (%+v): error %v unpacked, %v packed", in, opts, perr, kerr)
	}
	if perr != nil {
		var pe, ke *Error
		if !errors.As(perr, &pe) || !errors.As(kerr, &ke) || *pe != *ke {
			t.Errorf("%q (%+v): error %#v unpacked, %#v packed", in, opts, perr, kerr)
		}
		return
	}
	want, _ := plain.Root.MarshalJSON()
	got, _ := packed.Root.MarshalJSON()
	if string(want) != string(got) || !slices.Equal(plain.Duplicates, packed.Duplicates) {
		t.Errorf("%q: %s unpacked (duplicates %q), %s packed (%q)", in, want, plain.Duplicates, got, packed.Duplicates)
	}
	sameItems(t, plain.Root, packed.Root, len(plain.Duplicates) == 0)
}

// sameItems compares the arrays of two trees item by item through Len and Item.
// Arrays of records pack unless (!strict) an item had a key twice.
func sameItems(t *testing.T, a, b *Node, strict bool) {
	t.Helper()
	if a.Kind != b.Kind || a.Len() != b.Len() {
		t.Fatalf("%+v and %+v differ", a, b)
	}
	switch a.Kind {
	case KindArray:
		strs, packed := b.Strings()
		if packed != (a.Len() > 0 && allStrings(a)) {
			t.Errorf("%+v packed = %v", b, packed)
		}
		_, _, records := b.Record(0)
		if want := a.Len() > 0 && allRecords(a); records && !want || strict && records != want {
			t.Errorf("%+v packed as records = %v", b, records)
		}
		for i := range a.Len() {
			if packed && strs[i] != a.Items[i].Str {
				t.Errorf("item %d: %q, want %q", i, strs[i], a.Items[i].Str)
			}
			if keys, vals, ok := b.Record(i); ok {
				it := a.Items[i]
				if !slices.Equal(keys, it.Keys) || len(vals) != len(it.Values) {
					t.Errorf("record %d: %q %q, want %+v", i, keys, vals, it)
				}
				for j, v := range vals {
					if v != it.Values[j].Str {
						t.Errorf("record %d member %d: %q, want %q", i, j, v, it.Values[j].Str)
					}
				}
			}
			sameItems(t, a.Item(i), b.Item(i), strict)
		}
	case KindObject:
		if !slices.Equal(a.Keys, b.Keys) || len(b.KeyLocs) != len(b.Keys) {
			t.Fatalf("keys %q (%d positions), want %q", b.Keys, len(b.KeyLocs), a.Keys)
		}
		for i, k := range a.Keys {
			sameItems(t, a.Values[i], b.Values[i], strict)
			if v, ok := b.Get(k); !ok || v.Kind != a.Values[i].Kind {
				t.Errorf("Get(%q) = %+v", k, v)
			}
		}
	case KindString:
		if a.Str != b.Str {
			t.Errorf("%q, want %q", b.Str, a.Str)
		}
	}
}

// allRecords reports whether every item is an object of at most MaxRecordMembers
// string members with no key twice: what PackRecords packs.
func allRecords(n *Node) bool {
	for _, it := range n.Items {
		if it.Kind != KindObject || len(it.Keys) > MaxRecordMembers {
			return false
		}
		for _, v := range it.Values {
			if v.Kind != KindString {
				return false
			}
		}
	}
	return true
}

func allStrings(n *Node) bool {
	for _, it := range n.Items {
		if it.Kind != KindString {
			return false
		}
	}
	return true
}

// FuzzPackStrings: packing arrays of strings and of records changes nothing a reader
// of the tree sees, nor the errors.
func FuzzPackStrings(f *testing.F) {
	for _, c := range packCases {
		f.Add(c, 0)
	}
	f.Add(`{"a":["`+strings.Repeat(`x","`, 50)+`"]}`, 20)
	f.Add(`{"a":[{"k":"`+strings.Repeat(`x"},{"k":"`, 50)+`"}]}`, 60)
	f.Fuzz(func(t *testing.T, in string, maxNodes int) {
		comparePack(t, []byte(in), Options{MaxNodes: maxNodes % 200, KeepLastDuplicate: maxNodes%2 == 0, MaxDepth: maxNodes % 5})
	})
}
