package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const scriptSchema = `{"type":"object","properties":{
	"env":{"type":"string","enum":["dev","prod"]},
	"replicas":{"type":"integer","default":1},
	"when":{"type":"string","format":"date"},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},
	"ratio":{"type":"number"}}}`

func TestScriptAnswers(t *testing.T) {
	s, err := LoadScript(filepath.Join("testdata", "answers.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var opened []string
	s.SetOptions(&ScriptOptions{
		Log:  &log,
		Open: func(_ context.Context, u string) error { opened = append(opened, u); return nil },
		CheckURL: func(req *Request) (bool, string) {
			return strings.Contains(req.URL, "evil"), "url " + req.URL + " (real host " + strings.Split(req.URL, "/")[2] + ")"
		},
	})
	eng := NewEngine(s, nil)
	form := func(server, tool, msg string) *Request {
		return &Request{Server: server, Tool: tool, Protocol: v11, Message: msg, Schema: json.RawMessage(scriptSchema)}
	}
	url := func(server, u string) *Request {
		return &Request{Server: server, Protocol: v11, Mode: ModeURL, Message: "Link", URL: u, ElicitationID: "e1", URLDeclared: true}
	}
	steps := []struct {
		name string
		req  *Request
		want Response
	}{
		{"first entry, glob on message", form("demo", "deploy", "Which env should I use?"),
			Response{Action: Accept, Content: map[string]any{"env": "prod", "replicas": int64(3)}}},
		{"first entry used up (times: 1), second matches; yaml date stays a string", form("demo", "deploy", "Which env should I use?"),
			Response{Action: Accept, Content: map[string]any{"env": "dev", "replicas": int64(1), "when": "2025-01-31", "tags": []any{"a", "b"}, "ratio": 0.5}}},
		{"url entry with open: false", url("auth-server", "https://auth.example.com/x"), Response{Action: Accept}},
		{"url entry opens", url("demo", "https://good.example/x"), Response{Action: Accept}},
		{"refused url becomes decline", url("demo", "https://evil.example/x"), Response{Action: Decline}},
		{"glob in the middle", form("demo", "other", "Really delete the db?"), Response{Action: Decline}},
		{"cancel", form("other", "", "Hm?"), Response{Action: Cancel}},
	}
	for _, st := range steps {
		got, err := eng.Answer(context.Background(), st.req)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	if diff := cmp.Diff([]string{"https://good.example/x"}, opened); diff != "" {
		t.Errorf("opened (-want +got):\n%s", diff)
	}
	name := filepath.Join("testdata", "answers.yaml")
	wantLog := strings.Join([]string{
		`elicitty: demo asked "Which env should I use?" -> accept (` + name + ` entry 1)`,
		`elicitty: demo asked "Which env should I use?" -> accept (` + name + ` entry 2)`,
		`elicitty: auth-server asked "Link" -> accept (` + name + ` entry 3): url https://auth.example.com/x (real host auth.example.com); url not opened`,
		`elicitty: demo asked "Link" -> accept (` + name + ` entry 4): url https://good.example/x (real host good.example); url opened`,
		`elicitty: demo asked "Link" -> decline (` + name + ` entry 4): url https://evil.example/x (real host evil.example); url refused, declined instead`,
		`elicitty: demo asked "Really delete the db?" -> decline (` + name + ` entry 5)`,
		`elicitty: other asked "Hm?" -> cancel (` + name + ` entry 6)`,
	}, "\n") + "\n"
	if diff := cmp.Diff(wantLog, log.String()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestScriptRetryPolicy(t *testing.T) {
	s, err := LoadScript(filepath.Join("testdata", "answers.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &Request{Server: "auth1", Mode: ModeURL, Message: "m", URL: "https://a.example/"}
	b := &Request{Server: "x", Mode: ModeURL, Message: "m", URL: "https://a.example/"}
	for _, r := range []*Request{a, b} {
		if _, err := s.Answer(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.RetryPolicy(a); got != "now" {
		t.Errorf("RetryPolicy(a) = %q, want now", got)
	}
	if got := s.RetryPolicy(b); got != "complete" {
		t.Errorf("RetryPolicy(b) = %q, want complete", got)
	}
}

func TestScriptJSONAndFieldsMatch(t *testing.T) {
	s, err := LoadScript(filepath.Join("testdata", "answers.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := NewEngine(s, nil)
	with := &Request{Server: "demo", Message: "m", Schema: json.RawMessage(scriptSchema)}
	without := &Request{Server: "demo", Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}
	got, err := eng.Answer(context.Background(), with)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Response{Action: Accept, Content: map[string]any{"env": "prod", "replicas": int64(3)}}, got); diff != "" {
		t.Errorf("with env (-want +got):\n%s", diff)
	}
	got, err = eng.Answer(context.Background(), without)
	if err != nil {
		t.Fatal(err)
	}
	if got.Action != Decline {
		t.Errorf("without env: action %q, want decline (fields must all be present)", got.Action)
	}
}

func TestScriptAcceptFailingValidation(t *testing.T) {
	s, err := ParseScript([]byte("- action: accept\n  content: {env: staging, replicas: 2.5}\n"), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewEngine(s, nil).Answer(context.Background(), &Request{Server: "demo", Message: "m", Schema: json.RawMessage(scriptSchema)})
	var ve *ViolationsError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v, want *ViolationsError", err)
	}
	want := []Violation{{"/env", "enum", `"staging" is not an allowed choice`}, {"/replicas", "type", "must be a whole number, not 2.5"}}
	if diff := cmp.Diff(want, ve.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestScriptUnanswered(t *testing.T) {
	s, err := ParseScript([]byte(`[{"match":{"server":"a"},"action":"decline","times":1}]`), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Server: "a", Tool: "t", Message: "Pick\x1b[31m one\n"}
	if _, err := s.Answer(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	_, err = s.Answer(context.Background(), req)
	if !errors.Is(err, ErrUnanswered) {
		t.Fatalf("error = %v, want ErrUnanswered", err)
	}
	want := `elicitation could not be answered: no entry in a.json matches server "a", tool "t", message "Pick one"`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err.Error(), want)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		{"action.yaml", `action.yaml:2: entry 1: action: must be accept, decline or cancel, not the value "acept"`},
		{"key.yaml", `key.yaml:3: entry 1: unknown key "contnet" (want match, action, content, times, open, retry, kind, reply or approve)`},
		{"matchkey.yaml", `matchkey.yaml:1: entry 1: match: unknown key "tol" (want server, tool, message, mode or fields)`},
		{"times.yaml", `times.yaml:3: entry 2: times: must be a positive whole number, not the value "two"`},
		{"content.yaml", `content.yaml:2: entry 1: content: only an accept carries content, this entry says decline`},
		{"notlist.yaml", `notlist.yaml:1: answers file must be a list of entries`},
		{"noaction.yaml", `noaction.yaml:1: entry 1: action: missing (want accept, decline or cancel)`},
		{"mode.yaml", `mode.yaml:1: entry 1: match.mode: must be form or url, not the value "sms"`},
		{"open.yaml", `open.yaml:3: entry 1: open: must be true or false, not the value "maybe"`},
		{"retry.yaml", `retry.yaml:3: entry 1: retry: must be complete or now, not the value "later"`},
		{"fields.yaml", `fields.yaml:1: entry 1: match.fields: must be a list of property names, not the value "env"`},
		{"contentlist.yaml", `contentlist.yaml:3: entry 1: content: must be a mapping of property names to values, not a list`},
		{"entry.yaml", `entry.yaml:1: entry 1: an entry must be a mapping with match and action, not a list`},
		{"server.yaml", `server.yaml:1: entry 1: match.server: must be a string, not a list`},
		{"empty.yaml", `empty.yaml:1: answers file is empty; want a list of entries`},
		{"syntax.yaml", `syntax.yaml: yaml: line 1: did not find expected node content`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bad", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseScript(data, tt.file)
			if err == nil {
				t.Fatal("ParseScript succeeded")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestLoadScriptMissingFile(t *testing.T) {
	_, err := LoadScript(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want a wrapped not-exist error", err)
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true}, {"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"*c", "abc", true},
		{"a*c", "abbbc", true}, {"a*c", "abcd", false}, {"abc", "abc", true}, {"abc", "ab", false},
		{"*b*", "abc", true}, {"*x*", "abc", false}, {"a**c", "ac", true}, {"Which env*", "Which env?", true},
	}
	for _, tt := range tests {
		if got := glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestParseScriptAliasBomb(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bad", "laughs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseScript(data, "laughs.yaml")
	want := "laughs.yaml:8: value too large (aliases expand to too many nodes)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestScriptTimesUnderConcurrency(t *testing.T) {
	s, err := ParseScript([]byte("- action: accept\n  times: 5\n- action: decline\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	results := make(chan Action, n)
	for range n {
		go func() {
			r, err := s.Answer(context.Background(), &Request{Server: "s", Message: "m"})
			if err != nil {
				t.Error(err)
			}
			results <- r.Action
		}()
	}
	counts := map[Action]int{}
	for range n {
		counts[<-results]++
	}
	if diff := cmp.Diff(map[Action]int{Accept: 5, Decline: n - 5}, counts); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}
