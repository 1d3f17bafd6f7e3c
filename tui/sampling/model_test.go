package sampling

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// hostile is server text with escape sequences, C1, bidi and zero-width characters,
// separators and a bare CR.
const hostile = "P\x1b]52;c;SElK\x07\x1b[2J\u009b31m\u202eevil\u200b\u2028\rCR\nfake"

// TestScreenShowsNoServerControls renders every part of a request whose every string
// carries hostile text, in both steps, and checks no unsafe character reaches the screen.
func TestScreenShowsNoServerControls(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	params := `{"messages":[{"role":` + q(hostile) + `,"content":{"type":"text","text":` + q(hostile) + `}},
		{"role":"user","content":[{"type":"image","data":"aGk=","mimeType":` + q(hostile) + `},
		{"type":"tool_use","id":` + q(hostile) + `,"name":` + q(hostile) + `,"input":{"q":` + q(hostile) + `}},
		{"type":"tool_result","toolUseId":` + q(hostile) + `,"content":[{"type":"text","text":` + q(hostile) + `}]}]}],
		"systemPrompt":` + q(hostile) + `,"maxTokens":1,"stopSequences":[` + q(hostile) + `],"includeContext":` + q(hostile) + `,
		"modelPreferences":{"hints":[{"name":` + q(hostile) + `}]},"toolChoice":{"mode":` + q(hostile) + `},
		"tools":[{"name":` + q(hostile) + `,"description":` + q(hostile) + `}]}`
	s, err := elicit.ParseSampling(json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	s.DraftErr = hostile
	req := &elicit.Request{Server: hostile, ServerInfo: hostile, Tool: hostile, Mode: elicit.ModeSampling, Sampling: s}
	m := New(req, Options{Width: 80, Height: 60, NoColor: true})
	m.Init()
	check := func(step, view string) {
		t.Helper()
		for _, seq := range []string{"\x1b]52", "\x1b[2J", "\u009b", "\r"} {
			if strings.Contains(view, seq) {
				t.Errorf("%s: the server's %q reached the screen", step, seq)
			}
		}
		plain := ansi.Strip(view) // our own styles (the cursor) are escape sequences too
		if i := strings.IndexFunc(plain, func(r rune) bool { return r != '\n' && safe.Unsafe(r) }); i >= 0 {
			t.Errorf("%s: unsafe character %q at %d:\n%q", step, plain[i:min(len(plain), i+8)], i, plain)
		}
		if first, _, _ := strings.Cut(plain, "\n"); !strings.Contains(first, "asks for a model reply") && !strings.HasPrefix(first, "Send this reply") {
			t.Errorf("%s: the server's newline split the header: %q", step, first)
		}
	}
	check("edit", m.View())
	m.reply.SetValue("ok")
	m.model.SetValue(hostile)
	m.reviewing = true
	check("review", m.View())
}
