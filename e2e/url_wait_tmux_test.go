package e2e

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// noBrowser is the environment of a machine whose browser fails: $BROWSER names a
// command that exits 1 (and no $ELICITTY_OPENER), marked so that the demo servers it
// starts can be found afterwards (demoGone).
func noBrowser() (env []string, mark string) {
	mark = fmt.Sprintf("ELICITTY_URLWAIT_RUN=%d", runSeq.Add(1))
	return []string{"BROWSER=false", mark}, mark
}

// demoGone fails when a demo server started under mark outlived elicitty.
func demoGone(t *testing.T, mark string) {
	t.Helper()
	if pids := serveDemoWithEnv(mark); len(pids) > 0 {
		t.Errorf("the demo server outlived elicitty: pids %v", pids)
	}
}

// approve plays the browser: it presses the demo consent page's Approve button.
func approve(t *testing.T, consent string) {
	t.Helper()
	resp, err := http.Post(consent+"/approve", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatalf("approve %s: %v", consent, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve %s: %s", consent, resp.Status)
	}
}

// consentURL26 is consentURL with the id's exact length (rand.Text: 26 characters), so
// that a wrapped URL's next line does not run into it.
var consentURL26 = regexp.MustCompile(`http://127\.0\.0\.1:\d+/consent/[A-Z2-7]{26}`)

// joinedURL finds the demo's consent URL in lines that may wrap it.
func joinedURL(t *testing.T, lines []string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimSpace(l))
	}
	m := consentURL26.FindString(b.String())
	if m == "" {
		t.Fatalf("no consent URL in:\n%s", strings.Join(lines, "\n"))
	}
	return m
}

// TestTmuxInlineURLNoBrowserWaits: on the inline prompt, "Open in browser" with a
// failing browser says why and prints the link; then a waiting line shows the link
// (nothing opened it: the step is at the link, o opens it), the time since consent and
// what completes it, and the server's completion ends the wait: the -32042 call
// retries and returns "linked".
func TestTmuxInlineURLNoBrowserWaits(t *testing.T) {
	t.Parallel()
	env, mark := noBrowser()
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true, RawOutput: true, Env: env},
		"call", "needs_link", "--protocol", "2025-11-25", "--", bin, "serve-demo")
	tm.WaitFor("Nothing has been opened or fetched.")
	tm.Keys("o")
	screen := tm.WaitFor("Waiting for the step at the link\nhttp://127.0.0.1:", "r retry now", "o open", "c cancel")
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "notifications/elicitation/complete for") {
		t.Errorf("the wait does not say what completes it:\n%s", screen)
	}
	tm.WaitOutput("Could not open the browser") // the prompt said the browser failed
	waitTicked(tm)
	_, after, _ := strings.Cut(tm.Screen(), "Waiting for the step at the link\n")
	link := consentURL.FindString(after)
	approve(t, link)
	code, stdout := tm.Wait()
	if code != 0 || strings.TrimSpace(stdout) != "linked" {
		t.Fatalf("exit %d, stdout %q; want 0 and linked\n%s", code, stdout, tm.Screen())
	}
	screen = tm.WaitFor("reports the step at the link done.")
	if strings.Contains(screen, "is done (notifications/elicitation/complete") {
		t.Errorf("the completion is told twice (the wait's line, then the event's):\n%s", screen)
	}
	demoGone(t, mark)
}

// TestTmuxInlineURLWaitKeys: after "copy only" the waiting line speaks of the step at
// the link, not of a browser, and offers o open; o opens the link (the opener records
// it) and says so. r on the waiting line retries the -32042 call at once (the server
// asks again: the consent screen comes back), and c cancels the call: exit 130.
func TestTmuxInlineURLWaitKeys(t *testing.T) {
	t.Parallel()
	mark := runMark(t)
	opener, record := recordingOpener(t)
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true, Env: []string{"ELICITTY_OPENER=" + opener, mark}},
		"call", "needs_link", "--protocol", "2025-11-25", "--", bin, "serve-demo")
	tm.WaitFor("Nothing has been opened or fetched.")
	tm.Keys("c") // copy only
	screen := tm.WaitFor("Waiting for the step at the link", "r retry now", "o open")
	if strings.Contains(screen, "browser") {
		t.Errorf("after copy only the wait speaks of a browser:\n%s", screen)
	}
	waitTicked(tm)
	tm.Keys("o")
	tm.WaitFor("Opened in your browser.", "o reopen")
	if b, err := os.ReadFile(record); err != nil || !strings.Contains(string(b), "http://127.0.0.1:") {
		t.Errorf("o did not open the link: %q, %v", b, err)
	}
	tm.Keys("r")
	tm.WaitFor("Retrying now.")
	tm.WaitFor("Nothing has been opened or fetched.") // not linked yet: asked again
	tm.Keys("c")
	tm.WaitFor("Waiting for the step at the link")
	waitTicked(tm)
	tm.Keys("c")
	code, _ := tm.Wait()
	if code != 130 {
		t.Fatalf("exit %d after c, want 130\n%s", code, tm.Screen())
	}
	tm.WaitFor("cancelled while waiting for the link")
	demoGone(t, mark)
}

// TestTmuxTUIURLNoBrowser: in the TUI, "Open in browser" with a failing browser keeps
// the consent screen: it says why, shows the link in full and offers "I opened it
// myself"; after i the waiting screen shows the link, and the server's completion
// closes it with the call's result. At 80x24 and 60x15.
func TestTmuxTUIURLNoBrowser(t *testing.T) {
	for _, size := range []struct {
		name       string
		cols, rows int
		tool       string
		protocol   string
		completes  string // what the waiting screen says completes the flow
	}{
		{"push 80x24", 80, 24, "link_account", "2025-11-25", "notifications/elicitation/complete"},
		{"push 60x15", 60, 15, "link_account", "2025-11-25", "notifications/elicitation/complete"},
		{"-32042 60x15", 60, 15, "needs_link", "2025-11-25", "or at once with r"},
		{"mrtr 80x24", 80, 24, "mrtr_url", "2026-07-28", "asks again in its next round"},
	} {
		t.Run(size.name, func(t *testing.T) {
			t.Parallel()
			env, mark := noBrowser()
			tm := startTerm(t, tmuxterm.Options{Env: env, Cols: size.cols, Rows: size.rows}, "demo", "--protocol", size.protocol)
			tm.WaitFor("ready")
			selectTool(t, tm, size.tool)
			tm.Keys("Enter") // no arguments, not marked read-only: it asks
			tm.Keys("y")
			tm.WaitFor("asks you to open a link", "Open in browser", "Decline", "Cancel")
			tm.Keys("o")
			screen := tm.WaitFor("Open this link yourself", "Could not open the browser", "I opened it", "Decline", "Cancel")
			link := joinedURL(t, mainPane(screen))
			tm.Keys("i")
			screen = tm.WaitFor("Waiting for the step in your browser", "since", "c cancel")
			if flat := strings.Join(strings.Fields(strings.Join(mainPane(screen), " ")), " "); !strings.Contains(flat, size.completes) {
				t.Errorf("the waiting screen does not say %q:\n%s", size.completes, screen)
			}
			if got := joinedURL(t, mainPane(screen)); got != link {
				t.Errorf("the waiting screen shows %s, the consent screen showed %s:\n%s", got, link, screen)
			}
			approve(t, link)
			tm.WaitFor("linked")
			if s := tm.Screen(); strings.Contains(s, "esc back") {
				t.Errorf("the waiting screen outlived the flow:\n%s", s)
			}
			tm.Keys("q")
			if code, _ := tm.Wait(); code != 0 {
				t.Errorf("elicitty demo exited %d after q, want 0", code)
			}
			demoGone(t, mark)
		})
	}
}

// waitTicked waits until the inline wait's clock has ticked, so that its keys are read.
func waitTicked(tm *tmuxTerm) {
	tm.T().Helper()
	tm.WaitUntil("the elapsed time counting", false, func(s string) bool {
		return regexp.MustCompile(`waiting [1-9][0-9]*s`).MatchString(s)
	})
}
