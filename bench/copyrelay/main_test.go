package main

import (
	"bufio"
	"io"
	"os"
	"strings"
	"testing"
)

// TestMain makes the test binary its own child: with COPYRELAY_ECHO set it is a
// server that answers each line with "echo: " and the line.
func TestMain(m *testing.M) {
	if os.Getenv("COPYRELAY_ECHO") != "" {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if _, err := os.Stdout.WriteString("echo: " + sc.Text() + "\n"); err != nil {
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRelaysBothWays sends lines through the relay to the echo child and reads its
// answers back; the relay returns once its input ends.
func TestRelaysBothWays(t *testing.T) {
	t.Setenv("COPYRELAY_ECHO", "1")
	hostIn, toRelay := io.Pipe()
	fromRelay, hostOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(os.Args[0], []string{"-test.run=^$"}, hostIn, hostOut)
		hostOut.Close()
	}()
	br := bufio.NewReader(fromRelay)
	for _, line := range []string{`{"id":1}`, `{"id":2}`} {
		if _, err := io.WriteString(toRelay, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if want := "echo: " + line + "\n"; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	toRelay.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(br); strings.TrimSpace(string(rest)) != "" {
		t.Fatalf("unexpected output after the input ended: %q", rest)
	}
}
