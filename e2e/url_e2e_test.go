package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The end-to-end tests of URL-mode elicitation (issue 4): consent from an answers file,
// the browser opened through $ELICITTY_OPENER (a test program, testdata/opener, that
// approves the demo server's consent page by POST or with a real headless Chromium),
// completion notifications, the -32042 driver, the 2026-07-28 URL input request, and
// the refusal of URLs the policy forbids.

var (
	openerOnce sync.Once
	openerPath string
	openerErr  error
)

// testOpener builds testdata/opener once, next to the elicitty binary.
func testOpener(t *testing.T) string {
	t.Helper()
	openerOnce.Do(func() {
		openerPath = filepath.Join(filepath.Dir(bin), "opener")
		out, err := exec.Command("go", "build", "-o", openerPath, "./testdata/opener").CombinedOutput()
		if err != nil {
			openerErr = fmt.Errorf("build testdata/opener: %v\n%s", err, out)
		}
	})
	if openerErr != nil {
		t.Fatal(openerErr)
	}
	return openerPath
}

// chromiumPath returns the Debian chromium; CI must have it (scripts/setup.sh).
func chromiumPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is missing: scripts/setup.sh installs it")
		}
		t.Skip("chromium not installed (scripts/setup.sh installs it)")
	}
	return p
}

// openerRecord is one line of testdata/opener's record: "invoked" when it starts,
// "done" when it has finished.
type openerRecord struct {
	Event  string `json:"event"`
	URL    string `json:"url"`
	Wire   string `json:"wire"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// openerRecords reads the opener's record file; a missing file means it never ran.
func openerRecords(t *testing.T, file string) []openerRecord {
	t.Helper()
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []openerRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r openerRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("opener record %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// invocations returns the records of the opener's starts.
func invocations(recs []openerRecord) []openerRecord {
	var out []openerRecord
	for _, r := range recs {
		if r.Event == "invoked" {
			out = append(out, r)
		}
	}
	return out
}

// wireEntry is one line of a --log file.
type wireEntry struct {
	Seq    int             `json:"seq"`
	Dir    string          `json:"dir"`
	Method string          `json:"method"`
	Text   string          `json:"text"`
	Raw    json.RawMessage `json:"raw"`
}

func parseWire(t *testing.T, jsonl string) []wireEntry {
	t.Helper()
	var out []wireEntry
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e wireEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("wire log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// urlCallOutput is `elicitty call --json` with the rounds' actions.
type urlCallOutput struct {
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Rounds []struct {
		Kind    string   `json:"kind"`
		Keys    []string `json:"keys"`
		Actions []string `json:"actions"`
	} `json:"rounds"`
}

func decodeCall(t *testing.T, r result) urlCallOutput {
	t.Helper()
	var out urlCallOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("output is not JSON: %v\nstdout %s\nstderr %s", err, r.stdout, r.stderr)
	}
	return out
}

// linesWith returns the lines of s that contain sub.
func linesWith(s, sub string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

const acceptAndOpen = "- match: {mode: url}\n  action: accept\n  open: true\n"

// demoURLCase is one URL-mode tool of the demo server in one era.
type demoURLCase struct {
	tool, proto string
	// round is the kind of the call's one round ("" for none: a pushed elicitation).
	round string
}

// checkDemoURLFlow calls tc.tool on the demo server at mcpURL with an answers file that
// accepts and opens, $ELICITTY_OPENER being testdata/opener with extra flags, and checks
// what a user would: the result, that the browser was opened exactly once and only
// after the request was consented to, the completion notification (2025-11-25) and the
// stderr line. It returns what the consent page said after approval, or "" when the
// opener was still running when elicitty exited (elicitty waits 10 s for an opener).
func checkDemoURLFlow(t *testing.T, mcpURL string, tc demoURLCase, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	recFile, wireFile := filepath.Join(dir, "opened.jsonl"), filepath.Join(dir, "wire.jsonl")
	answers := writeFile(t, "answers.yaml", acceptAndOpen)
	opener := strings.Join(append([]string{testOpener(t), "-record", recFile, "-wire", wireFile}, extra...), " ")
	r := runBin(t, []string{"ELICITTY_OPENER=" + opener},
		"call", mcpURL, tc.tool, "--json", "--answers", answers, "--protocol", tc.proto, "--log", wireFile)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	out := decodeCall(t, r)
	if len(out.Result.Content) != 1 || out.Result.Content[0].Text != "linked" || out.Result.IsError {
		t.Errorf("result %+v, want the text \"linked\"", out.Result)
	}

	recs := openerRecords(t, recFile)
	inv := invocations(recs)
	if len(inv) != 1 {
		t.Fatalf("the opener ran %d times, want exactly once: %+v", len(inv), recs)
	}
	rec := inv[0]
	if rec.Error != "" {
		t.Fatalf("the opener failed: %s", rec.Error)
	}
	status := ""
	for _, d := range recs {
		switch {
		case d.Event != "done":
		case d.Error != "":
			t.Errorf("the opener failed: %s", d.Error)
		default:
			status = d.Status
		}
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/consent/[A-Z2-7]{26}$`).MatchString(rec.URL) {
		t.Fatalf("opened %q, want the demo's consent page", rec.URL)
	}
	id := path.Base(rec.URL)

	// Ordering, from the wire log as it was when the opener started and as it ended:
	// the request carrying the URL had arrived, nothing had been sent after it yet,
	// and the answer (or the retry) went out after the opener ran.
	snap, final := parseWire(t, rec.Wire), parseWire(t, readFile(t, wireFile))
	askSeq := -1
	for _, e := range snap {
		if e.Dir == "in" && strings.Contains(string(e.Raw), rec.URL) {
			askSeq = e.Seq
		}
	}
	if askSeq < 0 {
		t.Fatalf("the opener ran before the request carrying %s arrived", rec.URL)
	}
	for _, e := range snap {
		if e.Dir == "out" && e.Seq > askSeq {
			t.Errorf("before the opener ran, the client already sent #%d %s %s", e.Seq, e.Method, e.Raw)
		}
	}
	lastSnap := snap[len(snap)-1].Seq
	sentAfter := false
	for _, e := range final {
		if e.Dir == "out" && e.Seq > lastSnap {
			sentAfter = true
		}
	}
	if !sentAfter {
		t.Errorf("no answer or retry was sent after the opener ran")
	}

	completeSeq, lastCallSeq, calls := -1, -1, 0
	for _, e := range final {
		if e.Dir == "in" && e.Method == "notifications/elicitation/complete" {
			var n struct {
				Params struct {
					ElicitationID string `json:"elicitationId"`
				} `json:"params"`
			}
			_ = json.Unmarshal(e.Raw, &n)
			if n.Params.ElicitationID != id {
				t.Errorf("completion for %q, want %q", n.Params.ElicitationID, id)
			}
			completeSeq = e.Seq
		}
		if e.Dir == "out" && e.Method == "tools/call" {
			lastCallSeq = e.Seq
			calls++
		}
	}
	legacy := tc.proto != "2026-07-28"
	switch {
	case legacy && completeSeq < askSeq:
		t.Errorf("no notifications/elicitation/complete for %s after the request", id)
	case legacy && len(linesWith(r.stderr, "the step at the link is done (notifications/elicitation/complete for "+id+")")) != 1:
		t.Errorf("the completion should be shown once on stderr:\n%s", r.stderr)
	case !legacy && completeSeq >= 0:
		t.Errorf("2026-07-28 has no completion notification, got one")
	}

	var wantRounds []string
	if tc.round != "" {
		wantRounds = []string{tc.round + " accept"}
		if calls != 2 {
			t.Errorf("tools/call sent %d times, want 2 (the call and its retry)", calls)
		}
	}
	var gotRounds []string
	for _, rd := range out.Rounds {
		gotRounds = append(gotRounds, rd.Kind+" "+strings.Join(rd.Actions, ","))
	}
	if diff := cmp.Diff(wantRounds, gotRounds); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	if tc.round == "url_required" && lastCallSeq < completeSeq {
		t.Errorf("the -32042 retry (#%d) went out before the completion (#%d) arrived", lastCallSeq, completeSeq)
	}

	// One stderr line per scripted URL answer: server, full URL, real host, warnings.
	lines := linesWith(r.stderr, rec.URL)
	if len(lines) != 1 {
		t.Fatalf("want one stderr line with the URL, got %d:\n%s", len(lines), r.stderr)
	}
	server := strings.TrimSuffix(strings.TrimPrefix(mcpURL, "http://"), "/mcp")
	for _, want := range []string{server, "-> accept", "real host 127.0.0.1", "warnings:", "url opened"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("stderr line lacks %q: %s", want, lines[0])
		}
	}
	return status
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestURLDemoFakeOpener runs every URL-mode tool of the demo server over HTTP in both
// eras with an opener that approves the consent page by POST: link_account (pushed
// elicitation/create in 2025-11-25, URL input request in 2026-07-28), needs_link (-32042
// until approved, then an automatic retry after the completion notification) and
// mrtr_url.
func TestURLDemoFakeOpener(t *testing.T) {
	mcpURL := startDemoHTTP(t)
	for _, tc := range []demoURLCase{
		{tool: "link_account", proto: "2025-11-25"},
		{tool: "needs_link", proto: "2025-11-25", round: "url_required"},
		{tool: "mrtr_url", proto: "2025-11-25"},
		{tool: "link_account", proto: "2026-07-28", round: "input_required"},
		{tool: "needs_link", proto: "2026-07-28", round: "input_required"},
		{tool: "mrtr_url", proto: "2026-07-28", round: "input_required"},
	} {
		t.Run(tc.tool+"/"+tc.proto, func(t *testing.T) {
			if status := checkDemoURLFlow(t, mcpURL, tc); status != "approved by POST" {
				t.Errorf("opener status %q, want approved by POST", status)
			}
		})
	}
}

// TestURLDemoChromium is the same flow with a real headless Chromium as the browser: it
// loads the consent page, #approve is clicked through the DevTools protocol, the page
// says it was approved, the completion arrives and the call finishes.
func TestURLDemoChromium(t *testing.T) {
	chromium := chromiumPath(t)
	mcpURL := startDemoHTTP(t)
	for _, tc := range []demoURLCase{
		{tool: "link_account", proto: "2025-11-25"},
		{tool: "needs_link", proto: "2025-11-25", round: "url_required"},
		{tool: "mrtr_url", proto: "2026-07-28", round: "input_required"},
	} {
		t.Run(tc.tool+"/"+tc.proto, func(t *testing.T) {
			// The call's "linked" already proves the click reached the server; what the
			// page said is known unless Chromium outlasted elicitty's 10 s opener wait.
			switch status := checkDemoURLFlow(t, mcpURL, tc, "-chromium", chromium); {
			case status == "":
				t.Logf("Chromium was still running when the call finished; its page status is unknown")
			case !strings.HasPrefix(status, "Approved."):
				t.Errorf("the page in Chromium says %q after the click, want Approved", status)
			}
		})
	}
}

// TestURLPolicyRefusesScriptedAccept gives the demo server a URL policy its consent page
// breaks (a host allowlist without 127.0.0.1; https only): a scripted accept with
// open: true is declined instead, the opener never runs, and the stderr line names the
// server, the full URL, its real host and the refusal.
func TestURLPolicyRefusesScriptedAccept(t *testing.T) {
	mcpURL := startDemoHTTP(t)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(`servers:
  allowlist-demo:
    url: %s
    urlPolicy: {allowedHosts: ["example.com", "*.example.com"]}
  https-demo:
    url: %s
    urlPolicy: {httpsOnly: true}
`, mcpURL, mcpURL))
	answers := writeFile(t, "answers.yaml", acceptAndOpen)
	consentURL := regexp.MustCompile(`http://127\.0\.0\.1:\d+/consent/[A-Z2-7]{26}`)
	for _, server := range []string{"allowlist-demo", "https-demo"} {
		for _, proto := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(server+"/"+proto, func(t *testing.T) {
				recFile := filepath.Join(t.TempDir(), "opened.jsonl")
				r := runBin(t, []string{"ELICITTY_OPENER=" + testOpener(t) + " -noop -record " + recFile},
					"call", server, "link_account", "--config", cfg, "--answers", answers, "--protocol", proto, "--json")
				if r.code != 0 {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
				}
				out := decodeCall(t, r)
				if len(out.Result.Content) != 1 || out.Result.Content[0].Text != "declined" {
					t.Errorf("result %+v, want the server to have received decline", out.Result)
				}
				if recs := openerRecords(t, recFile); len(recs) != 0 {
					t.Errorf("a refused URL was opened: %+v", recs)
				}
				lines := linesWith(r.stderr, "refused")
				if len(lines) != 1 {
					t.Fatalf("want one stderr line about the refusal:\n%s", r.stderr)
				}
				for _, want := range []string{server, "-> decline", "real host 127.0.0.1", "declined instead"} {
					if !strings.Contains(lines[0], want) {
						t.Errorf("stderr line lacks %q: %s", want, lines[0])
					}
				}
				if !consentURL.MatchString(lines[0]) {
					t.Errorf("stderr line lacks the full URL: %s", lines[0])
				}
			})
		}
	}
	// The -32042 path: the decline ends the call with the server's error, unopened, as an
	// unanswered elicitation (exit 3).
	recFile := filepath.Join(t.TempDir(), "opened.jsonl")
	r := runBin(t, []string{"ELICITTY_OPENER=" + testOpener(t) + " -noop -record " + recFile},
		"call", "allowlist-demo", "needs_link", "--config", cfg, "--answers", answers, "--protocol", "2025-11-25")
	if r.code != 3 || !strings.Contains(r.stderr, "declined: the question was not answered: URL elicitation required") {
		t.Errorf("needs_link with a refused URL: exit %d, stderr %s", r.code, r.stderr)
	}
	if recs := openerRecords(t, recFile); len(recs) != 0 {
		t.Errorf("a refused URL was opened: %+v", recs)
	}
}

// TestURLEverythingTriggerURLElicitation answers server-everything's
// trigger-url-elicitation in its request path (elicitation/create) and its errorPath
// (-32042 whose prerequisite never completes, so the answers file says retry: now),
// over stdio and HTTP, and checks the server's reply.
func TestURLEverythingTriggerURLElicitation(t *testing.T) {
	for name, target := range everythingTargets(t) {
		for _, errorPath := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/errorPath=%v", name, errorPath), func(t *testing.T) {
				id := fmt.Sprintf("e2e-%s-%v", name, errorPath)
				link := "https://example.com/link/" + id
				recFile := filepath.Join(t.TempDir(), "opened.jsonl")
				// everything-answers.yaml says open: false; nothing may be opened.
				t.Setenv("ELICITTY_OPENER", testOpener(t)+" -noop -record "+recFile)
				r := runArgv(t, target("call", "trigger-url-elicitation", "--json", "--answers", "testdata/everything-answers.yaml",
					"url="+link, "elicitationId="+id, "message=Link your example account", fmt.Sprintf("errorPath=%v", errorPath)))
				if r.code != 0 {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
				}
				out := decodeCall(t, r)
				var texts []string
				for _, c := range out.Result.Content {
					texts = append(texts, c.Text)
				}
				want := "✅ User completed the URL elicitation flow.\nElicitation ID: " + id + "\nURL: " + link
				if len(texts) != 2 || texts[0] != want || !strings.Contains(texts[1], `"action": "accept"`) {
					t.Errorf("server replied %q, want %q and the raw accept", texts, want)
				}
				wantURLs := []string{link}
				if errorPath {
					if len(out.Rounds) != 1 || out.Rounds[0].Kind != "url_required" ||
						cmp.Diff([]string{"accept"}, out.Rounds[0].Actions) != "" {
						t.Errorf("rounds %+v, want one url_required round answered accept", out.Rounds)
					}
					wantURLs = append(wantURLs, "https://modelcontextprotocol.io")
				} else if len(out.Rounds) != 0 {
					t.Errorf("the request path took rounds: %+v", out.Rounds)
				}
				for _, u := range wantURLs {
					lines := linesWith(r.stderr, u)
					if len(lines) != 1 || !strings.Contains(lines[0], "-> accept") || !strings.Contains(lines[0], "real host ") ||
						!strings.Contains(lines[0], "url not opened") {
						t.Errorf("want one stderr line accepting %s without opening it, got:\n%s", u, r.stderr)
					}
				}
				if recs := openerRecords(t, recFile); len(recs) != 0 {
					t.Errorf("open: false, but the opener ran: %+v", recs)
				}
			})
		}
	}
}

// TestURLEverythingHostileURLs has server-everything send URLs a user must not be
// tricked by: every non-http(s) scheme is refused before anyone is asked (the server
// gets -32602) and never opened; a userinfo trick and a punycode homograph are accepted
// and opened as scripted, with the real host and the warnings on the stderr line.
func TestURLEverythingHostileURLs(t *testing.T) {
	js := everythingJS(t)
	answers := writeFile(t, "answers.yaml", acceptAndOpen)
	tests := []struct {
		name, url string
		refused   bool
		want      []string // on the stderr line
	}{
		{name: "javascript", url: "javascript:alert(1)", refused: true},
		{name: "data", url: "data:text/html,<script>alert(1)</script>", refused: true},
		{name: "file", url: "file:///etc/passwd", refused: true},
		{name: "userinfo", url: "https://accounts.example.com@evil.example/login", want: []string{"real host evil.example", `the text before "@"`}},
		// \u0430 is the Cyrillic a that the punycode decodes to.
		{name: "homograph", url: "https://xn--pple-43d.com/", want: []string{"real host \u0430pple.com", "punycode", "mixes Cyrillic and Latin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case starts its own server over stdio
			recFile := filepath.Join(t.TempDir(), "opened.jsonl")
			r := runBin(t, []string{"ELICITTY_OPENER=" + testOpener(t) + " -noop -record " + recFile},
				"call", "trigger-url-elicitation", "--json", "--answers", answers, "url="+tt.url, "--", "node", js, "stdio")
			recs := invocations(openerRecords(t, recFile))
			lines := linesWith(r.stderr, tt.url)
			if len(lines) != 1 {
				t.Fatalf("want one stderr line with the full URL, got:\n%s", r.stderr)
			}
			if tt.refused {
				if len(recs) != 0 {
					t.Errorf("a %s URL was opened", tt.url)
				}
				if !strings.Contains(lines[0], "refused without asking") {
					t.Errorf("stderr line should say the request was refused: %s", lines[0])
				}
				// server-everything reports the refusal as its tool error.
				if out := decodeCall(t, r); !out.Result.IsError || len(out.Result.Content) == 0 ||
					!strings.Contains(out.Result.Content[0].Text, "-32602") {
					t.Errorf("the server should have received -32602: %+v", out.Result)
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if len(recs) != 1 || recs[0].URL != tt.url {
				t.Errorf("opener records %+v, want %s opened once", recs, tt.url)
			}
			for _, want := range append(tt.want, "-> accept", "warnings:", "url opened") {
				if !strings.Contains(lines[0], want) {
					t.Errorf("stderr line lacks %q: %s", want, lines[0])
				}
			}
		})
	}
}

// TestURLRequiredWaitBoundedHeadless: without a terminal nobody can press "retry now",
// so a scripted accept of a -32042 link that is never approved ends at --url-wait with
// a clear error (exit 3) instead of waiting forever, after one line saying what it waits
// for and how to go on.
func TestURLRequiredWaitBoundedHeadless(t *testing.T) {
	answers := writeFile(t, "answers.yaml", "- match: {mode: url}\n  action: accept\n  open: false\n")
	start := time.Now()
	r := runBin(t, nil, "call", "needs_link", "--answers", answers, "--protocol", "2025-11-25",
		"--url-wait", "1s", "--", bin, "serve-demo")
	if r.code != 3 || !strings.Contains(r.stderr, "not completed within 1s") {
		t.Errorf("exit %d, stderr %q; want exit 3 naming the 1s bound", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "waiting up to 1s for the server to confirm 1 link(s)"); n != 1 || !strings.Contains(r.stderr, "retry: now") {
		t.Errorf("stderr %q: want one line saying what it waits for and how to go on", r.stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the call took %s despite --timeout 1s", d)
	}
}
