package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/tree"
)

func TestParseTOMLTree(t *testing.T) {
	src := "top = 1\n" +
		"[a.b]\n" +
		"x = \"é\" # comment\n" +
		"y.z = [1, 2]\n" +
		"[[list]]\n" +
		"n = 1\n" +
		"[[list]]\n" +
		"n = 2\n" +
		"t = {k = 'v', when = 1979-05-27}\n"
	root, err := parseTOML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := root.Keys; len(got) != 3 || got[0] != "top" || got[1] != "a" || got[2] != "list" {
		t.Errorf("top-level keys = %q, want [top a list] in file order", got)
	}
	b := root.At("a").At("b")
	if x := b.At("x"); x.Kind != tree.KindString || x.Str != "é" || x.Loc != (tree.Location{Line: 3, Column: 5}) {
		t.Errorf("a.b.x = %+v, want the string é at 3:5", x)
	}
	if loc := b.KeyLoc("y"); loc != (tree.Location{Line: 4, Column: 1}) {
		t.Errorf("a.b.y key at %v, want 4:1", loc)
	}
	if z := b.At("y").At("z"); z.Kind != tree.KindArray || len(z.Items) != 2 || z.Items[1].Str != "2" || z.Items[1].Loc != (tree.Location{Line: 4, Column: 11}) {
		t.Errorf("a.b.y.z = %+v, want [1, 2] with 2 at 4:11", z)
	}
	list := root.At("list")
	if list.Kind != tree.KindArray || len(list.Items) != 2 || list.Items[1].At("n").Str != "2" {
		t.Fatalf("list = %+v, want two tables", list)
	}
	tt := list.Items[1].At("t")
	if tt.At("k").Str != "v" || tt.At("when").Kind != tree.KindString || tt.At("when").Str != "1979-05-27" {
		t.Errorf("inline table = %+v", tt)
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for src, want := range map[string]string{
		"a = 1\na = 2\n":        "line 2:1: invalid TOML: ",
		"[x]\nk = \n":           "line 2:5: invalid TOML: ",
		"a = [1,\n":             "line 1:8: invalid TOML: array is incomplete",
		"[t]\n[t]\n":            "line 2:2: invalid TOML: ",
		"a.b = 1\n[a]\nb = 2\n": "line 2:2: invalid TOML: ",
	} {
		_, err := parseTOML([]byte(src))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%q: error %v, want an *Error", src, err)
			continue
		}
		if got := ce.Error(); !strings.HasPrefix(got, want) {
			t.Errorf("%q: %q, want it to start with %q", src, got, want)
		}
	}
}

func FuzzParseTOML(f *testing.F) {
	f.Add("[mcp_servers.a]\ncommand = \"x\"\nargs = [\"-y\"]\nenv = {K = \"v\"}\n")
	f.Add("a.b.c = 1\n[[t]]\nx = 1979-05-27T07:32:00Z\n")
	f.Fuzz(func(t *testing.T, src string) {
		root, err := parseTOML([]byte(src))
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if root == nil || root.Kind != tree.KindObject {
			t.Fatalf("root = %+v, want an object", root)
		}
	})
}
