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

// TestStrSetOfFindsRepeats: a set over a list finds the items whose string came
// earlier in the list, and only those.
func TestStrSetOfFindsRepeats(t *testing.T) {
	list := []string{"a", "", "b", "a", "c", "", "b", "d"}
	want := []bool{true, true, true, false, true, false, false, true}
	s := newStrSetOf(list)
	for i := range list {
		if got := s.addAt(i); got != want[i] {
			t.Errorf("item %d (%q): new = %v, want %v", i, list[i], got, want[i])
		}
	}
}
