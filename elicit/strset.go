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
	strs  []string // the strings added, by index
}

// newStrSet returns a set sized for n strings, filled by add.
func newStrSet(n int) *strSet {
	size := tableSize(n)
	return &strSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: size - 1, strs: make([]string, 0, n)}
}

// tableSize is the number of slots for n strings: the load factor is at most one half.
func tableSize(n int) uint64 { return uint64(1) << bits.Len(uint(max(8, 2*n))) }

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

// repeats returns the items of list whose string an earlier item has, as a bit set
// (item i is bit i%64 of word i/64). It is strSet's check for a list known in advance,
// made for a million strings: the items are sorted by the top bits of their hash into
// partitions of about partitionSize, in order, and each partition is checked with a
// table that stays in the processor's cache, where one table for all would miss it at
// nearly every probe. It keeps no copy of a string.
func repeats(list []string) []uint64 {
	n := len(list)
	out := make([]uint64, (n+63)/64)
	pbits := uint(bits.Len(uint(n / partitionSize)))           // 1<<pbits partitions
	part := func(h uint64) uint64 { return h >> (64 - pbits) } // 0 when pbits is 0
	seed := maphash.MakeSeed()
	hashes := make([]uint64, n)
	ends := make([]int, 1<<pbits+1) // ends[p+1]: items of partitions up to p
	for i, s := range list {
		h := maphash.String(seed, s)
		hashes[i] = h
		ends[part(h)+1]++
	}
	biggest := 0
	for p := range 1 << pbits {
		biggest = max(biggest, ends[p+1])
		ends[p+1] += ends[p]
	}
	// Scatter the hashes and their items into their partitions, keeping their order.
	ph, pi := make([]uint64, n), make([]uint32, n)
	next := append([]int(nil), ends[:1<<pbits]...)
	for i, h := range hashes {
		p := part(h)
		ph[next[p]], pi[next[p]] = h, uint32(i)
		next[p]++
	}
	hashes = nil
	size := tableSize(biggest)
	slots, mask := make([]uint64, size), size-1
	for p := range 1 << pbits {
		clear(slots)
		for k := ends[p]; k < ends[p+1]; k++ {
			h, i := ph[k], pi[k]
			tag := (h << pbits) &^ (1<<32 - 1)
			for j := h & mask; ; j = (j + 1) & mask {
				v := slots[j]
				if v == 0 {
					slots[j] = tag | uint64(i+1)
					break
				}
				if v&^(1<<32-1) == tag && list[v&(1<<32-1)-1] == list[i] {
					out[i/64] |= 1 << (i % 64)
					break
				}
			}
		}
	}
	return out
}

// partitionSize is about how many strings repeats checks at a time: a table of 8192
// slots, 64 KiB.
const partitionSize = 4096
