package elicit

import (
	"strings"
	"testing"
)

func TestViolationPlurals(t *testing.T) {
	one, three := 1, 3
	for _, tc := range []struct {
		fld  Field
		v    any
		want string
	}{
		{Field{Name: "s", Kind: KindText, MinLength: &one}, "", "must be at least 1 character long"},
		{Field{Name: "s", Kind: KindText, MaxLength: &three}, "abcd", "must be at most 3 characters long"},
	} {
		vs := tc.fld.CheckValue(tc.v)
		if len(vs) != 1 || !strings.Contains(vs[0].Message, tc.want) {
			t.Errorf("%+v: %v, want %q", tc.fld, vs, tc.want)
		}
	}
}
