//go:build unix

package elicit

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/endless"
)

func TestReadFileRefusals(t *testing.T) {
	dir := t.TempDir()
	big := writeFile(t, dir, "big.txt", bytes.Repeat([]byte("x"), 100))
	pdf := writeFile(t, dir, "paper.pdf", []byte("%PDF-1.4"))
	fifo := endless.Fifo(t, filepath.Join(dir, "pipe"))
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := []struct {
		name, path string
		spec       FileSpec
		want       string
	}{
		{"too large, before reading", big, FileSpec{MaxSize: 10}, "is 100 B, over the 10 B the server takes"},
		{"wrong type", pdf, FileSpec{Accept: []string{"image/*", ".png"}}, "is application/pdf; the server takes image/*, .png"},
		{"directory", dir, FileSpec{}, "is a directory"},
		{"missing", filepath.Join(dir, "nope"), FileSpec{}, "cannot be read"},
		{"named pipe (never opened: it would block)", fifo, FileSpec{}, "is a named pipe"},
		{"socket", sock, FileSpec{}, "is a socket"},
		{"device", os.DevNull, FileSpec{}, "is a character device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadFile(c.path, c.spec)
			if err == nil || !errors.Is(err, ErrFileRefused) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(c.path)) {
				t.Errorf("err = %v, want it to name %q and say %q", err, filepath.Base(c.path), c.want)
			}
		})
	}
	if os.Geteuid() != 0 {
		locked := writeFile(t, dir, "locked.txt", []byte("x"))
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadFile(locked, FileSpec{}); err == nil || !strings.Contains(err.Error(), "locked.txt") {
			t.Errorf("unreadable file: err = %v", err)
		}
	}
}
