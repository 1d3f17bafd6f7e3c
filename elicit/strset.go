package elicit

import (
	"hash/maphash"
	"math/bits"
)

// strSet finds the repeated strings of a long list (a million enum options): an open-
// addressing table of 8-byte slots, each the high half of a string's hash and its index
// in the list plus one, so a probe compares strings only when their hashes agree. It
// holds no copy of a string and costs a quarter of a map[string]bool of the same size.
type strSet struct {
	seed  maphash.Seed
	slots []uint64
	mask  uint64
	strs  []string // the strings added, by index
}

// newStrSet returns a set sized for n strings.
func newStrSet(n int) *strSet {
	size := uint64(1) << bits.Len(uint(max(8, 2*n))) // load factor at most one half
	return &strSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: size - 1, strs: make([]string, 0, n)}
}

// add adds s and reports whether it was new.
func (t *strSet) add(s string) bool {
	if 2*(len(t.strs)+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.String(t.seed, s)
	tag := h &^ (1<<32 - 1)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		v := t.slots[i]
		if v == 0 {
			t.strs = append(t.strs, s)
			t.slots[i] = tag | uint64(len(t.strs))
			return true
		}
		if v&^(1<<32-1) == tag && t.strs[v&(1<<32-1)-1] == s {
			return false
		}
	}
}

// grow doubles the table.
func (t *strSet) grow() {
	old := t.strs
	bigger := newStrSet(2 * len(old))
	bigger.seed = t.seed
	for _, s := range old {
		bigger.add(s)
	}
	*t = *bigger
}
