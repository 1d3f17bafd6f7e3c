package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestTmuxInlineFilePicker answers the demo's upload_file on a terminal with
// --experimental file-inputs: huh's file picker lists the working directory, a
// directory is opened rather than chosen, the review shows the chosen file's name and
// size (never its bytes), and the server reports the file's sha256.
func TestTmuxInlineFilePicker(t *testing.T) {
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "upload_file", "--experimental", "file-inputs", "--", bin, "serve-demo")
	tm.WaitFor("Choose a file to hash", "run.sh", "home")
	// The listing is sorted with the directory home first: down to run.sh, choose it.
	tm.Keys("Down", "Enter")
	screen := tm.WaitFor("file run.sh (", "[ Accept ]")
	data, err := os.ReadFile(filepath.Join(tm.Dir(), "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(screen, "base64") {
		t.Errorf("the review shows the data URI:\n%s", screen)
	}
	tm.Keys("Enter")
	code, stdout := tm.Wait()
	sum := sha256.Sum256(data)
	if code != 0 || !strings.Contains(stdout, "received run.sh (") || !strings.Contains(stdout, hex.EncodeToString(sum[:])) {
		t.Fatalf("exit %d, stdout %q\nscreen:\n%s", code, stdout, tm.Screen())
	}
}
