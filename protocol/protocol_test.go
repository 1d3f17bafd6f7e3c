package protocol

import (
	"slices"
	"testing"
)

func TestVersionsOrdered(t *testing.T) {
	all := All()
	if !slices.IsSorted(all) {
		t.Errorf("All() not oldest first: %v", all)
	}
	for _, v := range Supported() {
		if !slices.Contains(all, v) || !IsSupported(v) {
			t.Errorf("%s supported but not known", v)
		}
	}
	if IsSupported(Version20250326) || IsSupported("") {
		t.Error("a version elicitty does not speak is supported")
	}
}
