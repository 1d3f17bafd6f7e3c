package jsonrpcio

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

func TestFrameReaderCapsLines(t *testing.T) {
	in := strings.Repeat("x", 100) + "\nshort\n" + strings.Repeat("y", 50) + "\r\nend"
	fr := &LineReader{br: bufio.NewReaderSize(strings.NewReader(in), 16), max: 40}
	type got struct {
		line    string
		tooLong bool
	}
	var lines []got
	for {
		line, tooLong, err := fr.Next()
		lines = append(lines, got{strings.TrimSpace(string(line)), tooLong})
		if err != nil {
			break
		}
	}
	want := []got{{strings.Repeat("x", 40), true}, {"short", false}, {strings.Repeat("y", 40), true}, {"end", false}}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("lines = %v\nwant %v", lines, want)
	}
}

// TestFrameReaderHandsOverBigLines: a line over bigLine is owned (the reader never
// writes its buffer again, so the next lines leave it as it was); a short one is not.
func TestFrameReaderHandsOverBigLines(t *testing.T) {
	big := strings.Repeat("b", bigLine+1)
	fr := NewLineReader(strings.NewReader(big+"\n"+big+"\nshort\n"), 0)
	first, _, _ := fr.Next()
	if !Owned(first) {
		t.Fatal("a big line is not owned")
	}
	second, _, _ := fr.Next()
	short, _, _ := fr.Next()
	if Owned(short) || !Owned(second) || &first[0] == &second[0] || string(first) != big+"\n" {
		t.Errorf("big lines share a buffer, or a short one is owned")
	}
}

func TestFrameID(t *testing.T) {
	for _, c := range []struct {
		in    string
		id    string
		isReq bool
		ok    bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"a":[[[`, "7", false, true},
		{`{"jsonrpc":"2.0","id":"x-1","result":`, "x-1", false, true},
		{`{"jsonrpc":"2.0","method":"elicitation/create","id":3,"params":`, "3", true, true},
		{`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"requestedSchema":`, "3", true, true},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"`, "4", false, true},
		{`{"jsonrpc":"2.0","id":5,"params":{"a":1},"method":"x","params":`, "5", true, true},
		{`{"jsonrpc":"2.0","id":6,"extra":"`, "6", false, true},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"`, "", false, false},
		{`{"jsonrpc":"2.0","result":{"big":"...`, "", false, false},
		{`[1,2`, "", false, false},
	} {
		id, isReq, ok := FrameID([]byte(c.in))
		if ok != c.ok || isReq != c.isReq || (ok && fmt.Sprint(id.Raw()) != c.id) {
			t.Errorf("%s: id %v isReq %v ok %v", c.in, fmt.Sprint(id.Raw()), isReq, ok)
		}
	}
}
