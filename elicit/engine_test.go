package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixed answers every request with resp and records what it was asked.
type fixed struct {
	resp       Response
	asked      int
	form       *Form
	noValidate bool
}

func (f *fixed) Answer(ctx context.Context, req *Request) (Response, error) {
	f.asked++
	if req.Mode != ModeURL {
		f.form = req.Form
		f.noValidate = req.NoValidate
	}
	return f.resp, nil
}

const deploySchema = `{"type":"object","properties":{"env":{"type":"string","enum":["dev","prod"],"default":"dev"},"replicas":{"type":"integer","minimum":1,"maximum":10,"default":2}},"required":["env"]}`

func formReq(schema string) *Request {
	return &Request{Server: "demo", Protocol: v11, Message: "Deploy?", Schema: json.RawMessage(schema)}
}

func TestEngineForm(t *testing.T) {
	tests := []struct {
		name    string
		opts    *EngineOptions
		schema  string
		inner   Response
		want    Response
		wantErr error
	}{
		{
			name:   "accept merges defaults",
			schema: deploySchema,
			inner:  Response{Action: Accept, Content: map[string]any{"env": "prod"}},
			want:   Response{Action: Accept, Content: map[string]any{"env": "prod", "replicas": int64(2)}},
		},
		{
			name:   "accept without content gets the defaults",
			schema: deploySchema,
			inner:  Response{Action: Accept},
			want:   Response{Action: Accept, Content: map[string]any{"env": "dev", "replicas": int64(2)}},
		},
		{
			name:   "decline carries no content",
			schema: deploySchema,
			inner:  Response{Action: Decline, Content: map[string]any{"env": "prod"}},
			want:   Response{Action: Decline},
		},
		{
			name:   "cancel carries no content",
			schema: deploySchema,
			inner:  Response{Action: Cancel, Content: map[string]any{"env": "prod"}},
			want:   Response{Action: Cancel},
		},
		{
			name:    "invalid accept is a violations error",
			schema:  deploySchema,
			inner:   Response{Action: Accept, Content: map[string]any{"env": "db", "replicas": 11.0}},
			wantErr: &ViolationsError{Violations: []Violation{{"/env", "enum", `"db" is not an allowed choice`}, {"/replicas", "maximum", "must be at most 10"}}},
		},
		{
			name:   "no-validate sends what was produced",
			opts:   &EngineOptions{NoValidate: true},
			schema: deploySchema,
			inner:  Response{Action: Accept, Content: map[string]any{"env": "db"}},
			want:   Response{Action: Accept, Content: map[string]any{"env": "db", "replicas": int64(2)}},
		},
		{
			name:   "unvalidatable schema lets the answer through",
			schema: `{"type":"object","properties":{"a":{"type":42}},"required":["a"]}`,
			inner:  Response{Action: Accept, Content: map[string]any{"b": true}},
			want:   Response{Action: Accept, Content: map[string]any{"b": true}},
		},
		{
			name:   "confirm form",
			schema: `{}`,
			inner:  Response{Action: Accept},
			want:   Response{Action: Accept},
		},
		{
			name:    "missing schema is a protocol error",
			schema:  ``,
			wantErr: &ProtocolError{Reason: "missing requestedSchema"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &fixed{resp: tt.inner}
			got, err := NewEngine(inner, tt.opts).Answer(context.Background(), formReq(tt.schema))
			if tt.wantErr != nil {
				if diff := cmp.Diff(tt.wantErr, err); diff != "" {
					t.Fatalf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEngineGivesInnerTheParsedForm(t *testing.T) {
	inner := &fixed{resp: Response{Action: Decline}}
	if _, err := NewEngine(inner, nil).Answer(context.Background(), formReq(deploySchema)); err != nil {
		t.Fatal(err)
	}
	if inner.form == nil || len(inner.form.Fields) != 2 || inner.form.Fields[0].Name != "env" {
		t.Fatalf("Request.Form inside the engine = %+v", inner.form)
	}
}

func TestEngineViolationsErrorIsUnwrapped(t *testing.T) {
	inner := &fixed{resp: Response{Action: Accept, Content: map[string]any{"env": 1.0}}}
	_, err := NewEngine(inner, nil).Answer(context.Background(), formReq(deploySchema))
	if _, ok := err.(*ViolationsError); !ok {
		t.Fatalf("error %T %v is not a bare *ViolationsError", err, err)
	}
}

func TestEngineLogsFindings(t *testing.T) {
	var log strings.Builder
	inner := &fixed{resp: Response{Action: Accept}}
	schema := `{"type":"object","properties":{"n":{"type":"integer","default":2.5}}}`
	if _, err := NewEngine(inner, &EngineOptions{Log: &log}).Answer(context.Background(), formReq(schema)); err != nil {
		t.Fatal(err)
	}
	if want := "elicitty: demo: schema default-dropped: default dropped: 2.5 is not a whole number within 64-bit range\n"; log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}

func TestEngineURL(t *testing.T) {
	ok := Request{Server: "demo", Protocol: v11, Mode: ModeURL, Message: "Link your account", URL: "https://auth.example.com/link?s=1", ElicitationID: "lnk-7", URLDeclared: true}
	tests := []struct {
		name    string
		edit    func(r *Request)
		inner   Response
		want    Response
		wantErr string
	}{
		{name: "accept passes without content", inner: Response{Action: Accept, Content: map[string]any{"x": 1}}, want: Response{Action: Accept}},
		{name: "decline", inner: Response{Action: Decline}, want: Response{Action: Decline}},
		{name: "http is allowed", edit: func(r *Request) { r.URL = "http://localhost:8080/x" }, inner: Response{Action: Accept}, want: Response{Action: Accept}},
		{name: "2026-07-28 input request needs no id", edit: func(r *Request) { r.Protocol, r.Origin, r.ElicitationID = v26, OriginInputRequest, "" }, inner: Response{Action: Accept}, want: Response{Action: Accept}},
		{name: "undeclared", edit: func(r *Request) { r.URLDeclared = false }, wantErr: "client does not support URL-mode elicitation"},
		{name: "missing url", edit: func(r *Request) { r.URL = "" }, wantErr: "missing url"},
		{name: "relative url", edit: func(r *Request) { r.URL = "/link" }, wantErr: `url "/link" is not absolute`},
		{name: "bad scheme", edit: func(r *Request) { r.URL = "javascript:alert(1)" }, wantErr: `url scheme "javascript" is not https`},
		{name: "file scheme", edit: func(r *Request) { r.URL = "file://host/etc/passwd" }, wantErr: `url scheme "file" is not https`},
		{name: "malformed url", edit: func(r *Request) { r.URL = "https://%zz" }, wantErr: "malformed url"},
		{name: "schema present", edit: func(r *Request) { r.Schema = json.RawMessage(`{}`) }, wantErr: "URL-mode elicitation must not carry a requestedSchema"},
		{name: "missing elicitationId in 2025-11-25", edit: func(r *Request) { r.ElicitationID = "" }, wantErr: "missing elicitationId"},
		{name: "missing message", edit: func(r *Request) { r.Message = "" }, wantErr: "missing message"},
		{name: "unknown mode", edit: func(r *Request) { r.Mode = "sms" }, wantErr: `unknown elicitation mode "sms"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := ok
			if tt.edit != nil {
				tt.edit(&req)
			}
			inner := &fixed{resp: tt.inner}
			got, err := NewEngine(inner, nil).Answer(context.Background(), &req)
			if tt.wantErr != "" {
				var pe *ProtocolError
				if !errors.As(err, &pe) || !strings.Contains(pe.Reason, tt.wantErr) {
					t.Fatalf("error = %v, want ProtocolError containing %q", err, tt.wantErr)
				}
				if inner.asked != 0 {
					t.Errorf("the user was asked %d times for an invalid request", inner.asked)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEngineTellsInnerTheValidationSwitch(t *testing.T) {
	for _, noValidate := range []bool{false, true} {
		inner := &fixed{resp: Response{Action: Decline}}
		req := formReq(deploySchema)
		if _, err := NewEngine(inner, &EngineOptions{NoValidate: noValidate}).Answer(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if inner.noValidate != noValidate {
			t.Errorf("NoValidate: %v: inner saw Request.NoValidate = %v", noValidate, inner.noValidate)
		}
		if req.Form != nil || req.NoValidate {
			t.Errorf("the engine modified the caller's request: %+v", req)
		}
	}
}
