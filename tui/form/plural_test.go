package form

import "testing"

func TestCountHintPlurals(t *testing.T) {
	one, two := 1, 2
	for _, tc := range []struct {
		lo, hi *int
		want   string
	}{
		{&one, nil, "at least 1 choice"},
		{nil, &one, "at most 1 choice"},
		{&one, &two, "1 to 2 choices"},
		{&one, &one, "1 to 1 choice"},
	} {
		if got := countHint(tc.lo, tc.hi, "choice"); got != tc.want {
			t.Errorf("countHint = %q, want %q", got, tc.want)
		}
	}
}
