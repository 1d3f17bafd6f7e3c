//go:build unix

package oauth

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/boundedfile"
)

// TestApplyConfigRefusesSpecialKeyFile: a grant's private key file that is a FIFO is
// refused at once by name; reading it would block until a writer came.
func TestApplyConfigRefusesSpecialKeyFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "key.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	err := ApplyConfig(&Options{}, &config.OAuth{Grant: config.GrantClientCredentials, PrivateKeyFile: fifo})
	if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), "oauth.privateKeyFile") {
		t.Fatalf("ApplyConfig with a FIFO key file = %v, want a refusal naming oauth.privateKeyFile", err)
	}
}
