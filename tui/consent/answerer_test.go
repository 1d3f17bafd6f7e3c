package consent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// fakeOpener records the URLs it was asked to open.
type fakeOpener struct {
	mu   sync.Mutex
	urls []string
	err  error
}

func (f *fakeOpener) Open(ctx context.Context, url string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.urls = append(f.urls, url)
	return f.err
}

func (f *fakeOpener) opened() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.urls...)
}

type result struct {
	resp elicit.Response
	err  error
}

// session runs one accessible Answer over pipes. It returns once the prompt is shown,
// with what was printed so far; answer types a line and returns the result and the rest
// of the output.
func session(t *testing.T, req *elicit.Request, opts AnswererOptions) (shown string, answer func(line string) (result, string)) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts.Accessible = true
	a := NewAnswerer(inR, outW, opts)
	done := make(chan result, 1)
	go func() {
		resp, err := a.Answer(context.Background(), req)
		outW.Close()
		done <- result{resp, err}
	}()
	br := bufio.NewReader(outR)
	var sb strings.Builder
	for !strings.Contains(sb.String(), "Choose (") || !strings.HasSuffix(sb.String(), ": ") {
		b, err := br.ReadByte()
		if err != nil {
			t.Fatalf("prompt never shown; output so far:\n%s", sb.String())
		}
		sb.WriteByte(b)
	}
	return sb.String(), func(line string) (result, string) {
		rest := make(chan string, 1)
		go func() { b, _ := io.ReadAll(br); rest <- string(b) }()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		r := <-done
		inW.Close()
		return r, <-rest
	}
}

const linkURL = "https://auth.example.com/link?s=abc"

func TestAnswererOpenAfterConsentOnly(t *testing.T) {
	op := &fakeOpener{}
	shown, answer := session(t, urlReq("demo", "Link your calendar", linkURL), AnswererOptions{Opener: op})
	for _, want := range []string{`"demo" asks you to open a link`, "Message: Link your calendar",
		"Link: " + linkURL, "Real host: auth.example.com (site example.com)", "o = open in browser",
		"Nothing has been opened"} {
		if !strings.Contains(shown, want) {
			t.Errorf("prompt lacks %q:\n%s", want, shown)
		}
	}
	if got := op.opened(); len(got) != 0 {
		t.Fatalf("opened %v before the user chose", got)
	}
	r, rest := answer("o")
	if r.err != nil || r.resp.Action != elicit.Accept {
		t.Fatalf("Answer = %+v, %v; want accept", r.resp, r.err)
	}
	if diff := cmp.Diff([]string{linkURL}, op.opened()); diff != "" {
		t.Errorf("opened (-want +got):\n%s", diff)
	}
	if strings.Contains(rest, "Could not open") {
		t.Errorf("fallback shown after a successful open:\n%s", rest)
	}
}

func TestAnswererChoices(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		copy   bool
		lines  []string
		want   elicit.Action
		opened []string
		output []string
	}{
		{"decline", linkURL, false, []string{"d"}, elicit.Decline, nil, nil},
		{"cancel", linkURL, false, []string{"x"}, elicit.Cancel, nil, nil},
		{"cancel word", linkURL, false, []string{"Cancel"}, elicit.Cancel, nil, nil},
		{"open word", linkURL, false, []string{" open "}, elicit.Accept, []string{linkURL}, nil},
		{"unknown then decline", linkURL, false, []string{"yes", "d"}, elicit.Decline, nil,
			[]string{`"yes" is not one of the choices`}},
		{"qr then open", linkURL, false, []string{"r", "o"}, elicit.Accept, []string{linkURL}, []string{"█"}},
		{"copy prints and copies", linkURL, false, []string{"c"}, elicit.Accept, nil,
			[]string{linkURL + "\n", osc52(linkURL)}},
		{"copy-only refuses open", linkURL, true, []string{"o", "c"}, elicit.Accept, nil,
			[]string{`"o" is not one of the choices`, osc52(linkURL)}},
		{"refused refuses open and copy", "javascript:alert(1)", false, []string{"o", "c", "d"}, elicit.Decline, nil,
			[]string{"Refused: the \"javascript\" scheme", `"o" is not one of the choices`, `"c" is not one of the choices`}},
		{"refused remote http", "http://example.com/x", false, []string{"o", "x"}, elicit.Cancel, nil,
			[]string{"Refused: plain http"}},
		{"end of input cancels", linkURL, false, nil, elicit.Cancel, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &fakeOpener{}
			var out bytes.Buffer
			in := strings.NewReader(strings.Join(append(tt.lines, ""), "\n"))
			if len(tt.lines) == 0 {
				in = strings.NewReader("")
			}
			a := NewAnswerer(in, &out, AnswererOptions{Opener: op, Accessible: true, CopyOnly: tt.copy})
			resp, err := a.Answer(context.Background(), urlReq("demo", "m", tt.url))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(elicit.Response{Action: tt.want}, resp); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.opened, op.opened()); diff != "" {
				t.Errorf("opened (-want +got):\n%s", diff)
			}
			for _, want := range tt.output {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestAnswererOpenerFailureFallsBack(t *testing.T) {
	op := &fakeOpener{err: &NoBrowserError{Reason: "this is an SSH session and $BROWSER is not set"}}
	var out bytes.Buffer
	a := NewAnswerer(strings.NewReader("o\n"), &out, AnswererOptions{Opener: op, Accessible: true})
	resp, err := a.Answer(context.Background(), urlReq("demo", "m", linkURL))
	if err != nil || resp.Action != elicit.Accept {
		t.Fatalf("Answer = %+v, %v; want accept despite the opener failure", resp, err)
	}
	if len(op.opened()) != 1 {
		t.Errorf("opener called %d times, want 1", len(op.opened()))
	}
	_, after, _ := strings.Cut(out.String(), "Choose (")
	for _, want := range []string{"Could not open the browser: no browser can be opened here: this is an SSH session",
		"\n" + linkURL + "\n", osc52(linkURL), "█▀"} {
		if !strings.Contains(after, want) {
			t.Errorf("fallback lacks %q:\n%s", want, after)
		}
	}
}

func TestAnswererOpenerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		release := make(chan struct{})
		defer close(release)
		// An opener that ignores its context, like a stuck launcher.
		hang := openerFunc(func(ctx context.Context, url string) error { <-release; return nil })
		a := NewAnswerer(strings.NewReader("o\n"), &out, AnswererOptions{Opener: hang, Accessible: true, OpenTimeout: 5 * time.Second})
		start := time.Now()
		resp, err := a.Answer(context.Background(), urlReq("demo", "m", linkURL))
		if err != nil || resp.Action != elicit.Accept {
			t.Fatalf("Answer = %+v, %v; want accept", resp, err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("waited %v for the opener, want the 5s timeout", d)
		}
		if !strings.Contains(out.String(), "opener did not finish") || !strings.Contains(out.String(), osc52(linkURL)) {
			t.Errorf("no fallback after the timeout:\n%s", out.String())
		}
	})
}

type openerFunc func(ctx context.Context, url string) error

func (f openerFunc) Open(ctx context.Context, url string) error { return f(ctx, url) }

func TestAnswererContextEnds(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	a := NewAnswerer(inR, io.Discard, AnswererOptions{Opener: &fakeOpener{}, Accessible: true})
	done := make(chan error, 1)
	go func() {
		_, err := a.Answer(ctx, urlReq("demo", "m", linkURL))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestAnswererNotURL(t *testing.T) {
	a := NewAnswerer(strings.NewReader(""), io.Discard, AnswererOptions{Opener: &fakeOpener{}, Accessible: true})
	_, err := a.Answer(context.Background(), &elicit.Request{Server: "demo", Mode: elicit.ModeForm})
	if !errors.Is(err, elicit.ErrUnanswered) {
		t.Errorf("err = %v, want ErrUnanswered", err)
	}
	next := elicit.AnswererFunc(func(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Decline}, nil
	})
	a = NewAnswerer(strings.NewReader(""), io.Discard, AnswererOptions{Opener: &fakeOpener{}, Next: next})
	if resp, err := a.Answer(context.Background(), &elicit.Request{Mode: elicit.ModeForm}); err != nil || resp.Action != elicit.Decline {
		t.Errorf("Next not used: %+v, %v", resp, err)
	}
}

func TestAnswererPolicyFor(t *testing.T) {
	op := &fakeOpener{}
	var out bytes.Buffer
	a := NewAnswerer(strings.NewReader("o\nd\n"), &out, AnswererOptions{Opener: op, Accessible: true,
		PolicyFor: func(server string) (ServerPolicy, bool) {
			return ServerPolicy{Policy: urlsafe.Policy{AllowedHosts: []string{"login.example.org"}}}, server == "strict"
		}})
	resp, err := a.Answer(context.Background(), urlReq("strict", "m", linkURL))
	if err != nil || resp.Action != elicit.Decline || len(op.opened()) != 0 {
		t.Fatalf("strict server: %+v, %v, opened %v; want decline and nothing opened", resp, err, op.opened())
	}
	if !strings.Contains(out.String(), "not among the hosts allowed") {
		t.Errorf("no refusal shown:\n%s", out.String())
	}
}

func TestScriptCheck(t *testing.T) {
	check := ScriptCheck(urlsafe.Policy{})
	tests := []struct {
		url     string
		refused bool
		want    []string
	}{
		{linkURL, false, []string{`url elicitation from "demo": ` + linkURL, "real host auth.example.com, site example.com"}},
		{"https://good.example@evil.example/", false, []string{"real host evil.example", "warnings: the text before \"@\" (good.example)"}},
		{"javascript:alert(1)", true, []string{"javascript:alert(1)", `refused: the "javascript" scheme`}},
		{"https://example.com/a\nb", true, []string{`https://example.com/a\nb`, "refused:"}},
	}
	for _, tt := range tests {
		refused, line := check(urlReq("demo", "m", tt.url))
		if refused != tt.refused {
			t.Errorf("%q: refused = %v, want %v", tt.url, refused, tt.refused)
		}
		if strings.Contains(line, "\n") {
			t.Errorf("%q: summary spans lines: %q", tt.url, line)
		}
		for _, w := range tt.want {
			if !strings.Contains(line, w) {
				t.Errorf("%q: summary %q lacks %q", tt.url, line, w)
			}
		}
	}
}

// TestAnswererLeavesLaterInput checks the line prompt reads no further than its answer:
// the next prompt on the same terminal (a form, another tool) gets the rest.
func TestAnswererLeavesLaterInput(t *testing.T) {
	in := strings.NewReader("d\nada\n42\n")
	a := NewAnswerer(in, io.Discard, AnswererOptions{Opener: &fakeOpener{}, Accessible: true})
	resp, err := a.Answer(context.Background(), urlReq("demo", "m", linkURL))
	if err != nil || resp.Action != elicit.Decline {
		t.Fatalf("Answer = %+v, %v", resp, err)
	}
	rest, _ := io.ReadAll(in)
	if string(rest) != "ada\n42\n" {
		t.Errorf("left %q for the next reader, want %q", rest, "ada\n42\n")
	}
}

// osc52 is the OSC 52 sequence that puts s on the system clipboard.
func osc52(s string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) + "\a"
}
