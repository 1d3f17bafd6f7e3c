package elicit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/safe"
)

// FuzzParseSampling: any params either fail with a ProtocolError or parse into a
// request whose every display string is free of unsafe characters.
func FuzzParseSampling(f *testing.F) {
	f.Add([]byte(samplingParams))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"image","data":"=","mimeType":"\u001b]52;c;x\u0007"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":{"type":"x"}}],"stopSequences":["\u202e"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSampling(json.RawMessage(data))
		if err != nil {
			if _, ok := err.(*ProtocolError); !ok {
				t.Fatalf("error %T %v is not a ProtocolError", err, err)
			}
			return
		}
		shown := []string{s.Preferences(), s.Limits()}
		for _, m := range s.Messages {
			for _, c := range m.Content {
				shown = append(shown, c.Describe())
			}
		}
		for _, v := range shown {
			if i := strings.IndexFunc(v, func(r rune) bool { return r != '\n' && r != '\t' && safe.Unsafe(r) }); i >= 0 {
				t.Fatalf("unsafe character in %q", v)
			}
		}
	})
}
