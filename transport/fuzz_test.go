package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/transport/wire"
)

// FuzzTopSpans checks that every span topSpans reports holds exactly the member's value.
func FuzzTopSpans(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, ` { "requestState" : "a\/b" , "x":[1,{"y":2}] } `,
		`{"a":1,"a":2}`, `[1,2]`, `{"a":`, `{"resultType":"input_required","inputRequests":{"k":{}}}`,
		`{"s":"\ud800"}`, "{\"a\":\"\u2028\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spans := topSpans(data)
		if spans == nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return // topSpans reads a valid prefix of some invalid documents; only check valid ones
		}
		if len(m) != len(spans) {
			t.Fatalf("spans %v vs members %v", spans, m)
		}
		for k, sp := range spans {
			got := data[sp.start:sp.end]
			if !json.Valid(got) {
				t.Fatalf("span of %q is not JSON: %q", k, got)
			}
			var a, b any
			_ = json.Unmarshal(got, &a)
			_ = json.Unmarshal(m[k], &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("span of %q = %s, member = %s", k, got, m[k])
			}
		}
	})
}

// FuzzSSETap feeds arbitrary streams through the SSE tap: it must not panic, and a stream
// without data lines must pass through unchanged.
func FuzzSSETap(f *testing.F) {
	for _, s := range []string{
		"id: 1\nretry: 500\ndata: \n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"elicitation/create\",\"id\":\"e\",\"params\":{\"message\":\"m\"}}\r\n\r\n",
		"data: not json\n\n", "event: x\n", "data:{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"odd\"}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		st := newSSETap(io.NopCloser(strings.NewReader(in)), newTap("f", wire.New(4), 0))
		out, err := io.ReadAll(st)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(in, "data:") && string(out) != in {
			t.Fatalf("stream without data changed: %q -> %q", in, out)
		}
	})
}

// FuzzFilterLines checks that only JSON-RPC lines reach the SDK, whatever the server prints.
func FuzzFilterLines(f *testing.F) {
	for _, s := range []string{
		"banner\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
		"  {\"a\":1}  \r\n\n[1]\n{broken\n", "no newline at end", "\x1b[31mred\x1b[0m\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		pr, pw := io.Pipe()
		go filterLines(io.NopCloser(strings.NewReader(in)), pw, "f", wire.New(4), nil, nil, nil)
		out, err := io.ReadAll(pr)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if line == "" {
				continue
			}
			if ok, err := isJSONRPC([]byte(line)); !ok || err != nil {
				t.Fatalf("non-JSON-RPC line passed: %q", line)
			}
		}
	})
}
