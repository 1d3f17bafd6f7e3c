package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestExpandTemplate(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		vals map[string]string
		want string
	}{
		{"demo://items/{id}", map[string]string{"id": "42"}, "demo://items/42"},
		{"demo://items/{id}", map[string]string{"id": "a b/c"}, "demo://items/a%20b%2Fc"},
		{"file:///{+path}", map[string]string{"path": "etc/hosts"}, "file:///etc/hosts"},
		{"demo://search{?q,lang}", map[string]string{"q": "go"}, "demo://search?q=go"},
		{"demo://search{?q,lang}", map[string]string{}, "demo://search"},
		{"demo://{owner}/{repo}/issues{/n}", map[string]string{"owner": "a", "repo": "b", "n": "7"}, "demo://a/b/issues/7"},
	} {
		got, err := ExpandTemplate(tc.tmpl, tc.vals)
		if err != nil || got != tc.want {
			t.Errorf("ExpandTemplate(%q, %v) = %q, %v; want %q", tc.tmpl, tc.vals, got, err, tc.want)
		}
	}
}

func TestExpandTemplateErrors(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		vals map[string]string
		want string
	}{
		{"demo://items/{id}", nil, "needs id"},
		{"demo://items/{id}", map[string]string{"id": "1", "Id": "2"}, `no variable "Id"`},
		{"demo://items/{id", map[string]string{"id": "1"}, "uri template"},
	} {
		_, err := ExpandTemplate(tc.tmpl, tc.vals)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ExpandTemplate(%q, %v) error = %v; want it to say %q", tc.tmpl, tc.vals, err, tc.want)
		}
	}
}

func TestTemplateVars(t *testing.T) {
	got, err := TemplateVars("demo://{owner}/{repo}{?q,lang}{&page}")
	if err != nil {
		t.Fatal(err)
	}
	want := []TemplateVar{{Name: "owner"}, {Name: "repo"}, {Name: "q", Optional: true}, {Name: "lang", Optional: true}, {Name: "page", Optional: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if IsTemplate("demo://readme") || !IsTemplate("demo://items/{id}") {
		t.Error("IsTemplate is wrong")
	}
}

// TestCompleteRequest: completion/complete names the template or prompt, the argument
// and what is typed, with the other arguments as context; what comes back is
// sanitized, de-duplicated and at most 100 values.
func TestCompleteRequest(t *testing.T) {
	var got []*mcp.CompleteParams
	srv := mcp.NewServer(&mcp.Implementation{Name: "complete", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			got = append(got, req.Params)
			values := []string{"4\x1b[31m2", "42", "4\u202e04"}
			for i := range 150 {
				values = append(values, fmt.Sprint("x", i))
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: 500}}, nil
		},
	})
	s := connectMem(t, srv, Options{})
	c, err := s.Complete(t.Context(), CompletionRef{Resource: "demo://{kind}/{id}"}, "id", "4", map[string]string{"kind": "items"})
	if err != nil {
		t.Fatal(err)
	}
	want := []*mcp.CompleteParams{{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "demo://{kind}/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "4"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"kind": "items"}},
	}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(mcp.CompleteResult{})); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if len(c.Values) != 100 || c.Values[0] != "42" || c.Values[1] != "404" || c.Total != 500 || !c.HasMore {
		t.Errorf("completion = %d values %q…, total %d, hasMore %v; want 100 sanitized values starting 42, 404, total 500, hasMore",
			len(c.Values), c.Values[:min(3, len(c.Values))], c.Total, c.HasMore)
	}

	got = nil
	if _, err := s.Complete(t.Context(), CompletionRef{Prompt: "greet"}, "name", "A", nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Ref.Type != "ref/prompt" || got[0].Ref.Name != "greet" || got[0].Context != nil {
		t.Errorf("prompt request = %+v", got)
	}
}

func TestCompleteWithoutCapability(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	s := connectMem(t, srv, Options{})
	if _, err := s.Complete(t.Context(), CompletionRef{Prompt: "greet"}, "name", "", nil); !errors.Is(err, ErrNoCompletions) {
		t.Errorf("err = %v, want ErrNoCompletions", err)
	}
}
