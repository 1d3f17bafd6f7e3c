package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/proxy/inbox"
)

// TestDoctorInboxPlaces: doctor says where a proxy listens (whatever its host's
// environment) and, for each place an inbox looks in, the proxies running there or
// why it is not read.
func TestDoctorInboxPlaces(t *testing.T) {
	root := t.TempDir()
	runUser, tmp := filepath.Join(root, "run", "user"), filepath.Join(root, "tmp")
	own := filepath.Join(runUser, strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(tmp, "elicitty-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_RUNTIME_DIR": filepath.Join(root, "xdg")}
	places := inbox.Places{Getenv: func(k string) string { return env[k] }, UID: os.Getuid(), RunUser: runUser, Tmp: tmp}
	dir, err := places.RuntimeDir()
	if err != nil {
		t.Fatal(err)
	}
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "Cursor", Server: "github"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &bytes.Buffer{})
	a.printInboxPlaces(context.Background(), places)
	want := "proxy inbox: a proxy listens in " + filepath.Join(own, "elicitty") + "\n" +
		"proxy inbox: `elicitty inbox` looks in:\n" +
		"  " + filepath.Join(root, "xdg", "elicitty") + ": not there yet (no proxy has listened there)\n" +
		"  " + filepath.Join(own, "elicitty") + ": 1 proxy(ies) running\n" +
		"  " + open + ": inbox directory " + open + " has mode 0755: it must be the user's alone (chmod 700)\n"
	if got := out.String(); got != want {
		t.Errorf("doctor printed\n%s\nwant\n%s", got, want)
	}
}
