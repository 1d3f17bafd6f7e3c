package demo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompletions: the demo completes demo://items/{id} ids and greet's name from what
// is typed, and suggests nothing for anything else.
func TestCompletions(t *testing.T) {
	each(t, func(t *testing.T, era string, l link) {
		s, _ := newDemo(t)
		cs := connect(t, s, era, l, nil)
		if cs.InitializeResult().Capabilities.Completions == nil {
			t.Fatal("the completions capability is not declared")
		}
		for _, tc := range []struct {
			ref        *mcp.CompleteReference
			arg, value string
			want       []string
		}{
			{&mcp.CompleteReference{Type: "ref/resource", URI: "demo://items/{id}"}, "id", "4", []string{"4", "42", "404", "4096"}},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "name", "a", []string{"Ada", "Alan"}},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "other", "", []string{}},
			{&mcp.CompleteReference{Type: "ref/resource", URI: "demo://readme"}, "id", "", []string{}},
		} {
			r, err := cs.Complete(testCtx(t), &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
			if err != nil {
				t.Fatalf("complete %+v: %v", tc.ref, err)
			}
			if diff := cmp.Diff(tc.want, r.Completion.Values); diff != "" {
				t.Errorf("complete %+v %s=%q (-want +got):\n%s", tc.ref, tc.arg, tc.value, diff)
			}
		}
	})
}
