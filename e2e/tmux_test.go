package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// These tests drive elicitty in a real terminal (tmux, 80x24, NO_COLOR): they type
// what a user types and assert on what the screen shows and on what the server got.

// everyKindAnswer is what fillEveryKind types into the demo's form_all_kinds form, as
// the demo server echoes it back (JSON numbers are float64). Every value differs from
// the field's default, so each one proves a keystroke reached the right field.
var everyKindAnswer = map[string]any{
	"name":      "Grace Hopper",
	"seats":     float64(5),
	"email":     "grace@example.com",
	"region":    "ap-south",
	"homepage":  "https://example.org/grace",
	"budget":    12.5,
	"size":      "L",
	"birthday":  "1906-12-09",
	"tags":      []any{"api", "db", "ops"},
	"subscribe": false,
	"color":     "g",
	"meeting":   "2026-12-01T10:00:00Z",
	"features":  []any{"audit", "backup"},
}

// everyKindTitles are the titles of form_all_kinds' fields, in the server's order.
var everyKindTitles = []string{
	"Full name *", "Seats *", "Email *", "Region *", "Homepage", "Budget (EUR)", "T-shirt size",
	"Birthday", "Tags *", "Subscribe to the newsletter", "Favourite colour", "Meeting time", "Features",
}

// fillEveryKind answers the form_all_kinds form field by field with keystrokes and
// accepts it at the review step. It waits for the focus to reach each field before
// typing into it, so the walk also proves the fields come in the server's order.
func fillEveryKind(t *testing.T, tm *tmuxTerm) {
	t.Helper()
	fill := func(title, text string) {
		t.Helper()
		tm.WaitFocus(title)
		tm.TypeText(text)
		tm.WaitFor("┃ > " + text)
		tm.Keys("Enter")
	}
	choose := func(title string, downs int, label string) {
		t.Helper()
		tm.WaitFocus(title)
		for range downs {
			tm.Keys("Down")
		}
		tm.WaitFor("┃ > " + label)
		tm.Keys("Enter")
	}

	fill("Full name *", "Grace Hopper")
	fill("Seats *", "5")
	fill("Email *", "grace@example.com")
	choose("Region *", 2, "Asia Pacific (Mumbai)") // titled oneOf, default Europe
	fill("Homepage", "https://example.org/grace")
	fill("Budget (EUR)", "12.5")
	choose("T-shirt size", 1, "L") // untitled enum, default M
	fill("Birthday", "1906-12-09")

	// Multi-select items.enum with the default [api] ticked: tick db and ops too.
	tm.WaitFocus("Tags *")
	tm.Keys("Down", "x", "Down", "Down", "x")
	tm.WaitFor("┃   [•] api", "┃   [•] db", "┃   [ ] ui", "┃ > [•] ops")
	tm.Keys("Enter")

	// Boolean with default true. With NO_COLOR, bold is all that shows which
	// button is chosen: check it does.
	tm.WaitFocus("Subscribe to the newsletter")
	tm.WaitRaw("\x1b[1myes")
	tm.Keys("Right")
	tm.WaitRaw("\x1b[1mno")
	tm.Keys("Enter")

	choose("Favourite colour", 2, "Green") // legacy enum+enumNames: (no answer), Red, Green
	fill("Meeting time", "2026-12-01T10:00:00Z")

	// Titled multi-select items.anyOf, at most two.
	tm.WaitFocus("Features")
	tm.Keys("Down", "x", "Down", "x")
	tm.WaitFor("┃   [ ] Single sign-on", "┃   [•] Audit log", "┃ > [•] Nightly backups")
	tm.Keys("Enter")

	tm.WaitFor("Review: Accept sends this response", `"action": "accept"`, `"budget": 12.5`,
		`"email": "grace@example.com"`, "[ Accept ]")
	tm.Keys("a")
}

// assertTitlesInOrder checks that the titles of the first page appear top to bottom
// in the server's order.
func assertTitlesInOrder(t *testing.T, screen string, titles []string) {
	t.Helper()
	prev := -1
	for _, title := range titles {
		i := lineIndex(screen, title)
		if i <= prev {
			t.Fatalf("field %q is not below the previous field (line %d, previous %d):\n%s", title, i, prev, screen)
		}
		prev = i
	}
}

// TestTmuxInlineFormEveryKind answers the demo's form with every field kind inline, in
// both eras (a pushed elicitation/create and a 2026-07-28 input request), by keystrokes
// in a real terminal, and checks the server's echo of what it received field by field.
func TestTmuxInlineFormEveryKind(t *testing.T) {
	type round struct {
		Kind    string   `json:"kind"`
		Keys    []string `json:"keys"`
		Actions []string `json:"actions"`
	}
	tests := []struct {
		protocol string
		rounds   []round
	}{
		{"2025-11-25", []round{}},
		{"2026-07-28", []round{{Kind: "input_required", Keys: []string{"profile"}, Actions: []string{"accept"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.protocol, func(t *testing.T) {
			t.Parallel()
			tm := startTerm(t, tmuxterm.Options{StdoutToFile: true},
				"call", "form_all_kinds", "--json", "--protocol", tt.protocol, "--", bin, "serve-demo")
			first := tm.WaitFocus("Full name *")
			// The server is named after its command, as configured ad hoc.
			for _, want := range []string{
				`Input requested by "` + filepath.Base(bin) + `" during tools/call form_all_kinds`,
				"Tell us about yourself (this form uses every field kind)",
				"As it should appear on your badge",
				"> Ada Lovelace (default)",
			} {
				if !strings.Contains(first, want) {
					t.Errorf("first screen lacks %q:\n%s", want, first)
				}
			}
			assertTitlesInOrder(t, first, everyKindTitles[:3])

			fillEveryKind(t, tm)
			code, stdout := tm.Wait()
			if code != 0 {
				t.Fatalf("exit %d; stdout:\n%s\nscreen:\n%s", code, stdout, tm.Screen())
			}
			var out struct {
				Result struct {
					IsError           bool `json:"isError"`
					StructuredContent struct {
						Action  string         `json:"action"`
						Content map[string]any `json:"content"`
					} `json:"structuredContent"`
				} `json:"result"`
				Rounds []round `json:"rounds"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("--json output: %v\n%s", err, stdout)
			}
			if out.Result.IsError || out.Result.StructuredContent.Action != "accept" {
				t.Fatalf("result: isError %v, action %q\n%s", out.Result.IsError, out.Result.StructuredContent.Action, stdout)
			}
			if diff := cmp.Diff(everyKindAnswer, out.Result.StructuredContent.Content); diff != "" {
				t.Errorf("content the server received (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.rounds, out.Rounds); diff != "" {
				t.Errorf("rounds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTmuxInlineDeclineVersusCancel checks that ctrl+x declines and esc cancels an
// inline form (the demo's empty-schema confirmation), and that the server tells them
// apart.
func TestTmuxInlineDeclineVersusCancel(t *testing.T) {
	tests := []struct {
		name, key, action, want string
	}{
		{"decline", "C-x", "decline", "declined"},
		{"cancel", "Escape", "cancel", "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "confirm_only", "--", bin, "serve-demo")
			tm.WaitFor("Proceed with the demo operation?", "This request has no fields", "[ Accept ]",
				"esc cancel · a accept · d decline")
			tm.Keys(tt.key)
			code, stdout := tm.Wait()
			if code != 0 || strings.TrimSpace(stdout) != tt.want {
				t.Fatalf("exit %d, stdout %q; want 0 and %q\nscreen:\n%s", code, stdout, tt.want, tm.Screen())
			}
			tm.WaitFor(`"` + filepath.Base(bin) + `": ` + tt.action)
		})
	}
}

// fakeOpener returns an $ELICITTY_OPENER command line that records the URL it is given
// in the returned file and approves the demo's consent page by POSTing to URL/approve,
// as a browser would. It uses curl when there is one, else the test opener in
// testdata/opener.
func fakeOpener(t *testing.T) (cmdline, record string) {
	t.Helper()
	dir := t.TempDir()
	record = filepath.Join(dir, "opened")
	if curl, err := exec.LookPath("curl"); err == nil {
		script := filepath.Join(dir, "opener.sh")
		body := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + shellQuote(record) + "\n" +
			"exec " + shellQuote(curl) + " -sf -X POST -o /dev/null \"$1/approve\"\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return script, record
	}
	opener := filepath.Join(dir, "opener")
	if out, err := exec.Command("go", "build", "-o", opener, "./testdata/opener").CombinedOutput(); err != nil {
		t.Fatalf("build testdata/opener: %v\n%s", err, out)
	}
	return opener + " -record " + record, record
}

// consentURL finds the demo's consent URL on a screen.
var consentURL = regexp.MustCompile(`http://127\.0\.0\.1:(\d+)/consent/[A-Z0-9]+`)

// TestTmuxInlineURLConsent answers the demo's URL-mode link_account on a terminal: the
// consent screen names the server and shows the full URL and its host before anything
// is opened; Open runs the (fake) browser, which approves the page, and the call
// finishes "linked"; Decline opens nothing.
func TestTmuxInlineURLConsent(t *testing.T) {
	tests := []struct {
		name, protocol, key, want string
		opens                     bool
	}{
		{"open 2025-11-25", "2025-11-25", "o", "linked", true},
		{"open 2026-07-28", "2026-07-28", "o", "linked", true},
		{"decline", "2025-11-25", "d", "declined", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opener, record := fakeOpener(t)
			tm := startTerm(t, tmuxterm.Options{StdoutToFile: true, Env: []string{"ELICITTY_OPENER=" + opener}},
				"call", "link_account", "--protocol", tt.protocol, "--", bin, "serve-demo")
			screen := tm.WaitFor("Nothing has been opened or fetched.")
			for _, want := range []string{
				`"` + filepath.Base(bin) + `" asks you to open a link (for link_account)`,
				"Link your demo account: approve the request on the consent page",
				"Open in browser", "Decline",
			} {
				if !strings.Contains(screen, want) {
					t.Errorf("consent screen lacks %q:\n%s", want, screen)
				}
			}
			m := consentURL.FindStringSubmatch(screen)
			if m == nil {
				t.Fatalf("consent screen shows no consent URL in full:\n%s", screen)
			}
			url, port := m[0], m[1]
			if !regexp.MustCompile(`Goes to: 127\.0\.0\.1\s+port ` + port + `\b`).MatchString(screen) {
				t.Errorf("consent screen lacks the host line for 127.0.0.1 port %s:\n%s", port, screen)
			}
			if _, err := os.Stat(record); !os.IsNotExist(err) {
				t.Fatalf("the opener ran before the user chose (stat: %v)", err)
			}

			tm.Keys(tt.key)
			code, stdout := tm.Wait()
			if code != 0 || strings.TrimSpace(stdout) != tt.want {
				t.Fatalf("exit %d, stdout %q; want 0 and %q\nscreen:\n%s", code, stdout, tt.want, tm.Screen())
			}
			opened, err := os.ReadFile(record)
			switch {
			case !tt.opens && !os.IsNotExist(err):
				t.Errorf("declined, yet the opener ran: %q (%v)", opened, err)
			case tt.opens && err != nil:
				t.Errorf("the opener never ran: %v", err)
			case tt.opens && strings.Count(string(opened), url) != 1:
				t.Errorf("the opener got %q, want %s once", opened, url)
			}
		})
	}
}

// selectTool moves the TUI's Tools list cursor onto the tool called name. With
// NO_COLOR the cursor is reverse video, so it reads the screen's attributes.
func selectTool(t *testing.T, tm *tmuxTerm, name string) {
	t.Helper()
	// highlighted returns the Tools list's selected row (reverse video): right of the
	// servers pane, or (under 72 columns, where the pane is not drawn) the whole line
	// below the tab bar.
	highlighted := func(raw string) string {
		lines := strings.Split(raw, "\n")
		for i, line := range lines {
			main, ok := line, i > 0 && !strings.Contains(raw, "│")
			if _, m, cut := strings.Cut(line, "│"); cut {
				main, ok = m, true
			}
			if ok && strings.Contains(main, "\x1b[7m") {
				return main
			}
		}
		return ""
	}
	onTool := func(raw string) bool { return strings.Contains(highlighted(raw), " "+name+"  ") }
	for range 30 {
		// Start only from a screen with a selection: its first appearance is not a move.
		before := tm.WaitUntil("a selected tool", true, func(s string) bool { return highlighted(s) != "" })
		if onTool(before) {
			return
		}
		// Wait for the selection itself to move: other parts of the screen (the servers
		// pane filling in) may change first, and a second Down sent before the first
		// one lands would skip a row.
		was := highlighted(before)
		tm.Keys("Down")
		tm.WaitUntil("the cursor moving", true, func(s string) bool { h := highlighted(s); return h != "" && h != was })
	}
	t.Fatalf("tool %q not found in the Tools list:\n%s", name, tm.Screen())
}

// mainPane returns the text right of the TUI's servers pane (the whole line when no pane is
// shown), line by line.
func mainPane(screen string) []string {
	var out []string
	pane := strings.Contains(screen, "│")
	for _, line := range strings.Split(screen, "\n") {
		if _, main, ok := strings.Cut(line, "│"); ok {
			out = append(out, main)
		} else if !pane {
			out = append(out, line) // under 100 columns a screen has the whole width
		}
	}
	return out
}

// TestTmuxTUIFormEveryKind runs `elicitty demo` at 80x24, calls form_all_kinds from the
// Tools list, answers the form that pops up with keystrokes and reads the server's
// echo of the content in the result pane.
func TestTmuxTUIFormEveryKind(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{}, "demo")
	tm.WaitFor("demo ready", "form_all_kinds")
	selectTool(t, tm, "form_all_kinds")
	tm.Keys("Enter") // read-only: it runs at once

	first := tm.WaitFocus("Full name *")
	for _, want := range []string{
		`Input requested by "demo" during tools/call form_all_kinds`,
		"Tell us about yourself (this form uses every field kind)",
		"1 in flight · 1 pending",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	assertTitlesInOrder(t, first, everyKindTitles[:3])
	fillEveryKind(t, tm)

	screen := tm.WaitFor("tools/call form_all_kinds done", "0 in flight · 0 pending", "accepted: ")
	// The result text is wrapped at the pane's width, at spaces where it has them: join
	// its lines back and compare without spaces.
	var text strings.Builder
	in := false
	for _, l := range mainPane(screen) {
		if strings.HasPrefix(l, "accepted: ") {
			in = true
		}
		if in && strings.TrimSpace(l) == "" {
			break
		}
		if in {
			text.WriteString(l)
		}
	}
	want, err := json.Marshal(everyKindAnswer) // sorted keys, compact: as the demo writes it
	if err != nil {
		t.Fatal(err)
	}
	if got, unwrapped := text.String(), "accepted: "+string(want); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(unwrapped, " ", "") {
		t.Errorf("result on screen:\n got %s\nwant accepted: %s\nscreen:\n%s", got, want, screen)
	}
}

// TestTmuxTUIToolArguments runs `elicitty demo` at 80x24, calls the demo's echo tool
// through its argument form, typing the argument as a user would, and reads the result.
func TestTmuxTUIToolArguments(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{}, "demo")
	tm.WaitFor("demo ready", "echo")
	selectTool(t, tm, "echo")
	tm.Keys("Enter")
	tm.WaitFor(`Arguments for tool echo on demo`, "┃ text *")
	// One key at a time, each waited for, so that no key lands in a field that is still
	// taking focus.
	const text = "hello tmux"
	for i, r := range text {
		tm.TypeText(string(r))
		tm.WaitFor(strings.TrimRight(text[:i+len(string(r))], " "))
	}
	tm.Keys("Enter")
	tm.WaitFor("Review: Call sends these arguments", `"text": "hello tmux"`, "[ Call ]")
	tm.Keys("a")
	tm.WaitFor("tools/call echo · done", "hello tmux")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty demo exited %d after q, want 0", code)
	}
}

// TestTmuxTUIMRTRRound runs `elicitty demo --protocol 2026-07-28`, calls mrtr_one and
// answers its input request (one MRTR round) from the TUI.
func TestTmuxTUIMRTRRound(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{}, "demo", "--protocol", "2026-07-28")
	tm.WaitFor("ready 2026-07-28")
	selectTool(t, tm, "mrtr_one")
	tm.Keys("Enter") // read-only: it runs at once

	tm.WaitFocus("Colour *")
	tm.WaitFor("Answering demo form (input-request) ← tools/call mrtr_one", "Pick a colour", "1 pending")
	tm.Keys("Down")
	tm.WaitFor("┃ > Green")
	tm.Keys("Enter")
	tm.WaitFor(`"color": "green"`, "[ Accept ]")
	tm.Keys("a")
	tm.WaitFor("tools/call mrtr_one · done · 1 round", "you picked green", "0 in flight · 0 pending")
}

// TestTmuxInlineSecretMaskedAndValidated answers the demo's secret_warning form: the
// secret warning shows, what is typed never appears on the screen (not in the field,
// not in the review), a too-short token is refused in place and the server gets the
// token the user finally typed.
func TestTmuxInlineSecretMaskedAndValidated(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "secret_warning", "--", bin, "serve-demo")
	tm.WaitFocus("API token *")
	tm.WaitFor("looks like a secret", "servers should use URL mode")
	tm.TypeText("s3cr")
	tm.Keys("Enter")
	screen := tm.WaitFor("┃ > ****", "must be at least 8 characters long")
	tm.TypeText("et-tok")
	screen += tm.WaitFor("┃ > **********")
	tm.Keys("Enter")
	screen += tm.WaitFor(`"api_token": "**********"`, "Review: Accept sends this response (secrets masked here)")
	if strings.Contains(screen, "s3cr") {
		t.Fatalf("the secret shows on the screen:\n%s", screen)
	}
	tm.Keys("a")
	code, stdout := tm.Wait()
	if code != 0 || strings.TrimSpace(stdout) != "received a token of 10 characters" {
		t.Fatalf("exit %d, stdout %q; want 0 and a token of 10 characters", code, stdout)
	}
}

// TestTmuxTUIRecord: --record works in the terminal UI too, so an interactive session
// becomes an answers file; replaying it answers the same form.
func TestTmuxTUIRecord(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{}, "demo", "--record", "rec.yaml")
	tm.WaitFor("ready ")
	selectTool(t, tm, "confirm_only")
	tm.Keys("Enter") // read-only: it runs at once
	tm.WaitFor("Proceed with the demo operation?", "[ Accept ]")
	tm.Keys("d")
	tm.WaitFor("tools/call confirm_only · done", "declined")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Fatalf("exit %d; screen:\n%s", code, tm.Screen())
	}
	rec := filepath.Join(tm.Dir(), "rec.yaml")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("--record file not written by the TUI: %v", err)
	}
	for _, want := range []string{"tool: confirm_only", "message: Proceed with the demo operation?", "action: decline"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record lacks %q:\n%s", want, b)
		}
	}
	cfg := writeFile(t, "config.yaml", fmt.Sprintf("servers:\n  demo:\n    command: %q\n    args: [serve-demo]\n", bin))
	r := runBin(t, nil, "call", "demo", "confirm_only", "--config", cfg, "--answers", rec)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "declined" {
		t.Errorf("replay: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestHeadlessProgressLine checks that a headless call on a terminal shows the server's
// progress notifications on one updating stderr line, gone when the call ends, and that
// nothing of it is printed when stderr is not a terminal.
func TestHeadlessProgressLine(t *testing.T) {
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "demo", "slow", "steps=8", "interval_ms=250")
	screen := tm.WaitFor("elicitty: demo: step 2 of 8")
	if strings.Contains(screen, "step 1 of 8") {
		t.Errorf("progress is not one updating line:\n%s", screen)
	}
	code, stdout := tm.Wait()
	if code != 0 || stdout == "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if s := tm.Screen(); strings.Contains(s, " of 8") {
		t.Errorf("the progress line stays after the call:\n%s", s)
	}
	r := runBin(t, nil, "call", "demo", "slow", "steps=3", "interval_ms=10")
	if r.code != 0 || strings.Contains(r.stderr, "of 3") || strings.Contains(r.stderr, "\x1b") {
		t.Errorf("without a terminal: exit %d, stderr %q; want no progress", r.code, r.stderr)
	}
}
