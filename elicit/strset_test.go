package elicit

import (
	"fmt"
	"testing"
)

// TestStrSetFindsRepeats: every string is new once and a repeat after, past the size
// the set was made for (it grows), including the empty string.
func TestStrSetFindsRepeats(t *testing.T) {
	s := newStrSet(4)
	for i := range 1000 {
		if !s.add(fmt.Sprint("v", i)) {
			t.Fatalf("v%d reported as a repeat", i)
		}
	}
	if !s.add("") || s.add("") {
		t.Error("the empty string is not added once")
	}
	for i := range 1000 {
		if s.add(fmt.Sprint("v", i)) {
			t.Fatalf("repeat v%d reported as new", i)
		}
	}
}

// TestRepeats: repeats finds the items whose string came earlier in the list, and only
// those, in lists small and big enough to be partitioned.
func TestRepeats(t *testing.T) {
	lists := [][]string{nil, {"a", "", "b", "a", "c", "", "b", "d"}}
	wants := [][]bool{nil, {false, false, false, true, false, true, true, false}}
	for _, n := range []int{100, 3 * partitionSize, 40_000} {
		var l []string
		var w []bool
		for i := range n {
			l = append(l, fmt.Sprint("v", i%(n/2+1)))
			w = append(w, i >= n/2+1)
		}
		lists, wants = append(lists, l), append(wants, w)
	}
	for k, l := range lists {
		got := repeats(l)
		if len(got) != (len(l)+63)/64 {
			t.Fatalf("%d strings: %d words", len(l), len(got))
		}
		for i := range 64 * len(got) {
			rep := got[i/64]&(1<<(i%64)) != 0
			if i >= len(l) && rep || i < len(l) && rep != wants[k][i] {
				t.Fatalf("%d strings: item %d: repeat = %v", len(l), i, rep)
			}
		}
	}
}

// BenchmarkRepeats finds the repeats of a million strings with repeats and, for
// comparison, one strSet.
func BenchmarkRepeats(b *testing.B) {
	list := make([]string, 1_000_000)
	for i := range list {
		list[i] = fmt.Sprintf("option-%d", i)
	}
	b.Run("repeats", func(b *testing.B) {
		for b.Loop() {
			repeats(list)
		}
	})
	b.Run("strSet", func(b *testing.B) {
		for b.Loop() {
			s := newStrSet(len(list))
			for _, v := range list {
				s.add(v)
			}
		}
	})
}
