package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/internal/cli"
)

// callJSON runs `elicitty call ... --json` and decodes the result.
type callOutput struct {
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	} `json:"result"`
	Rounds []struct {
		Kind string   `json:"kind"`
		Keys []string `json:"keys"`
	} `json:"rounds"`
	Protocol struct {
		Version string `json:"version"`
		Reason  string `json:"reason"`
	} `json:"protocol"`
}

// TestJSONSaysWhichEraAndWhy: without --protocol the demo (which speaks both eras) gets
// 2025-11-25 and the output says why; --protocol pins and says so.
func TestJSONSaysWhichEraAndWhy(t *testing.T) {
	target := []string{"--", bin, "serve-demo"}
	out, r := callJSON(t, target, "confirm_only")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if out.Protocol.Version != "2025-11-25" || !strings.Contains(out.Protocol.Reason, "accepts initialize") {
		t.Errorf("protocol = %+v, want 2025-11-25 chosen because the server accepts initialize", out.Protocol)
	}
	out, r = callJSON(t, target, "confirm_only", "--protocol", "2026-07-28")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if out.Protocol.Version != "2026-07-28" || out.Protocol.Reason != "pinned by --protocol" {
		t.Errorf("protocol = %+v, want 2026-07-28 pinned by --protocol", out.Protocol)
	}
}

func callJSON(t *testing.T, target []string, tool string, extra ...string) (callOutput, result) {
	t.Helper()
	args := []string{"call"}
	if target[0] == "--" {
		args = append(args, tool)
		args = append(args, extra...)
		args = append(args, "--json", "--answers", "testdata/answers.yaml")
		args = append(args, target...)
	} else {
		args = append(args, target[0], tool)
		args = append(args, extra...)
		args = append(args, "--json", "--answers", "testdata/answers.yaml")
	}
	r := runBinHere(t, args...)
	var out callOutput
	if r.code == 0 {
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
		}
	}
	return out, r
}

// TestAnswersFileSameResultsInBothEras answers the demo server's form tools from one
// answers file over stdio and HTTP, pinned to each era, and checks that the server
// received the same content field by field.
func TestAnswersFileSameResultsInBothEras(t *testing.T) {
	url := startDemoHTTP(t)
	wantAllKinds := map[string]any{
		"name": "Ada Lovelace", "seats": float64(3), "email": "ada@example.com", "region": "eu-west",
		"budget": 99.5, "size": "M", "tags": []any{"api", "ops"}, "subscribe": false,
		"color": "g", "features": []any{"sso"},
	}
	targets := map[string][]string{
		"stdio": {"--", bin, "serve-demo"},
		"http":  {url},
	}
	for tname, target := range targets {
		for _, proto := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(tname+"/"+proto, func(t *testing.T) {
				out, r := callJSON(t, target, "form_all_kinds", "--protocol", proto)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				got, _ := out.Result.StructuredContent["content"].(map[string]any)
				if diff := cmp.Diff(wantAllKinds, got); diff != "" {
					t.Errorf("content received by the server (-want +got):\n%s", diff)
				}
				if a := out.Result.StructuredContent["action"]; a != "accept" {
					t.Errorf("action %v, want accept", a)
				}
				if !strings.Contains(r.stderr, "form_all_kinds") && !strings.Contains(r.stderr, "every field kind") {
					t.Errorf("a scripted answer must print one line on stderr; got %q", r.stderr)
				}

				out, r = callJSON(t, target, "deploy", "--protocol", proto, "service=api")
				if r.code != 0 || len(out.Result.Content) == 0 {
					t.Fatalf("deploy: exit %d: %s", r.code, r.stderr)
				}
				if got := out.Result.Content[0].Text; !strings.Contains(got, "prod") || !strings.Contains(got, "4 replicas") {
					t.Errorf("deploy result %q, want prod with 4 replicas", got)
				}

				out, r = callJSON(t, target, "confirm_only", "--protocol", proto)
				if r.code != 0 || len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, "declined") {
					t.Errorf("confirm_only: exit %d, result %+v, stderr %s", r.code, out.Result, r.stderr)
				}

				out, r = callJSON(t, target, "mrtr_multi", "--protocol", proto)
				if r.code != 0 || len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, "Grace is 85") {
					t.Errorf("mrtr_multi: exit %d, result %+v, stderr %s", r.code, out.Result, r.stderr)
				}
				if proto == "2026-07-28" && len(out.Rounds) != 3 {
					t.Errorf("mrtr_multi in 2026-07-28 took %d rounds, want 3: %+v", len(out.Rounds), out.Rounds)
				}
				if proto == "2025-11-25" && len(out.Rounds) != 0 {
					t.Errorf("legacy era must not take MRTR rounds: %+v", out.Rounds)
				}
			})
		}
	}
}

// TestInvalidScriptedAnswerExits3 checks that an answer failing validation is not sent
// silently: the command exits 3 and names the violation.
func TestInvalidScriptedAnswerExits3(t *testing.T) {
	answers := writeFile(t, "bad.yaml", "- match: {}\n  action: accept\n  content: {seats: 99, email: not-an-email, tags: [api]}\n")
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		r := runBinHere(t, "call", "form_all_kinds", "--protocol", proto, "--answers", answers, "--", bin, "serve-demo")
		if r.code != cli.ExitUnanswered {
			t.Fatalf("%s: exit %d, want 3; stderr %s", proto, r.code, r.stderr)
		}
		for _, want := range []string{"/seats", "/email"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr should name %s: %s", proto, want, r.stderr)
			}
		}
	}
}

// TestRecordThenReplay records the answers of a scripted session with --record and
// replays the recording: the server must receive the same answers.
func TestRecordThenReplay(t *testing.T) {
	rec := t.TempDir() + "/rec.yaml"
	first := runBinHere(t, "call", "deploy", "service=api", "--answers", "testdata/answers.yaml", "--record", rec, "--", bin, "serve-demo")
	if first.code != 0 {
		t.Fatalf("recording run: exit %d: %s", first.code, first.stderr)
	}
	// Recorded answers may hold secrets: the file is private, like --log.
	if st, err := os.Stat(rec); err != nil {
		t.Errorf("--record file: %v", err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("--record file mode %v, want 0600", st.Mode().Perm())
	}
	replay := runBinHere(t, "call", "deploy", "service=api", "--answers", rec, "--", bin, "serve-demo")
	if replay.code != 0 {
		t.Fatalf("replay: exit %d: %s", replay.code, replay.stderr)
	}
	if first.stdout != replay.stdout || !strings.Contains(replay.stdout, "4 replicas") {
		t.Errorf("replay result %q differs from the recorded run %q", replay.stdout, first.stdout)
	}
	r := runBinHere(t, "call", "deploy", "--on-unanswered", "maybe", "--", bin, "serve-demo")
	if r.code != cli.ExitUsage {
		t.Errorf("--on-unanswered maybe: exit %d, want 2", r.code)
	}
}

// TestNoValidateOnEveryHeadlessPath checks that --no-validate reaches every command that
// answers a form from an answers file: content failing the schema is sent (or printed)
// instead of exiting 3. (The demo server validates what it receives itself and fails
// the call, which shows the content reached it.)
func TestNoValidateOnEveryHeadlessPath(t *testing.T) {
	bad := writeFile(t, "bad.yaml", "- match: {}\n  action: accept\n  content: {seats: 99, email: not-an-email, tags: [api], assignee: 7, n: 0}\n")
	schema := writeFile(t, "schema.json", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)
	for name, args := range map[string][]string{
		"call":         {"call", "form_all_kinds", "--answers", bad, "--", bin, "serve-demo"},
		"render":       {"render", schema, "--answers", bad},
		"desc preview": {"desc", "preview", "../elicit/desc/testdata/valid/spec-12-7-example.mcpdesc.yaml", "tools/assign_issue", "choose_assignee", "--answers", bad},
	} {
		t.Run(name, func(t *testing.T) {
			r := runBinHere(t, args...)
			if r.code != cli.ExitUnanswered {
				t.Errorf("validating: exit %d, want 3; stderr %s", r.code, r.stderr)
			}
			r = runBinHere(t, append([]string{args[0], "--no-validate"}, args[1:]...)...)
			if name == "call" {
				// The server's own check reports the value it received: as a tool error
				// (stdout) in the push era, as a failed call (stderr) otherwise.
				if r.code == cli.ExitUnanswered || strings.Contains(r.stderr, "elicitation response does not match") ||
					!strings.Contains(r.stdout+r.stderr, "is greater than 12") {
					t.Errorf("--no-validate: exit %d; the server should have received seats 99; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout, `"accept"`) {
				t.Errorf("--no-validate: exit %d, want 0 and the response printed; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestAnswersUnknownContentKeyExits3 checks that a misspelt content key is not sent next
// to the default of the field it meant: the run exits 3 naming the key and the field.
func TestAnswersUnknownContentKeyExits3(t *testing.T) {
	answers := writeFile(t, "answers.yaml", "- match: {tool: form_all_kinds}\n  action: accept\n  content: {email: a@b.co, colour: r, Seats: 5}\n")
	r := runBin(t, nil, "call", "demo", "form_all_kinds", "--answers", answers)
	if r.code != cli.ExitUnanswered {
		t.Fatalf("exit %d, want 3; stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{`no field "colour"; did you mean "color"?`, `no field "Seats"; did you mean "seats"?`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestAnswersMatchServerInfoName checks that an answers file matches a server by its
// own name (serverInfo) as well as by its config name, so that the entry printed for a
// stdio run answers the same server over HTTP, whose config name is its host:port.
func TestAnswersMatchServerInfoName(t *testing.T) {
	r := runBin(t, nil, "call", "confirm_only", "--", bin, "serve-demo")
	if r.code != cli.ExitUnanswered || !strings.Contains(r.stderr, "elicitty: elicitty (elicitty-demo) asks") ||
		!strings.Contains(r.stderr, "server: elicitty-demo") {
		t.Fatalf("stdio run named after the executable: exit %d, want 3 with the server's own name shown and suggested:\n%s", r.code, r.stderr)
	}
	entry := r.stderr[strings.Index(r.stderr, "- match:"):]
	entry = entry[:strings.Index(entry, "  action: accept")] + "  action: decline\n"
	answers := writeFile(t, "answers.yaml", entry)
	target := startDemoHTTP(t)
	r = runBin(t, nil, "call", target, "confirm_only", "--answers", answers)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "declined" {
		t.Fatalf("the stdio run's entry over HTTP: exit %d, stdout %q, stderr %s\nanswers:\n%s", r.code, r.stdout, r.stderr, entry)
	}
	if !strings.Contains(r.stderr, "(elicitty-demo) asked") {
		t.Errorf("the scripted-answer line does not show the server's own name: %s", r.stderr)
	}
	// The config name still matches.
	byConfig := writeFile(t, "answers.yaml", "- match: {server: demo}\n  action: decline\n")
	if r := runBin(t, nil, "call", "demo", "confirm_only", "--answers", byConfig); r.code != 0 {
		t.Errorf("match.server by config name: exit %d, %s", r.code, r.stderr)
	}
}

// TestRenderStdin checks `render -`: a bare schema or whole elicitation/create params
// read from stdin, the params' message shown and matched, and line:column for bad JSON.
func TestRenderStdin(t *testing.T) {
	answers := writeFile(t, "answers.yaml", "- match: {message: \"Who is*\"}\n  action: accept\n  content: {name: Ada}\n- match: {}\n  action: accept\n  content: {name: Bob}\n")
	run := func(stdin string) result {
		t.Helper()
		cmd := exec.Command(bin, "render", "-", "--answers", answers)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	schema := `{"type":"object","properties":{"name":{"type":"string"},"seats":{"type":"integer","default":2}},"required":["name"]}`
	for _, tc := range []struct{ in, want string }{
		{schema, `"name": "Bob"`},
		{`{"message":"Who is booking?","requestedSchema":` + schema + `}`, `"name": "Ada"`},
	} {
		r := run(tc.in)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) || !strings.Contains(r.stdout, `"seats": 2`) {
			t.Errorf("render - < %s: exit %d, stdout %s, stderr %s; want %s and the default", tc.in, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if r := run("{\"type\":\"object\",\n \"properties\": {,}}"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "stdin:2:17:") {
		t.Errorf("bad JSON on stdin: exit %d, stderr %q; want 2 and stdin:2:17", r.code, r.stderr)
	}
	if r := run(`{"requestedSchema":` + schema + `}`); r.code != cli.ExitUsage || !strings.Contains(r.stderr, `without "message"`) {
		t.Errorf("params without message: exit %d, stderr %q", r.code, r.stderr)
	}
}
