package consent

import (
	"context"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestInlineWaitShowsLinkAndEndsOnCompletion: after consent the inline prompt says it
// waits, with the link in full and what completes it, and the server's completion
// ends the wait with a line saying so. It speaks of the browser only when the link was
// opened: after "copy only" it waits for the step at the link and offers o open (the
// key itself: e2e, TestTmuxInlineURLWaitKeys).
func TestInlineWaitShowsLinkAndEndsOnCompletion(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"opened", "o\n", []string{"Waiting for the step in your browser at\nhttps://auth.example.com/link?s=abc\n",
			"o reopen, y copy"}},
		{"copied", "c\n", []string{"Waiting for the step at the link\nhttps://auth.example.com/link?s=abc\n",
			"o open, y copy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &testkit.LockedBuffer{}
			a := NewAnswerer(strings.NewReader(tc.input), out, AnswererOptions{Accessible: true, NoClipboard: true, ShowWait: true, Opener: &fakeOpener{}})
			req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginURLRequired, Message: "Link it.",
				URL: "https://auth.example.com/link?s=abc", ElicitationID: "e-7"}
			resp, err := a.Answer(context.Background(), req)
			if err != nil || resp.Action != elicit.Accept {
				t.Fatalf("Answer = %+v, %v", resp, err)
			}
			a.Completed("other", "e-7") // another server's id: not this flow
			a.Completed("demo", "e-7")
			got := out.String()
			for _, want := range append(tc.want, "notifications/elicitation/complete for e-7", "demo reports the step at the link done.") {
				if !strings.Contains(got, want) {
					t.Errorf("output lacks %q:\n%s", want, got)
				}
			}
			if tc.name != "opened" && strings.Contains(got, "Waiting for the step in your browser") {
				t.Errorf("the wait speaks of a browser step after copy only:\n%s", got)
			}
			a.StopWaiting() // nothing left: returns at once
		})
	}
}

// TestInlineWaitEndsAtNextRequest: the next request takes the terminal back from the
// wait; StopWaiting ends a wait that nothing completed.
func TestInlineWaitEndsAtNextRequest(t *testing.T) {
	out := &testkit.LockedBuffer{}
	a := NewAnswerer(strings.NewReader("c\nd\n"), out, AnswererOptions{Accessible: true, NoClipboard: true, ShowWait: true, Opener: &fakeOpener{}})
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeURL, Origin: elicit.OriginInputRequest, Protocol: "2026-07-28",
		URL: "https://auth.example.com/link?s=abc"}
	if r, err := a.Answer(context.Background(), req); err != nil || r.Action != elicit.Accept {
		t.Fatalf("first round = %+v, %v", r, err)
	}
	again := *req
	again.Repeat = 1
	if r, err := a.Answer(context.Background(), &again); err != nil || r.Action != elicit.Decline {
		t.Fatalf("second round = %+v, %v", r, err)
	}
	a.StopWaiting()
	if got := out.String(); !strings.Contains(got, "asks again in its next round") {
		t.Errorf("the wait did not say what completes it:\n%s", got)
	}
}

// TestEscSeqSkipsTerminalAnswers: letters inside escape sequences (a terminal's answer
// to a query, an arrow key) are not keys; letters typed on their own are.
func TestEscSeqSkipsTerminalAnswers(t *testing.T) {
	in := "\x1b[?1;2c" + "r" + "\x1b[A" + "\x1b]11;rgb:0000/0000/0000\x1b\\" + "c" + "\x1bP>|tmux 3.4\x1b\\" + "\x1b]10;rgb:ffff\x07" + "y"
	var e escSeq
	var got []byte
	for i := 0; i < len(in); i++ {
		if e.key(in[i]) {
			got = append(got, in[i])
		}
	}
	if string(got) != "rcy" {
		t.Errorf("keys %q, want \"rcy\"", got)
	}
}

// TestPrintlnEndsTheWaitingLine: a line printed while the waiting line shows starts on
// a line of its own (the waiting line is cleared first) and the waiting line is drawn
// again below it; with no wait it is printed as it is.
func TestPrintlnEndsTheWaitingLine(t *testing.T) {
	out := &testkit.LockedBuffer{}
	a := NewAnswerer(strings.NewReader(""), out, AnswererOptions{NoClipboard: true, Opener: &fakeOpener{}})
	a.Println("elicitty: demo: log before")
	a.drawMu.Lock()
	a.status = func() string { return "waiting 3s · c cancel" }
	a.drawMu.Unlock()
	_, _ = out.Write([]byte("\r\x1b[2Kwaiting 3s · c cancel"))
	a.Println("elicitty: demo: log during")
	want := "elicitty: demo: log before\n\r\x1b[2Kwaiting 3s · c cancel\r\x1b[2Kelicitty: demo: log during\nwaiting 3s · c cancel"
	if got := out.String(); got != want {
		t.Errorf("output %q\nwant   %q", got, want)
	}
}
