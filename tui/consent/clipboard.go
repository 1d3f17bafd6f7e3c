package consent

import (
	"fmt"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// QR renders url as a QR code drawn with half-block characters, two modules per
// character cell, with a two-module quiet zone (half the standard four, which phone
// scanners read well and which keeps the code within an 80x24 screen). Light modules are drawn as
// blocks, so the code reads correctly on the usual light-on-dark terminal; most phone
// scanners also read it inverted on a dark-on-light one.
func QR(url string) (string, error) {
	q, err := qrcode.New(url, qrcode.Low)
	if err != nil {
		return "", fmt.Errorf("qr code: %w", err)
	}
	return halfBlocks(crop(q.Bitmap(), 2)), nil
}

// halfBlocks draws a bitmap (true = dark) with light modules as blocks.
func halfBlocks(bm [][]bool) string {
	light := func(y, x int) bool { return y >= len(bm) || !bm[y][x] }
	var b strings.Builder
	for y := 0; y < len(bm); y += 2 {
		for x := range bm[y] {
			switch top, bottom := light(y, x), light(y+1, x); {
			case top && bottom:
				b.WriteRune('█')
			case top:
				b.WriteRune('▀')
			case bottom:
				b.WriteRune('▄')
			default:
				b.WriteRune(' ')
			}
		}
		if y+2 < len(bm) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// crop removes n modules from each edge of a bitmap (the encoder's quiet zone is 4).
func crop(bm [][]bool, n int) [][]bool {
	if len(bm) <= 2*n {
		return bm
	}
	out := make([][]bool, 0, len(bm)-2*n)
	for _, row := range bm[n : len(bm)-n] {
		out = append(out, row[n:len(row)-n])
	}
	return out
}
