package form

import (
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// requiredSchema has one required field: leaving it empty is a violation.
const requiredSchema = `{"type":"object","properties":{"n":{"type":"string","title":"N"}},"required":["n"]}`

// TestFormModelNoValidateFromRequest checks that the validation switch the Engine puts
// on the request reaches the form: with it, a required field can be left empty and
// Accept pressed on content that fails the schema; without it, neither.
func TestFormModelNoValidateFromRequest(t *testing.T) {
	for _, noValidate := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			req := request("Fill in N")
			req.NoValidate = noValidate
			m := newModel(t, req, elicit.Parse([]byte(requiredSchema), "2025-11-25"), 80, 24)
			press(t, m, testkit.Key("<enter>")) // n left empty -> review, if allowed
			press(t, m, testkit.Key("<enter>")) // the focused button
			got, done := m.Done()
			if noValidate && (!done || got.Action != elicit.Accept) {
				t.Errorf("NoValidate: enter on the review = %+v, %v; want accept", got, done)
			}
			if !noValidate && done && got.Action == elicit.Accept {
				t.Errorf("validating: accepted content that fails the schema")
			}
		})
	}
}

// TestPrompterNoValidateThroughEngine runs the line prompter behind an Engine that does
// not validate: the request the prompter sees says so, and it lets the user accept.
func TestPrompterNoValidateThroughEngine(t *testing.T) {
	for _, tt := range []struct {
		noValidate bool
		want       elicit.Response
	}{
		{false, elicit.Response{Action: elicit.Cancel}}, // accept is refused; end of input cancels
		{true, elicit.Response{Action: elicit.Accept}},
	} {
		var out strings.Builder
		p := NewPrompter(iotest.OneByteReader(strings.NewReader("\n\na\n")), &out, &PrompterOptions{Accessible: true})
		e := elicit.NewEngine(p, &elicit.EngineOptions{NoValidate: tt.noValidate})
		req := &elicit.Request{Server: "demo", Protocol: "2025-11-25", Message: "Fill in N", Schema: []byte(requiredSchema)}
		got, err := e.Answer(t.Context(), req)
		if err != nil {
			t.Fatalf("NoValidate %v: %v\n%s", tt.noValidate, err, out.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("NoValidate %v: response (-want +got):\n%s\noutput:\n%s", tt.noValidate, diff, out.String())
		}
	}
}
