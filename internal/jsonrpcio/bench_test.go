package jsonrpcio

import (
	"strings"
	"testing"
)

// BenchmarkParseEnvelope reads the envelope of an elicitation request whose schema
// holds a few hundred options: the read every message of the tap and the relay takes.
func BenchmarkParseEnvelope(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"elicitation/create","params":{"message":"Pick one",` +
		`"requestedSchema":{"type":"object","properties":{"p":{"type":"string","enum":[` +
		strings.Repeat(`"option",`, 300) + `"last"]}}}}}`)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		env, err := ParseEnvelope(msg)
		if err != nil || env.Method != "elicitation/create" {
			b.Fatal(err)
		}
	}
}
