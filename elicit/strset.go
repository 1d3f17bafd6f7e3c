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
	n     int      // the strings in the table
	strs  []string // the strings by index: those added (add), or the list (newStrSetOf)
}

// newStrSet returns a set sized for n strings, filled by add.
func newStrSet(n int) *strSet {
	size := tableSize(n)
	return &strSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: size - 1, strs: make([]string, 0, n)}
}

// tableSize is the number of slots for n strings: the load factor is at most one half.
func tableSize(n int) uint64 { return uint64(1) << bits.Len(uint(max(8, 2*n))) }

// newStrSetOf returns a set of the strings of list, filled by addAt: the table refers
// to list, which it does not copy.
func newStrSetOf(list []string) *strSet {
	size := tableSize(len(list))
	return &strSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: size - 1, strs: list}
}

// add adds s and reports whether it was new.
func (t *strSet) add(s string) bool {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	t.strs = append(t.strs, s)
	if !t.insert(len(t.strs) - 1) {
		t.strs = t.strs[:len(t.strs)-1]
		return false
	}
	return true
}

// addAt adds item i of the list of newStrSetOf and reports whether its string was new.
func (t *strSet) addAt(i int) bool { return t.insert(i) }

// insert adds t.strs[i] unless the table holds the same string.
func (t *strSet) insert(i int) bool {
	s := t.strs[i]
	h := maphash.String(t.seed, s)
	tag := h &^ (1<<32 - 1)
	for j := h & t.mask; ; j = (j + 1) & t.mask {
		v := t.slots[j]
		if v == 0 {
			t.slots[j] = tag | uint64(i+1)
			t.n++
			return true
		}
		if v&^(1<<32-1) == tag && t.strs[v&(1<<32-1)-1] == s {
			return false
		}
	}
}

// grow doubles the table of a set filled by add.
func (t *strSet) grow() {
	old := t.strs
	bigger := newStrSet(2 * len(old))
	bigger.seed = t.seed
	for _, s := range old {
		bigger.add(s)
	}
	*t = *bigger
}
