package jsonrpcio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzEnvelope checks the hand-read envelope against go-sdk's own decoder: whatever
// go-sdk accepts, ParseEnvelope reads with the same kind, method, id, params and result,
// so the transport's tap and the relay keep their books on what go-sdk will see.
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
		env, err := ParseEnvelope(data)
		msg, derr := jsonrpc.DecodeMessage(data)
		if derr != nil {
			return // ParseEnvelope may be stricter or not: go-sdk refuses the message either way
		}
		if !json.Valid(data) {
			// go-sdk's decoder takes some text that is not JSON (`{"jsonrpc":"2.0","id":0}0`,
			// a value with bytes after it); the tap refuses it, and fails the request it
			// answers with that cause, rather than pass on what no JSON parser accepts.
			if err == nil {
				t.Fatalf("ParseEnvelope reads invalid JSON %q", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("go-sdk decodes %q, ParseEnvelope fails: %v", data, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if !env.IsRequest() || env.Method != m.Method || env.ID != m.ID || !sameRaw(env.Params, m.Params) {
				t.Fatalf("%q: envelope %+v, go-sdk %+v", data, env, m)
			}
		case *jsonrpc.Response:
			if env.IsRequest() || env.ID != m.ID || !sameRaw(env.Result, m.Result) || env.IsError() != (m.Error != nil) {
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
		if env, err := ParseEnvelope([]byte(in)); err == nil {
			t.Errorf("ParseEnvelope(%.60q) = %+v, want an error", in, env)
		}
	}
}
