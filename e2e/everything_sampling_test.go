package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEverythingSampling answers trigger-sampling-request from an answers file over
// stdio and HTTP: the server echoes the CreateMessageResult it received. Its async
// variant asks the same as a task (tasks.requests.sampling.createMessage): elicitty
// creates the task, and the server polls it and fetches the reply.
func TestEverythingSampling(t *testing.T) {
	reply := writeFile(t, "reply.txt", "Read from a file.\n")
	answers := writeFile(t, "sampling.yaml", `
- kind: sampling
  match: {tool: trigger-sampling-request, message: "*weather*"}
  action: accept
  reply: {text: "Sunny, 21 degrees.", model: ada}
- kind: sampling
  match: {tool: trigger-sampling-request, message: "*file*"}
  action: accept
  reply: {file: `+reply+`}
- kind: sampling
  match: {tool: trigger-sampling-request-async}
  action: accept
  reply: {text: "Answered in a task."}
- kind: sampling
  action: decline
`)
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("call", "trigger-sampling-request", "prompt=the weather", "--answers", answers))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, want := range []string{`"model": "ada"`, `"stopReason": "endTurn"`, `"role": "assistant"`, `"text": "Sunny, 21 degrees."`} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the server's echo lacks %s:\n%s", want, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, `asked "Resource trigger-sampling-request context: the weather" -> accept`) {
				t.Errorf("stderr does not log the scripted answer:\n%s", r.stderr)
			}
			r = runArgv(t, target("call", "trigger-sampling-request", "prompt=a file", "--answers", answers))
			if r.code != 0 || !strings.Contains(r.stdout, `"text": "Read from a file.\n"`) || !strings.Contains(r.stdout, `"model": "human"`) {
				t.Errorf("reply file: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = runArgv(t, target("call", "trigger-sampling-request-async", "prompt=later", "--answers", answers))
			if r.code != 0 {
				t.Fatalf("async: exit %d: %s", r.code, r.stderr)
			}
			for _, want := range []string{"[COMPLETED]", "Task created:", "Answered in a task.", `"model": "human"`} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("async: the server's report lacks %s:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "[SYNC]") {
				t.Errorf("async: answered directly, not as a task:\n%s", r.stdout)
			}
			r = runArgv(t, target("call", "trigger-sampling-request", "prompt=anything", "--answers", answers))
			if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "User rejected sampling request") {
				t.Errorf("decline: exit %d, want 1 with the rejection\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestEverythingSamplingDeclaredOnlyWhenAnswerable: a headless run declares sampling
// only when its answers file can answer it, so server-everything offers its sampling
// tool only then.
func TestEverythingSamplingDeclaredOnlyWhenAnswerable(t *testing.T) {
	elicitOnly := writeFile(t, "elicit.yaml", "- match: {}\n  action: decline\n")
	withSampling := writeFile(t, "sample.yaml", "- kind: sampling\n  action: decline\n")
	target := everythingTargets(t)["stdio"]
	for _, tt := range []struct {
		answers string
		offered bool
	}{{"", false}, {elicitOnly, false}, {withSampling, true}} {
		args := []string{"tools"}
		if tt.answers != "" {
			args = append(args, "--answers", tt.answers)
		}
		r := runArgv(t, target(args...))
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := strings.Contains(r.stdout, "trigger-sampling-request"); got != tt.offered {
			t.Errorf("answers %q: trigger-sampling-request offered = %v, want %v", tt.answers, got, tt.offered)
		}
	}
}

// TestEverythingOffersEveryTool: with an answers file that can answer sampling,
// server-everything offers elicitty every tool it has (one per file in its dist/tools),
// over stdio and HTTP: elicitation, URL mode, roots, sampling and tasks, async ones
// included, are all declared.
func TestEverythingOffersEveryTool(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(filepath.Dir(everythingJS(t)), "tools", "*.js"))
	if err != nil || len(files) < 15 {
		t.Fatalf("server-everything's tools: %v (%d files)", err, len(files))
	}
	answers := writeFile(t, "sample.yaml", "- kind: sampling\n  action: decline\n")
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("tools", "--answers", answers))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			offered := map[string]bool{}
			for _, line := range strings.Split(r.stdout, "\n") {
				if f := strings.Fields(line); len(f) > 0 {
					offered[f[0]] = true
				}
			}
			for _, f := range files {
				tool := strings.TrimSuffix(filepath.Base(f), ".js")
				if tool != "index" && !offered[tool] {
					t.Errorf("server-everything does not offer %s to elicitty:\n%s", tool, r.stdout)
				}
			}
		})
	}
}
