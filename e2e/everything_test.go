package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// everythingJS returns the path of @modelcontextprotocol/server-everything's entry
// point, installed by scripts/setup.sh. CI always has it; elsewhere the test is skipped.
func everythingJS(t *testing.T) string {
	t.Helper()
	p := os.Getenv("ELICITTY_EVERYTHING_JS")
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ELICITTY_EVERYTHING_JS is not set: run the tests through scripts/test.sh")
		}
		t.Skip("ELICITTY_EVERYTHING_JS not set (scripts/setup.sh installs the server)")
	}
	return p
}

// everythingTargets returns how to reach server-everything over stdio and over
// Streamable HTTP; the HTTP one runs client and server inside a private network
// namespace because the server listens on every interface.
func everythingTargets(t *testing.T) map[string]func(args ...string) []string {
	js := everythingJS(t)
	targets := map[string]func(args ...string) []string{
		"stdio": func(args ...string) []string {
			return append(append([]string{bin}, args...), "--", "node", js, "stdio")
		},
	}
	if _, err := exec.LookPath("unshare"); err == nil {
		targets["http"] = func(args ...string) []string {
			cmd := []string{"unshare", "-n", "bash", "testdata/ns-run.sh", "3001", "PORT=3001 node " + js + " streamableHttp", bin}
			// The URL goes right after the command name (call TARGET TOOL ...).
			return append(append(cmd, args[0], "http://127.0.0.1:3001/mcp"), args[1:]...)
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("unshare is missing: scripts/setup.sh installs util-linux")
	}
	return targets
}

// runSeq numbers runArgv's runs, for their environment marks.
var runSeq atomic.Int64

func runArgv(t *testing.T, argv []string) result {
	t.Helper()
	if argv[0] == bin {
		return runBinHere(t, argv[1:]...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Every process of this run (the namespace's server included) inherits the mark,
	// so the check below finds any that outlives the run, whatever its command line.
	mark := fmt.Sprintf("ELICITTY_TEST_RUN=%d-%d", os.Getpid(), runSeq.Add(1))
	cmd.Env = append(os.Environ(), "NO_COLOR=1", mark)
	err := cmd.Run()
	defer noSurvivorsIn(t, "environ", append([]byte(mark), 0))
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", argv, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func TestEverythingListsElicitationTools(t *testing.T) {
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("tools"))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, tool := range []string{"echo", "get-sum", "trigger-elicitation-request", "trigger-url-elicitation"} {
				if !strings.Contains(r.stdout, tool) {
					t.Errorf("tools lacks %q (shown only to clients declaring elicitation):\n%s", tool, r.stdout)
				}
			}
		})
	}
}

// TestEverythingFormElicitation answers trigger-elicitation-request (every enum shape,
// formats, defaults) from an answers file and checks the server's echo field by field.
func TestEverythingFormElicitation(t *testing.T) {
	want := map[string]any{
		"action": "accept",
		"content": map[string]any{
			"name": "Ada Lovelace", "check": true, "firstLine": "It was a dark and stormy night.",
			"email": "ada@example.com", "homepage": "https://example.com/ada", "birthdate": "1815-12-10",
			"integer": float64(7), "number": 3.14, "untitledSingleSelectEnum": "Monica",
			"untitledMultipleSelectEnum": []any{"Piano", "Drums"}, "titledSingleSelectEnum": "hero-3",
			"titledMultipleSelectEnum": []any{"fish-1"}, "legacyTitledEnum": "pet-1",
		},
	}
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("call", "trigger-elicitation-request", "--answers", "testdata/everything-answers.yaml"))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			_, raw, ok := strings.Cut(r.stdout, "Raw result:")
			if !ok {
				t.Fatalf("no raw result in output:\n%s", r.stdout)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &got); err != nil {
				t.Fatalf("raw result is not JSON: %v\n%s", err, raw)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what the server received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEverythingDeclineAndCancel: server-everything tells a decline from a cancel, so
// what it answers shows which one it received.
func TestEverythingDeclineAndCancel(t *testing.T) {
	targets := everythingTargets(t)
	for action, want := range map[string]string{
		"decline": "User declined to provide the requested information.",
		"cancel":  "User cancelled the elicitation dialog.",
	} {
		answers := writeFile(t, action+".yaml", "- match: {tool: trigger-elicitation-request}\n  action: "+action+"\n")
		for name, target := range targets {
			t.Run(action+"/"+name, func(t *testing.T) {
				r := runArgv(t, target("call", "trigger-elicitation-request", "--answers", answers))
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the server answered %q, want %q", r.stdout, want)
				}
			})
		}
	}
}
