package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestTmuxTypeaheadAcrossEnter types a whole form in one send-keys call, as a fast
// typist or a paste would: every key after an enter lands in the next field, and the
// secret, the field after a visible one, never shows on the screen. A bracketed paste
// of several lines fills one field per line.
func TestTmuxTypeaheadAcrossEnter(t *testing.T) {
	t.Parallel()
	schema := writeFile(t, "schema.json", `{"type":"object","properties":{
		"name":{"type":"string","title":"Name"},
		"seats":{"type":"integer","title":"Seats"},
		"api_token":{"type":"string","title":"API token"}},
		"required":["name","seats","api_token"]}`)
	for _, tc := range []struct {
		name  string
		input func(tm *tmuxTerm)
	}{
		{"send-keys", func(tm *tmuxTerm) { tm.TypeText("Bob\r5\rs3cret-tok\r") }},
		{"bracketed paste", func(tm *tmuxTerm) {
			tm.Tmux("set-buffer", "-b", "form", "Bob\n5\ns3cret-tok\n")
			tm.Tmux("paste-buffer", "-p", "-b", "form", "-t", "e2e")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "render", schema)
			tm.WaitFocus("Name *")
			tc.input(tm)
			screen := tm.WaitFor("Review: Accept sends this response", `"name": "Bob"`, `"seats": 5`, "[ Accept ]")
			if strings.Contains(screen, "s3cret") || strings.Contains(screen, "Bob5") {
				t.Fatalf("keys landed in the wrong field, or the secret shows:\n%s", screen)
			}
			tm.Keys("a")
			code, stdout := tm.Wait()
			var got struct {
				Action  string         `json:"action"`
				Content map[string]any `json:"content"`
			}
			if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
				t.Fatalf("exit %d, stdout %q (%v)", code, stdout, err)
			}
			if got.Content["name"] != "Bob" || got.Content["seats"] != 5.0 || got.Content["api_token"] != "s3cret-tok" {
				t.Errorf("content %v, want name Bob, seats 5, the token in api_token", got.Content)
			}
		})
	}
}

// TestTmuxSmallTerminal runs `elicitty demo` at 60x15 and 80x24 and goes through the
// form with every field kind, its review, and the URL consent screen: on each, the
// focused field's input line or options, and the actions, are on the screen.
func TestTmuxSmallTerminal(t *testing.T) {
	t.Parallel()
	for _, size := range []struct {
		name       string
		cols, rows int
	}{{"60x15", 60, 15}, {"80x24", 80, 24}} {
		t.Run(size.name, func(t *testing.T) {
			t.Parallel()
			tm := startTerm(t, tmuxterm.Options{Cols: size.cols, Rows: size.rows}, "demo")
			tm.WaitFor("demo ready")
			filterTool(tm, "form_all_kinds")
			tm.Keys("Enter") // read-only: it runs at once
			step := func(title string, want ...string) {
				t.Helper()
				tm.WaitFor(append([]string{"┃ " + title}, want...)...)
			}
			step("Full name *", "┃ >", "esc cancel")
			tm.TypeText("Bob")
			tm.WaitFor("┃ > Bob")
			tm.Keys("Enter")
			step("Seats *", "┃ > 2 (default)")
			tm.Keys("Enter")
			step("Email *", "┃ >")
			tm.TypeText("a@b.co")
			tm.WaitFor("┃ > a@b.co")
			tm.Keys("Enter")
			step("Region *", "┃ > Europe (Ireland)", "┃   Asia Pacific (Mumbai)")
			tm.Keys("Enter")
			step("Homepage", "┃ >")
			tm.Keys("Enter")
			step("Budget (EUR)", "┃ > 99.5 (default)", "page 2/3")
			tm.Keys("Enter")
			step("T-shirt size", "┃   XL")
			tm.Keys("Enter")
			step("Birthday", "format date (YYYY-MM-DD)", "┃ >")
			tm.Keys("Enter")
			step("Tags *", "┃ > [•] api", "┃   [ ] ops")
			tm.Keys("Enter")
			step("Subscribe to the newsletter", "yes", "no")
			tm.Keys("Enter")
			step("Favourite colour", "┃   Blue")
			tm.Keys("Enter")
			step("Meeting time", "format date-time (YYYY-MM-DDThh:mm:ssZ)", "┃ >")
			tm.Keys("Enter")
			step("Features", "┃   [ ] Nightly backups")
			tm.Keys("Enter")
			tm.WaitFor("Review: Accept sends this response", "[ Accept ]", "Cancel", "a accept")
			tm.Keys("a")
			waitIdle(tm)

			filterTool(tm, "needs_link")
			tm.Keys("Enter") // no arguments, and it links an account: it asks
			tm.WaitFor("run needs_link now?")
			tm.Keys("y")
			tm.WaitFor(`"demo" asks you to open a link`, "Goes to: 127.0.0.1", "Open in browser", "Copy", "Decline", "Cancel")
			tm.Keys("Escape")
			waitIdle(tm)
		})
	}
}

// waitIdle waits until nothing is in flight or pending: the status bar says "0 in
// flight · 0 pending", or under 72 columns leaves the zero counts out.
func waitIdle(tm *tmuxTerm) {
	tm.T().Helper()
	tm.WaitUntil("nothing in flight or pending", false, func(s string) bool {
		return strings.Contains(s, "0 in flight · 0 pending") || (strings.Contains(s, "●") && !strings.Contains(s, "in flight") && !strings.Contains(s, "pending"))
	})
}

// filterTool narrows the demo's Tools list to name with the filter and keeps it, so
// that enter opens that tool.
func filterTool(tm *tmuxTerm, name string) {
	tm.T().Helper()
	tm.Keys("/")
	tm.WaitFor("esc clear")
	tm.Keys("Escape") // clears the last filter
	tm.WaitUntil("the filter cleared", false, func(s string) bool { return !strings.Contains(s, "filter:") })
	tm.Keys("/")
	tm.WaitFor("esc clear")
	tm.TypeText(name)
	tm.WaitFor("Tools: 1/")
	tm.Keys("Enter")
	tm.WaitFor("filter: " + name)
}

// TestTmuxTUITypeaheadAcrossPages types the demo's whole form_all_kinds form in the
// terminal UI in one send-keys call, across its three pages, up to the review.
func TestTmuxTUITypeaheadAcrossPages(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{}, "demo")
	tm.WaitFor("demo ready")
	filterTool(tm, "form_all_kinds")
	tm.Keys("Enter") // read-only: it runs at once
	tm.WaitFocus("Full name *")
	tm.TypeText("Bob\r5\ra@b.co" + strings.Repeat("\r", 11))
	screen := tm.WaitFor("Review: Accept sends this response", `"name": "Bob"`, `"seats": 5`, `"email": "a@b.co"`)
	if strings.Contains(screen, "Bob5") {
		t.Fatalf("keys landed in the wrong field:\n%s", screen)
	}
	tm.Keys("a")
	tm.WaitFor("tools/call form_all_kinds done", "0 in flight · 0 pending")
}
