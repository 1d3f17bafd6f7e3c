package transport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRawParamsTellsSameMessagesApart: two kept requests with the same message but other
// schemas each get their own raw params back (where the cheap key is not enough).
func TestRawParamsTellsSameMessagesApart(t *testing.T) {
	tp := newTap("x", nil, 0)
	raws := []string{
		`{"message":"Same","requestedSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}}`,
		`{"message":"Same","requestedSchema":{"type":"object","properties":{"z":{"type":"number"}}}}`,
	}
	for _, r := range raws {
		tp.keepRaw(json.RawMessage(r), true, false)
	}
	for _, r := range raws {
		var p mcp.ElicitParams
		if err := json.Unmarshal([]byte(r), &p); err != nil {
			t.Fatal(err)
		}
		if got := string(tp.rawParams(&p)); got != r {
			t.Errorf("rawParams = %s, want %s", got, r)
		}
	}
}

// TestBigParamsReachGoSDKLight: elicitation params over lightParams reach go-sdk with a
// placeholder schema (it would decode every option into maps), and the middleware gets
// the params as sent back from the placeholder, even for two requests with the same
// message; the same params inside an MRTR result are kept whole (go-sdk decodes those).
func TestBigParamsReachGoSDKLight(t *testing.T) {
	tp := newTap("x", nil, 0)
	big := func(opt string) string {
		opts := strings.Repeat(`"`+opt+`",`, lightParams/len(opt))
		return `{"message":"Same","requestedSchema":{"type":"object","properties":{"p":{"type":"string","enum":[` + opts + `"last"]}}}}`
	}
	for _, r := range []string{big("one"), big("two")} {
		light := tp.keepRaw(json.RawMessage(r), true, false)
		if light == nil || len(light) > 200 || !strings.Contains(string(light), lightKey) {
			t.Fatalf("light params = %.200s", light)
		}
		var p mcp.ElicitParams
		if err := json.Unmarshal(light, &p); err != nil {
			t.Fatal(err)
		}
		if p.Message != "Same" {
			t.Errorf("light message = %q", p.Message)
		}
		if got := string(tp.rawParams(&p)); got != r {
			t.Errorf("rawParams = %.80s..., want the params as sent", got)
		}
		if again := tp.rawParams(&p); again != nil {
			t.Errorf("light params read twice: %.80s", again)
		}
	}
	// Params of a big stdio frame (own) are kept without a copy.
	r0 := []byte(big("own"))
	var op mcp.ElicitParams
	if err := json.Unmarshal(tp.keepRaw(r0, true, true), &op); err != nil {
		t.Fatal(err)
	}
	if got := tp.rawParams(&op); len(got) != len(r0) || &got[0] != &r0[0] || cap(got) != len(r0) {
		t.Errorf("own params were copied (or can be appended to): %.80s", got)
	}
	r := big("three")
	if light := tp.keepRaw(json.RawMessage(r), false, false); light != nil {
		t.Fatalf("params kept whole came back light: %.80s", light)
	}
	var p mcp.ElicitParams
	if err := json.Unmarshal([]byte(r), &p); err != nil {
		t.Fatal(err)
	}
	if got := string(tp.rawParams(&p)); got != r {
		t.Errorf("rawParams of the whole params = %.80s...", got)
	}
}
