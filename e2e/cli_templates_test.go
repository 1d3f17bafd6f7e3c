package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadTemplate: read fills a URI template's variables from name=value.
func TestReadTemplate(t *testing.T) {
	r := runBin(t, nil, "read", "demo", "demo://items/{id}", "id=42")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "item 42" {
		t.Errorf("exit %d, stdout %q, stderr %q; want item 42", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "demo", "demo://items/{id}"}, "needs id"},
		{[]string{"read", "demo", "demo://items/{id}", "ID=4"}, `no variable "ID"`},
		{[]string{"read", "demo", "demo://readme", "id=4"}, "not a URI template"},
		{[]string{"complete", "demo", "--resource", "demo://items/{id}", "--arg", "nope=1"}, `"nope" is not a variable`},
		{[]string{"complete", "demo", "--resource", "demo://items/{id}", "--prompt", "greet", "--arg", "id=1"}, "exactly one of"},
		{[]string{"complete", "demo", "--prompt", "greet"}, "missing --arg"},
	} {
		r := runBin(t, nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestCompleteCommand: complete prints the demo's suggestions for a template variable
// and a prompt argument, as lines or JSON.
func TestCompleteCommand(t *testing.T) {
	r := runBin(t, nil, "complete", "demo", "--resource", "demo://items/{id}", "--arg", "id=4")
	if diff := cmp.Diff("4\n42\n404\n4096\n", r.stdout); r.code != 0 || diff != "" {
		t.Errorf("exit %d (-want +got):\n%s%s", r.code, diff, r.stderr)
	}
	r = runBin(t, nil, "complete", "demo", "--prompt", "greet", "--arg", "name=a", "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if diff := cmp.Diff(map[string]any{"values": []any{"Ada", "Alan"}, "total": float64(2), "hasMore": false}, got); diff != "" {
		t.Errorf("--json (-want +got):\n%s", diff)
	}
}
