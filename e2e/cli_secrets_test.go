package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretNeverWritten answers the demo's secret_warning form from an answers file
// with --log and --record: the server gets the token, the log file masks it, the
// record file refers to $ELICITTY_SECRET_API_TOKEN instead and stderr says so, and the
// record replays with that variable set (and fails, naming it, without).
func TestSecretNeverWritten(t *testing.T) {
	const secret = "s3cret-tok-XYZ"
	dir := t.TempDir()
	answers := writeFile(t, "answers.yaml", "- match: {tool: secret_warning}\n  action: accept\n  content: {api_token: "+secret+"}\n")
	logFile, recFile := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "rec.yaml")
	r := runBin(t, nil, "call", "secret_warning", "--answers", answers, "--log", logFile, "--record", recFile, "--", bin, "serve-demo")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "received a token of 14 characters" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(logged), secret) || !strings.Contains(string(logged), `"api_token":"********"`) {
		t.Errorf("--log file does not mask the secret:\n%s", logged)
	}
	rec, err := os.ReadFile(recFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec), secret) || !strings.Contains(string(rec), "api_token: ${ELICITTY_SECRET_API_TOKEN}") {
		t.Errorf("--record file:\n%s", rec)
	}
	if !strings.Contains(r.stderr, "set ELICITTY_SECRET_API_TOKEN to replay it") {
		t.Errorf("stderr does not name the variable: %q", r.stderr)
	}
	if strings.Contains(r.stderr, secret) {
		t.Errorf("stderr shows the secret: %q", r.stderr)
	}

	r = runBin(t, []string{"ELICITTY_SECRET_API_TOKEN=another-token"}, "call", "secret_warning", "--answers", recFile, "--", bin, "serve-demo")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "received a token of 13 characters" {
		t.Errorf("replay: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, nil, "call", "secret_warning", "--answers", recFile, "--", bin, "serve-demo")
	if r.code == 0 || !strings.Contains(r.stderr, "ELICITTY_SECRET_API_TOKEN") {
		t.Errorf("replay without the variable: exit %d, stderr %q", r.code, r.stderr)
	}
}
