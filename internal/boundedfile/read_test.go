package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readWithin runs Read in a goroutine and fails the test when it has not returned
// within d: a Read that blocks on a FIFO or streams /dev/zero must not hang the test.
func readWithin(t *testing.T, d time.Duration, path string, max int64) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := Read(path, max)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(d):
		t.Fatalf("Read(%s) still running after %v", path, d)
		return nil, nil
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.json")
	if err := os.WriteFile(p, []byte(`{"servers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} {
		data, err := Read(path, 0)
		if err != nil || string(data) != `{"servers":{}}` {
			t.Errorf("Read(%s) = %q, %v; want the file", path, data, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "absent"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: %v, want fs.ErrNotExist", err)
	}
}

func TestReadSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.json")
	if err := os.WriteFile(p, []byte(strings.Repeat(" ", 1<<20+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p, 1<<20)
	if !errors.Is(err, ErrTooLarge) || err.Error() != p+" is larger than 1 MiB" {
		t.Errorf("Read = %v, want %q (ErrTooLarge)", err, p+" is larger than 1 MiB")
	}
	if data, err := Read(p, 1<<20+1); err != nil || len(data) != 1<<20+1 {
		t.Errorf("at the cap: %d bytes, %v", len(data), err)
	}
}

func TestReadDefaultCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse 10 GB file: refused from its size, without reading it.
	if err := f.Truncate(10 << 30); err != nil {
		t.Skip("no sparse files:", err)
	}
	f.Close()
	if _, err := readWithin(t, 5*time.Second, p, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read = %v, want ErrTooLarge", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4 MiB", 512 << 10: "512 KiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
