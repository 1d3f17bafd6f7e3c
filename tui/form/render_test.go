package form

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

const renderSchema = `{"type":"object","properties":{
	"env":{"type":"string","enum":["dev","prod"],"default":"dev"},
	"replicas":{"type":"integer","minimum":1,"default":2},
	"nested":{"type":"object","properties":{"a":{"type":"string"}}}
},"required":["replicas"]}`

func TestRender(t *testing.T) {
	tests := []struct {
		name     string
		answers  string
		wantOut  string
		wantDiag string // a substring of the diagnostics
		wantErr  bool
		noValid  bool // the engine does not validate (--no-validate)
	}{
		{
			name:     "defaults merged into the scripted answer",
			answers:  "- match: {}\n  action: accept\n  content: {replicas: 5}\n",
			wantOut:  "{\n  \"action\": \"accept\",\n  \"content\": {\n    \"env\": \"dev\",\n    \"replicas\": 5\n  }\n}\n",
			wantDiag: "/properties/nested",
		},
		{
			name:    "decline carries no content",
			answers: "- match: {}\n  action: decline\n",
			wantOut: "{\n  \"action\": \"decline\"\n}\n",
		},
		{
			name:    "an invalid answer is the engine's violations",
			answers: "- match: {}\n  action: accept\n  content: {replicas: 0}\n",
			wantErr: true,
		},
		{
			name:    "an invalid answer is sent as it is without validation",
			answers: "- match: {}\n  action: accept\n  content: {replicas: 0}\n",
			noValid: true,
			wantOut: "{\n  \"action\": \"accept\",\n  \"content\": {\n    \"env\": \"dev\",\n    \"replicas\": 0\n  }\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := elicit.ParseScript([]byte(tt.answers), "answers.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var out, diag bytes.Buffer
			e := elicit.NewEngine(s, &elicit.EngineOptions{NoValidate: tt.noValid})
			err = Render(t.Context(), []byte(renderSchema), "2025-11-25", e, &out, &diag)
			if tt.wantErr {
				var ve *elicit.ViolationsError
				if !errors.As(err, &ve) {
					t.Fatalf("Render = %v, want a *elicit.ViolationsError", err)
				}
				if out.Len() != 0 {
					t.Errorf("printed a response for invalid content: %s", out.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if diff := cmp.Diff(tt.wantOut, out.String()); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if !strings.Contains(diag.String(), tt.wantDiag) {
				t.Errorf("diagnostics lack %q:\n%s", tt.wantDiag, diag.String())
			}
		})
	}
}

func TestRenderNotJSON(t *testing.T) {
	err := Render(t.Context(), []byte("{not json"), "2025-11-25", elicit.AnswererFunc(nil), &bytes.Buffer{}, nil)
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("Render = %v, want a not-valid-JSON error", err)
	}
}

func TestPreview(t *testing.T) {
	s, err := elicit.ParseScript([]byte("- match: {}\n  action: decline\n"), "answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	req := &elicit.Request{Server: "preview", Protocol: "2025-11-25", Mode: elicit.ModeForm,
		Message: "Confirm the deploy", Schema: []byte(`{"type":"object","properties":{}}`)}
	var out, diag bytes.Buffer
	text := PreviewText{When: "before deploying", OnDecline: "the deploy is skipped", OnCancel: "the call fails"}
	if err := Preview(t.Context(), req, text, elicit.NewEngine(s, nil), &out, &diag); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("{\n  \"action\": \"decline\"\n}\n", out.String()); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	for _, want := range []string{"asked when: before deploying", "on decline: the deploy is skipped"} {
		if !strings.Contains(diag.String(), want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diag.String())
		}
	}
	if strings.Contains(diag.String(), "on cancel") {
		t.Errorf("cancel prose shown for a decline:\n%s", diag.String())
	}
}

// TestRenderPrintsWhatIsSent: render's JSON shows & as &, and a default's bidi
// override and zero-width character as \u escapes, never raw.
func TestRenderPrintsWhatIsSent(t *testing.T) {
	schema := `{"type":"object","properties":{"who":{"type":"string","default":"Tom & Jerry\u202e\u200b\u0085"}}}`
	s, err := elicit.ParseScript([]byte("- match: {}\n  action: accept\n"), "answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out, diag bytes.Buffer
	if err := Render(t.Context(), []byte(schema), "2025-11-25", elicit.NewEngine(s, nil), &out, &diag); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"action\": \"accept\",\n  \"content\": {\n    \"who\": \"Tom & Jerry\\u202e\\u200b\\u0085\"\n  }\n}\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("render output (-want +got):\n%s", diff)
	}
}
