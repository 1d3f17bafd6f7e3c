package demo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestUndeclaredModes(t *testing.T) {
	formOnly := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	urlOnly := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
	for _, tc := range []struct {
		name string
		caps *mcp.ClientCapabilities
		tool string
		want string
	}{
		{"no elicitation", &mcp.ClientCapabilities{}, "form_all_kinds", "client does not support elicitation"},
		{"form only", formOnly, "link_account", `client does not support "url" elicitation`},
		{"url only", urlOnly, "confirm_only", `client does not support "form" elicitation`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			each(t, func(t *testing.T, era string, l link) {
				s, w := newDemo(t)
				opts := &mcp.ClientOptions{Capabilities: tc.caps}
				if tc.caps.Elicitation != nil {
					opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						t.Error("the client was asked in an undeclared mode")
						return &mcp.ElicitResult{Action: "cancel"}, nil
					}
				}
				cs := connect(t, s, era, l, opts)
				res := call(t, cs, tc.tool, nil)
				if !res.IsError || !strings.Contains(text(res), tc.want) {
					t.Errorf("result = %q (isError %v), want an error containing %q", text(res), res.IsError, tc.want)
				}
				if pushes, retries := w.get(); pushes != 0 || retries != 0 {
					t.Errorf("%d pushes, %d retries; want none", pushes, retries)
				}
			})
		})
	}
}

func TestValidID(t *testing.T) {
	s, _ := newDemo(t)
	c := s.consents.create("m", nil)
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{c.id, true},
		{"AAAAAAAAAAAAAAAAAAAAAAAAAA", true},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"AAAAAAAAAAAAAAAAAAAAAAAAA", false},
		{"AAAAAAAAAAAAAAAAAAAAAAAAA1", false},
		{"AAAAAAAAAAAAAAAAAAAAAAAA<>", false},
		{"", false},
	} {
		if got := validID(tc.id); got != tc.want {
			t.Errorf("validID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// FuzzDecodeState feeds arbitrary requestState strings to the server: it
// must never panic, and must accept only what it signed.
func FuzzDecodeState(f *testing.F) {
	s, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	good, err := s.encodeState(flowState{Name: "mrtr_multi", Answers: map[string]*mcp.ElicitResult{"name": {Action: "accept", Content: map[string]any{"name": "x"}}}, Pending: []string{"age"}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", ".", "a.b", good, good + "x", "x" + good, strings.Replace(good, ".", "..", 1), "eyJuIjoieCJ9.AAAA"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		st, err := s.decodeState(v)
		if err != nil {
			return
		}
		if v != good {
			t.Fatalf("accepted a state the server did not sign: %q -> %+v", v, st)
		}
	})
}

func TestStateRejectsForgery(t *testing.T) {
	s, _ := newDemo(t)
	enc, err := s.encodeState(flowState{Name: "mrtr_one"})
	if err != nil {
		t.Fatal(err)
	}
	body, sig, _ := strings.Cut(enc, ".")
	forged, _ := s.encodeState(flowState{Name: "mrtr_multi"})
	forgedBody, _, _ := strings.Cut(forged, ".")
	for _, v := range []string{body, body + ".", forgedBody + "." + sig, body + "." + sig + "A", "!" + enc} {
		if _, err := s.decodeState(v); err == nil {
			t.Errorf("decodeState(%q) succeeded", v)
		}
	}
	got, err := s.decodeState(enc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(flowState{Name: "mrtr_one"}, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

// BenchmarkElicitN measures one elicit_n call of 5 forms, answered by
// go-sdk's client, per era, in process.
func BenchmarkElicitN(b *testing.B) {
	for _, era := range eras {
		b.Run(era, func(b *testing.B) {
			s, err := New(nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.MCP().Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: answerer("accept", nil)}).
				Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "elicit_n", Arguments: map[string]any{"n": 5}})
				if err != nil || res.IsError {
					b.Fatal(fmt.Sprint(res, err))
				}
			}
		})
	}
}
