package transport

import (
	"context"
	"testing"

	"github.com/elicitty/elicitty/elicit"
)

// With file inputs on, every request is edited (fileInputs in its _meta), and the
// requestState of an MRTR retry is still echoed byte for byte.
func TestFileInputsKeepRequestStateBytes(t *testing.T) {
	rs, tr := startTools(t, true, result(twoInputs), result(`{"content":[{"type":"text","text":"done"}]}`))
	a := newAnswerer(func(context.Context, *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	s := connectRaw(t, tr, Options{Protocol: modern, Answerer: a, FileInputs: true})
	if _, _, err := s.CallTool(context.Background(), "deploy", map[string]any{"q": "<a&b>"}); err != nil {
		t.Fatal(err)
	}
	got := rs.received("tools/call")
	if len(got) != 2 {
		t.Fatalf("server got %d calls", len(got))
	}
	if st := string(topFields(got[1].Params)["requestState"]); st != stateToken {
		t.Errorf("requestState echoed as %s\nwant %s", st, stateToken)
	}
}
