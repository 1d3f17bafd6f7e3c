package consent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	qrcode "github.com/skip2/go-qrcode"
)

// TestQRRoundTrip reads the half blocks back into modules and compares them with the
// encoder's bitmap, so the drawing loses no module.
func TestQRRoundTrip(t *testing.T) {
	for _, u := range []string{"https://ex.am/p", "https://auth.example.com/link?s=" + strings.Repeat("abc", 40)} {
		s, err := QR(u)
		if err != nil {
			t.Fatal(err)
		}
		q, err := qrcode.New(u, qrcode.Low)
		if err != nil {
			t.Fatal(err)
		}
		want := crop(q.Bitmap(), 2)
		lines := strings.Split(s, "\n")
		if len(lines) != (len(want)+1)/2 {
			t.Fatalf("%d lines, want %d", len(lines), (len(want)+1)/2)
		}
		got := make([][]bool, 0, len(want)+1)
		for _, l := range lines {
			top, bottom := []bool{}, []bool{}
			for _, r := range l {
				switch r {
				case '█':
					top, bottom = append(top, false), append(bottom, false)
				case '▀':
					top, bottom = append(top, false), append(bottom, true)
				case '▄':
					top, bottom = append(top, true), append(bottom, false)
				case ' ':
					top, bottom = append(top, true), append(bottom, true)
				default:
					t.Fatalf("unexpected rune %q", r)
				}
			}
			got = append(got, top, bottom)
		}
		if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
			t.Errorf("%q: modules differ (-want +got):\n%s", u, diff)
		}
	}
}

func TestQRTooLong(t *testing.T) {
	if _, err := QR(strings.Repeat("x", 5000)); err == nil {
		t.Error("QR of 5000 bytes succeeded; want an error")
	}
}
