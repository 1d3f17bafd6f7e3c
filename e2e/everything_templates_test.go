package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEverythingTemplatesAndCompletions reaches server-everything over stdio: its
// resource templates are listed, completion/complete suggests values for a template
// variable and for a prompt argument (the second narrowed by the first, sent as
// context), and read fills a template.
func TestEverythingTemplatesAndCompletions(t *testing.T) {
	target := everythingTargets(t)["stdio"]
	const tmpl = "demo://resource/dynamic/text/{resourceId}"

	r := runArgv(t, target("resources"))
	if r.code != 0 || !strings.Contains(r.stdout, tmpl+"  (template)") {
		t.Errorf("resources: exit %d, template not listed:\n%s%s", r.code, r.stdout, r.stderr)
	}

	r = runArgv(t, target("complete", "--resource", tmpl, "--arg", "resourceId=7", "--json"))
	var got struct{ Values []string }
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("complete --resource: exit %d, %v:\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]string{"7"}, got.Values); diff != "" {
		t.Errorf("resourceId suggestions (-want +got):\n%s", diff)
	}

	r = runArgv(t, target("complete", "--prompt", "completable-prompt", "--arg", "department=Sales", "--arg", "name="))
	if diff := cmp.Diff("David\nEve\nFrank\n", r.stdout); r.code != 0 || diff != "" {
		t.Errorf("name suggestions for Sales: exit %d (-want +got):\n%s%s", r.code, diff, r.stderr)
	}

	r = runArgv(t, target("read", tmpl, "resourceId=3"))
	if r.code != 0 || !strings.Contains(r.stdout, "Resource 3: This is a plaintext resource") {
		t.Errorf("read %s resourceId=3: exit %d:\n%s%s", tmpl, r.code, r.stdout, r.stderr)
	}

	r = runArgv(t, target("read", tmpl))
	if r.code != 2 || !strings.Contains(r.stderr, "needs resourceId") {
		t.Errorf("read of a template without its variable: exit %d, want 2 naming resourceId:\n%s", r.code, r.stderr)
	}
}
