package elicit

import (
	"context"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/testkit"
)

func TestDrafter(t *testing.T) {
	testkit.External(t, "sh") // and true and sleep
	var seen *Request
	inner := AnswererFunc(func(_ context.Context, r *Request) (Response, error) { seen = r; return Response{Action: Decline}, nil })
	req := samplingRequest(t, "demo", "", "Say hi", "")
	req.Params = []byte(`{"messages":[]}`)
	for _, tt := range []struct {
		name            string
		argv            []string
		draft, draftErr string
		// within bounds the command: generous where it must finish (a loaded machine
		// starts sh slowly), short where it must not.
		within time.Duration
	}{
		{"the command's output, params on stdin", []string{"sh", "-c", `printf 'Hi \033[31mthere: '; cat; printf '\n\n'`}, `Hi there: {"messages":[]}`, "", time.Minute},
		{"a failing command says why", []string{"sh", "-c", "echo no key >&2; exit 3"}, "", `sampling command "sh": exit status 3: no key`, time.Minute},
		{"nothing printed", []string{"true"}, "", `sampling command "true" printed nothing`, time.Minute},
		{"too slow", []string{"sleep", "5"}, "", `sampling command "sleep": no draft within 100ms`, 100 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			if _, err := NewDrafter(inner, tt.argv, tt.within).Answer(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if seen == nil || seen.Sampling.Draft != tt.draft || seen.Sampling.DraftErr != tt.draftErr {
				t.Fatalf("asked with draft %q, error %q; want %q, %q", seen.Sampling.Draft, seen.Sampling.DraftErr, tt.draft, tt.draftErr)
			}
			if req.Sampling.Draft != "" || req.Sampling.DraftErr != "" {
				t.Error("the Drafter changed the request it was given")
			}
		})
	}
	form := &Request{Server: "demo", Message: "Who?"}
	if _, err := NewDrafter(inner, []string{"false"}, 0).Answer(context.Background(), form); err != nil || seen != form {
		t.Errorf("an elicitation did not pass through unchanged: %v", err)
	}
}
