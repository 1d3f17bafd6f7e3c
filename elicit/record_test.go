package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/internal/safe"
)

func TestRecorderReplays(t *testing.T) {
	answers := []Response{
		{Action: Accept, Content: map[string]any{"env": "prod", "replicas": int64(3), "tags": []string{"a"}, "ratio": 0.5, "when": "2025-01-31"}},
		{Action: Accept, Content: map[string]any{"env": "dev"}},
		{Action: Decline},
		{Action: Accept},
	}
	reqs := []*Request{
		{Server: "demo", Tool: "deploy", Message: "Which env? (*)", Schema: json.RawMessage(scriptSchema)},
		{Server: "demo", Tool: "deploy", Message: "Which env? (*)", Schema: json.RawMessage(scriptSchema)},
		{Server: "demo", Tool: "wipe", Message: "Wipe: yes or no?", Schema: json.RawMessage(`{}`)},
		{Server: "auth", Mode: ModeURL, Message: "Link", URL: "https://a.example/", ElicitationID: "x", URLDeclared: true},
	}
	i := 0
	inner := AnswererFunc(func(context.Context, *Request) (Response, error) {
		r := answers[i]
		i++
		return r, nil
	})
	rec := NewRecorder(inner)
	eng := NewEngine(rec, nil)
	var first []Response
	for _, r := range reqs {
		got, err := eng.Answer(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, got)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.yaml")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(path, nil)
	if err != nil {
		t.Fatalf("recorded file does not load: %v\n%s", err, buf.String())
	}
	replay := NewEngine(s, nil)
	var second []Response
	for _, r := range reqs {
		got, err := replay.Answer(context.Background(), r)
		if err != nil {
			t.Fatalf("replay: %v\n%s", err, buf.String())
		}
		second = append(second, got)
	}
	// The replay decodes YAML lists as []any; compare as JSON, which is what is sent.
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("replay differs (-recorded +replayed):\n%s\nfile:\n%s", diff, buf.String())
	}
}

func TestUnansweredEntry(t *testing.T) {
	req := &Request{Server: "demo", Tool: "deploy", Message: "Deploy?", Protocol: v11, Schema: json.RawMessage(
		`{"type":"object","properties":{"env":{"type":"string","enum":["dev","prod"]},"replicas":{"type":"integer","default":2},"note":{"type":"string"},"mail":{"type":"string","format":"email"}},"required":["env","mail"]}`)}
	got := UnansweredEntry(req)
	want := `- match:
    server: demo
    tool: deploy
    message: Deploy?
  action: accept
  content:
    env: dev
    mail: user@example.com
    replicas: 2
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UnansweredEntry (-want +got):\n%s", diff)
	}
	s, err := ParseScript([]byte(got), "entry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(s, nil).Answer(context.Background(), req); err != nil {
		t.Errorf("the printed entry does not answer the request: %v", err)
	}
	urlReq := &Request{Server: "auth", Mode: ModeURL, Message: "Link", URL: "https://a.example/"}
	if want, got := "- match:\n    server: auth\n    message: Link\n    mode: url\n  action: accept\n  open: false\n", UnansweredEntry(urlReq); got != want {
		t.Errorf("url entry:\n%s\nwant:\n%s", got, want)
	}
}

func TestAutoAcceptValidates(t *testing.T) {
	schemas := []string{
		checkSchema,
		mergeSchema,
		`{"type":"object","properties":{"s":{"type":"string","minLength":3,"maxLength":3},"u":{"type":"string","format":"uri","minLength":30},"e":{"type":"string","format":"email","minLength":20},"d":{"type":"string","format":"date"},"dt":{"type":"string","format":"date-time"},"i":{"type":"integer","minimum":1.5,"maximum":3},"neg":{"type":"integer","maximum":-2.5},"x":{"type":"number","maximum":-1},"m":{"type":"array","items":{"anyOf":[{"const":"a"},{"const":"b"}]},"minItems":2},"p":{"type":"string","pattern":"^[0-9]+$"},"b":{"type":"boolean"},"o":{"type":"object"}},"required":["s","u","e","d","dt","i","neg","x","m","p","b","o"]}`,
	}
	for _, s := range schemas {
		req := &Request{Server: "x", Message: "m", Protocol: v11, Schema: json.RawMessage(s)}
		resp := AutoAccept(req)
		f := Parse(req.Schema, req.Protocol)
		if vs := f.Check(f.Merge(resp.Content)); vs != nil {
			t.Errorf("AutoAccept content %v fails: %v", resp.Content, vs)
		}
	}
	conf := &Request{Server: "x", Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive"],"default":"active"},"verified":{"type":"boolean","default":true},"opt":{"type":"string"}}}`)}
	want := Response{Action: Accept, Content: map[string]any{"name": "John Doe", "age": int64(30), "score": 95.5, "status": "active", "verified": true}}
	if diff := cmp.Diff(want, AutoAccept(conf)); diff != "" {
		t.Errorf("AutoAccept (-want +got):\n%s", diff)
	}
}

// TestUnansweredEntryEscapesServerText: a message, tool name and default holding bidi,
// zero-width, C1 and separator characters are printed as escapes, and the printed
// entry still answers the request.
func TestUnansweredEntryEscapesServerText(t *testing.T) {
	const evil = "Deploy\u202e?\u200b\u0085x\u2028y\x1b]0;t\x07"
	req := &Request{Server: "demo", Tool: "de\u202eploy", Message: evil, Protocol: v11, Schema: json.RawMessage(
		`{"type":"object","properties":{"env\u200b":{"type":"string","default":"a\u202eb\u009bc"}}}`)}
	got := UnansweredEntry(req)
	for _, r := range got {
		if r != '\n' && safe.Unsafe(r) {
			t.Fatalf("entry carries %U raw:\n%s", r, got)
		}
	}
	s, err := ParseScript([]byte(got), "entry.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	resp, err := NewEngine(s, nil).Answer(context.Background(), req)
	if err != nil {
		t.Fatalf("the printed entry does not answer the request: %v\n%s", err, got)
	}
	if v := resp.Content["env\u200b"]; v != "a\u202eb\u009bc" {
		t.Errorf("default = %q, want it kept", v)
	}
}

// TestRecorderWritesSecretReferences: a secret field's answer is recorded as a
// reference to an environment variable, which the answers-file loader expands.
func TestRecorderWritesSecretReferences(t *testing.T) {
	req := &Request{Server: "demo", Tool: "login", Message: "Sign in", Protocol: v11, Schema: json.RawMessage(
		`{"type":"object","properties":{"user":{"type":"string"},"api-token":{"type":"string"}}}`)}
	inner := AnswererFunc(func(context.Context, *Request) (Response, error) {
		return Response{Action: Accept, Content: map[string]any{"user": "ann", "api-token": "tok-s3cret"}}, nil
	})
	rec := NewRecorder(inner)
	if _, err := NewEngine(rec, nil).Answer(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	if strings.Contains(file, "tok-s3cret") || !strings.Contains(file, "${ELICITTY_SECRET_API_TOKEN}") || !strings.Contains(file, "user: ann") {
		t.Fatalf("recorded file:\n%s", file)
	}
	if got := rec.SecretEnvs(); len(got) != 1 || got[0] != "ELICITTY_SECRET_API_TOKEN" {
		t.Errorf("SecretEnvs = %v", got)
	}
	s, err := ParseScript([]byte(file), "rec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.SetOptions(&ScriptOptions{LookupEnv: func(k string) (string, bool) {
		return map[string]string{"ELICITTY_SECRET_API_TOKEN": "tok-again"}[k], k == "ELICITTY_SECRET_API_TOKEN"
	}})
	resp, err := s.Answer(context.Background(), req)
	if err != nil || resp.Content["api-token"] != "tok-again" {
		t.Fatalf("replay = %v, %v; want the variable's value", resp.Content, err)
	}
	s2, _ := ParseScript([]byte(file), "rec.yaml")
	s2.SetOptions(&ScriptOptions{LookupEnv: func(string) (string, bool) { return "", false }})
	if _, err := s2.Answer(context.Background(), req); err == nil || !strings.Contains(err.Error(), "ELICITTY_SECRET_API_TOKEN") {
		t.Errorf("replay without the variable: err = %v, want it named", err)
	}
}
