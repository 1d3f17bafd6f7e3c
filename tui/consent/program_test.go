package consent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
)

// TestAnswererScreen drives the inline bubbletea screen with key bytes, as a terminal
// would send them.
func TestAnswererScreen(t *testing.T) {
	tests := []struct {
		name   string
		keys   string
		want   elicit.Action
		opened int
		final  string
	}{
		{"open", "o", elicit.Accept, 1, "Opening " + linkURL + " in your browser."},
		{"decline", "d", elicit.Decline, 0, `Declined the link from "demo".`},
		{"escape cancels", "\x1b", elicit.Cancel, 0, "Cancelled."},
		{"down enter copies", "\x1b[B\r", elicit.Accept, 0, "Accepted without opening: " + linkURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &fakeOpener{}
			var out bytes.Buffer
			inR, inW := io.Pipe()
			a := NewAnswerer(inR, &out, AnswererOptions{Opener: op, NoColor: true, Width: 80, Height: 24, NoClipboard: true})
			done := make(chan result, 1)
			go func() {
				resp, err := a.Answer(context.Background(), urlReq("demo", "Link your calendar", linkURL))
				done <- result{resp, err}
			}()
			if _, err := io.WriteString(inW, tt.keys); err != nil {
				t.Fatal(err)
			}
			r := <-done
			inW.Close()
			if r.err != nil || r.resp.Action != tt.want {
				t.Fatalf("Answer = %+v, %v; want %s\n%s", r.resp, r.err, tt.want, ansi.Strip(out.String()))
			}
			if got := len(op.opened()); got != tt.opened {
				t.Errorf("opened %d times, want %d", got, tt.opened)
			}
			// The renderer may skip frames; the final frame always says what was chosen.
			if s := ansi.Strip(out.String()); !strings.Contains(s, tt.final) {
				t.Errorf("final screen lacks %q:\n%s", tt.final, s)
			}
		})
	}
}

func TestAnswererScreenContextEnds(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	op := &fakeOpener{}
	ctx, cancel := context.WithCancel(context.Background())
	a := NewAnswerer(inR, io.Discard, AnswererOptions{Opener: op, NoColor: true, Width: 80, Height: 24})
	done := make(chan error, 1)
	go func() {
		_, err := a.Answer(ctx, urlReq("demo", "m", linkURL))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(op.opened()) != 0 {
		t.Errorf("opened %v without consent", op.opened())
	}
}
