package process

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport/wire"
)

// startScript starts `sh -c script` as a server logging into log; stdout yields the
// lines it writes on its stdout. The process is stopped at the end of the test. It
// runs sh, so the quick tier (-short) skips the test.
func startScript(t *testing.T, log *wire.Log, script string) (p *Proc, stdout <-chan string) {
	t.Helper()
	testkit.External(t, "sh")
	lines := make(chan string, 16)
	p, err := Start(config.Server{Name: "sh", Command: "sh", Args: []string{"-c", script}}, log, nil, func(r io.Reader) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody reads them
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	return p, lines
}

// TestStartMissingCommand: a command that does not exist fails the start, naming it.
func TestStartMissingCommand(t *testing.T) {
	procs := NewProcs()
	_, err := Start(config.Server{Name: "nope", Command: "./no-such-command-here"}, wire.New(1), procs, func(io.Reader) {})
	if err == nil || !strings.Contains(err.Error(), "no-such-command-here") {
		t.Fatalf("err = %v, want the start error naming the command", err)
	}
	if n := procs.Live(); n != 0 {
		t.Errorf("%d processes registered after a failed start", n)
	}
}

func TestReadLineBoundsLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	br := bufio.NewReaderSize(strings.NewReader(long+"\nnext\nlast"), 16)
	var got []string
	for {
		line, err := readLine(br, 1000)
		if line != "" {
			got = append(got, line)
		}
		if err != nil {
			break
		}
	}
	if len(got) != 3 || len(got[0]) != 1000 || got[1] != "next" || got[2] != "last" {
		t.Errorf("lines = %d %q", len(got), got[1:])
	}
}

// TestExitErrorQuotesTheCause: a crash report quotes the stderr lines that name the
// cause (a panic and what follows it, a Traceback's error), even when a long trace
// pushed them out of the last lines kept, and names a killing signal as people know it.
func TestExitErrorQuotesTheCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		want   []string
		not    []string
	}{
		{"go panic", `echo starting >&2; echo 'panic: runtime error: invalid memory address or nil pointer dereference' >&2
echo '[signal SIGSEGV: segmentation violation]' >&2; echo 'goroutine 1 [running]:' >&2
i=0; while [ $i -lt 30 ]; do echo "runtime.goexit() frame $i" >&2; i=$((i+1)); done; exit 2`,
			[]string{"status 2", "panic: runtime error: invalid memory address", "SIGSEGV"}, []string{"frame 29"}},
		{"python", `echo 'INFO starting' >&2; echo 'Traceback (most recent call last):' >&2; echo '  File "server.py", line 3' >&2
echo "ModuleNotFoundError: No module named 'mcp'" >&2; echo 'INFO bye' >&2; echo 'INFO really' >&2; echo 'INFO gone' >&2; exit 1`,
			[]string{"status 1", "ModuleNotFoundError: No module named 'mcp'"}, nil},
		{"plain", `for l in a b c d; do echo "line $l" >&2; done; exit 3`, []string{"line b | line c | line d"}, []string{"line a"}},
		{"killed", `kill -KILL $$`, []string{"the server process was killed (SIGKILL)"}, []string{"killed by killed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := startScript(t, wire.New(100), tc.script)
			ee := p.WaitExit(20 * time.Second)
			if ee == nil {
				t.Fatal("the server did not exit within 20s")
			}
			got := ee.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q has %q", got, n)
				}
			}
		})
	}
}
