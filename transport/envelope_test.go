package transport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzEnvelope checks the hand-read envelope against go-sdk's own decoder: whatever
// go-sdk accepts, parseEnvelope reads with the same kind, method, id, params and result,
// so the tap keeps its books on what go-sdk will see.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"hi","requestedSchema":{}}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":null}`,
		`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
		`{"jsonrpc":"2.0","met\u0068od":"x","id":null}`,
		`{"jsonrpc":"2.0","method":"a\/b","id":2, "params" : [ 1 , {"x":"}"} ] }`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","method":3}`,
		`{"jsonrpc":"2.0","met\u0068od":null}`, `{"jsonrpc":"2.0","method":null,"id":4}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		`{}`, `[]`, `{"jsonrpc":"2.0"`, `{"jsonrpc":"2.0","id":0}0`, `  {"jsonrpc":"2.0","id":1,"result":{}}  `,
		`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := parseEnvelope(data)
		msg, derr := jsonrpc.DecodeMessage(data)
		if derr != nil {
			return // parseEnvelope may be stricter or not: go-sdk refuses the message either way
		}
		if !json.Valid(data) {
			// go-sdk's decoder takes some text that is not JSON (`{"jsonrpc":"2.0","id":0}0`,
			// a value with bytes after it); the tap refuses it, and fails the request it
			// answers with that cause, rather than pass on what no JSON parser accepts.
			if err == nil {
				t.Fatalf("parseEnvelope reads invalid JSON %q", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("go-sdk decodes %q, parseEnvelope fails: %v", data, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if !env.isRequest() || env.method != m.Method || env.id != m.ID || !sameRaw(env.params, m.Params) {
				t.Fatalf("%q: envelope %+v, go-sdk %+v", data, env, m)
			}
		case *jsonrpc.Response:
			if env.isRequest() || env.id != m.ID || !sameRaw(env.result, m.Result) || env.isError() != (m.Error != nil) {
				t.Fatalf("%q: envelope %+v, go-sdk %+v", data, env, m)
			}
		}
	})
}

// sameRaw compares raw JSON values, null and absent alike.
func sameRaw(a, b []byte) bool {
	norm := func(v []byte) []byte {
		if string(v) == "null" {
			return nil
		}
		return v
	}
	return bytes.Equal(norm(a), norm(b))
}

// TestEnvelopeRefusesWhatGoSDKRefuses: a message go-sdk would refuse is refused before
// it, so the tap can drop it and fail its request with the cause named.
func TestEnvelopeRefusesWhatGoSDKRefuses(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","method":3,"id":1}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`{"jsonrpc":"2.0","id":1,"result":{}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	} {
		if _, err := jsonrpc.DecodeMessage([]byte(in)); err == nil {
			t.Errorf("go-sdk decodes %.60q: the case is wrong", in)
		}
		if env, err := parseEnvelope([]byte(in)); err == nil {
			t.Errorf("parseEnvelope(%.60q) = %+v, want an error", in, env)
		}
	}
}

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
