package tree

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// packCases are JSON documents whose arrays of strings pack, or must not.
var packCases = []string{
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
			comparePack(t, []byte(in), maxNodes)
		}
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

// comparePack parses in with and without packing and reports any difference.
func comparePack(t *testing.T, in []byte, maxNodes int) {
	t.Helper()
	plain, perr := ParseJSON(in, &Options{MaxNodes: maxNodes})
	packed, kerr := ParseJSON(in, &Options{MaxNodes: maxNodes, PackStrings: 1})
	if (perr == nil) != (kerr == nil) {
		t.Fatalf("%q (max %d): error %v unpacked, %v packed", in, maxNodes, perr, kerr)
	}
	if perr != nil {
		var pe, ke *Error
		if !errors.As(perr, &pe) || !errors.As(kerr, &ke) || *pe != *ke {
			t.Errorf("%q (max %d): error %#v unpacked, %#v packed", in, maxNodes, perr, kerr)
		}
		return
	}
	want, _ := plain.Root.MarshalJSON()
	got, _ := packed.Root.MarshalJSON()
	if string(want) != string(got) {
		t.Errorf("%q: %s unpacked, %s packed", in, want, got)
	}
	sameItems(t, plain.Root, packed.Root)
}

// sameItems compares the arrays of two trees item by item through Len and Item.
func sameItems(t *testing.T, a, b *Node) {
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
		for i := range a.Len() {
			if packed && strs[i] != a.Items[i].Str {
				t.Errorf("item %d: %q, want %q", i, strs[i], a.Items[i].Str)
			}
			sameItems(t, a.Item(i), b.Item(i))
		}
	case KindObject:
		for i := range a.Keys {
			sameItems(t, a.Values[i], b.Values[i])
		}
	case KindString:
		if a.Str != b.Str {
			t.Errorf("%q, want %q", b.Str, a.Str)
		}
	}
}

func allStrings(n *Node) bool {
	for _, it := range n.Items {
		if it.Kind != KindString {
			return false
		}
	}
	return true
}

// FuzzPackStrings: packing arrays of strings changes nothing a reader of the tree
// sees, nor the errors.
func FuzzPackStrings(f *testing.F) {
	for _, c := range packCases {
		f.Add(c, 0)
	}
	f.Add(`{"a":["`+strings.Repeat(`x","`, 50)+`"]}`, 20)
	f.Fuzz(func(t *testing.T, in string, maxNodes int) {
		comparePack(t, []byte(in), maxNodes%200)
	})
}
