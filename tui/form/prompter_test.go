package form

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

const deploySchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2},
	"replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":9,"default":2},
	"env":{"type":"string","title":"Env","oneOf":[{"const":"dev","title":"Development"},{"const":"prod","title":"Production"}]},
	"region":{"type":"string","title":"Region","enum":["eu","us"]},
	"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b","c"]},"maxItems":2},
	"ok":{"type":"boolean","title":"OK","default":false},
	"notify":{"type":"boolean","title":"Notify"}
},"required":["name","env"]}`

func accessibleAnswer(t *testing.T, schema, input string) (elicit.Response, string, error) {
	t.Helper()
	var out bytes.Buffer
	p := NewPrompter(iotest.OneByteReader(strings.NewReader(input)), &out, &PrompterOptions{Accessible: true})
	req := &elicit.Request{Server: "demo", Protocol: "2025-11-25", Mode: elicit.ModeForm,
		Message: "Deploy \x1b[2Jnow?", Schema: []byte(schema)}
	resp, err := p.Answer(t.Context(), req)
	return resp, out.String(), err
}

func TestPrompterAccessible(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		input  string
		want   elicit.Response
	}{
		{
			name:   "accept with typed values",
			schema: deploySchema,
			// answer; name (too short, then ok); replicas (not whole, then 5); env 2;
			// region 3 (us, after "(no answer)"); tags 1, 3, done; ok y; notify 2 (yes); accept
			input: "\nA\nAda\n2.5\n5\n2\n3\n1\n3\n0\ny\n2\na\n",
			want: elicit.Response{Action: elicit.Accept, Content: map[string]any{
				"name": "Ada", "replicas": int64(5), "env": "prod", "region": "us",
				"tags": []string{"a", "c"}, "ok": true, "notify": true,
			}},
		},
		{
			name:   "defaults fill what is left empty",
			schema: deploySchema,
			input:  "\nAda\n\n1\n\n0\n\n\n\n",
			want: elicit.Response{Action: elicit.Accept, Content: map[string]any{
				"name": "Ada", "replicas": int64(2), "env": "dev", "ok": false,
			}},
		},
		{
			name:   "decline before the fields",
			schema: deploySchema,
			input:  "d\n",
			want:   elicit.Response{Action: elicit.Decline},
		},
		{
			name:   "cancel at the review",
			schema: deploySchema,
			input:  "\nAda\n\n1\n\n0\n\n\nc\n",
			want:   elicit.Response{Action: elicit.Cancel},
		},
		{
			name:   "edit at the review keeps earlier answers",
			schema: deploySchema,
			input:  "\nAda\n\n1\n\n0\n\n\ne\n\n7\n\n\n0\n\n\na\n",
			want: elicit.Response{Action: elicit.Accept, Content: map[string]any{
				"name": "Ada", "replicas": int64(7), "env": "dev", "ok": false,
			}},
		},
		{
			name:   "end of input cancels",
			schema: deploySchema,
			input:  "",
			want:   elicit.Response{Action: elicit.Cancel},
		},
		{
			name:   "empty schema is a confirm",
			schema: `{"type":"object","properties":{}}`,
			input:  "a\n",
			want:   elicit.Response{Action: elicit.Accept, Content: nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, out, err := accessibleAnswer(t, tt.schema, tt.input)
			if err != nil {
				t.Fatalf("Answer: %v\noutput:\n%s", err, out)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s\noutput:\n%s", diff, out)
			}
			if strings.Contains(out, "\x1b[2J") {
				t.Error("server message printed unsanitized")
			}
		})
	}
}

func TestPrompterAccessibleReview(t *testing.T) {
	_, out, err := accessibleAnswer(t, deploySchema, "\nAda\n\n1\n\n0\n\n\nc\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`Input requested by "demo"`,
		"Deploy now?",
		"Review: Accept sends this response:",
		`"replicas": 2`,
		`"env": "dev"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPrompterURL(t *testing.T) {
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Message: "Log in", URL: "https://example.com/x"}
	t.Run("no URL answerer cancels with a note", func(t *testing.T) {
		var out bytes.Buffer
		p := NewPrompter(strings.NewReader(""), &out, &PrompterOptions{Accessible: true})
		got, err := p.Answer(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(elicit.Response{Action: elicit.Cancel}, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		if !strings.Contains(out.String(), "cancelled") {
			t.Errorf("no note on out: %q", out.String())
		}
	})
	t.Run("delegated to the URL answerer", func(t *testing.T) {
		var seen *elicit.Request
		url := elicit.AnswererFunc(func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
			seen = r
			return elicit.Response{Action: elicit.Accept}, nil
		})
		p := NewPrompter(strings.NewReader(""), &bytes.Buffer{}, &PrompterOptions{URL: url})
		got, err := p.Answer(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if seen != req || got.Action != elicit.Accept {
			t.Errorf("got %+v, URL answerer saw %v", got, seen)
		}
	})
}

// TestPrompterOneAtATime checks that a second request waits while one is on screen, and
// that its ctx still ends the wait.
func TestPrompterOneAtATime(t *testing.T) {
	entered := make(chan struct{}, 2)
	release := make(chan struct{})
	url := elicit.AnswererFunc(func(ctx context.Context, _ *elicit.Request) (elicit.Response, error) {
		entered <- struct{}{}
		<-release
		return elicit.Response{Action: elicit.Decline}, nil
	})
	p := NewPrompter(strings.NewReader(""), &bytes.Buffer{}, &PrompterOptions{URL: url})
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Message: "m", URL: "https://example.com"}

	first := make(chan elicit.Response, 1)
	go func() {
		r, _ := p.Answer(context.Background(), req)
		first <- r
	}()
	<-entered

	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error, 1)
	go func() {
		_, err := p.Answer(ctx, req)
		second <- err
	}()
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("waiting Answer returned %v, want context.Canceled", err)
	}
	select {
	case <-entered:
		t.Error("second request was shown while the first was on screen")
	default:
	}
	close(release)
	if r := <-first; r.Action != elicit.Decline {
		t.Errorf("first answer = %v, want decline", r.Action)
	}
}

func TestPrompterAccessibleContextDone(t *testing.T) {
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeForm, Message: "m", Schema: []byte(deploySchema)}
	t.Run("done before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		p := NewPrompter(strings.NewReader("\n"), &bytes.Buffer{}, &PrompterOptions{Accessible: true})
		if _, err := p.Answer(ctx, req); !errors.Is(err, context.Canceled) {
			t.Errorf("Answer = %v, want context.Canceled", err)
		}
	})
	t.Run("done while asking", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		pr, pw := ioPipe() // an input nobody writes to
		defer pw.Close()
		out := &signalWriter{match: "Answer this request?", seen: make(chan struct{})}
		p := NewPrompter(pr, out, &PrompterOptions{Accessible: true})
		errc := make(chan error, 1)
		go func() {
			_, err := p.Answer(ctx, req)
			errc <- err
		}()
		<-out.seen
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Answer = %v, want context.Canceled", err)
		}
	})
}

// signalWriter closes seen once what is written contains match.
type signalWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	match string
	seen  chan struct{}
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.match)
	w.buf.Write(b)
	if !had && strings.Contains(w.buf.String(), w.match) {
		close(w.seen)
	}
	return len(b), nil
}
