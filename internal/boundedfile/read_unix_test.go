//go:build unix

package boundedfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifolink.json")
	zeroLink := filepath.Join(dir, "zero.json")
	for link, target := range map[string]string{fifoLink: fifo, zeroLink: "/dev/zero"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		path, want string
	}{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{fifoLink, "is a symlink to a named pipe (FIFO), not a regular file"},
		{zeroLink, "is a symlink to a character device, not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{sock, "is a socket, not a regular file"},
		{dir, "is a directory, not a regular file"},
	} {
		_, err := readWithin(t, 5*time.Second, tc.path, 0)
		if !errors.Is(err, ErrNotRegular) || err.Error() != tc.path+" "+tc.want {
			t.Errorf("Read(%s) = %v, want %q (ErrNotRegular)", tc.path, err, tc.path+" "+tc.want)
		}
	}
}

func TestReadFIFOSwappedIn(t *testing.T) {
	// A FIFO put where the file was checked: the open must not block, and the
	// opened file is checked again.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openNonblock(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("open FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO with no writer blocked")
	}
}
