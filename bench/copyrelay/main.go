// Command copyrelay is the floor of bench/proxy.sh: a stdio relay that does nothing
// but copy bytes, written in Go like elicitty.
//
//	copyrelay COMMAND [ARG...]
//
// It starts COMMAND with pipes for its stdin and stdout, copies its own stdin to the
// command's and the command's stdout to its own, and exits when either stream ends. It
// reads no message, so what it costs a call is what any relay process written in Go
// costs on the machine: two more processes woken per round trip, a read and a write
// for each message, the runtime's scheduler. elicitty's proxy row beside it shows
// what reading the messages adds.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: copyrelay COMMAND [ARG...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "copyrelay:", err)
		os.Exit(1)
	}
}

// run relays between stdin and stdout and the command's standard streams until one
// side's stream ends, then stops the command.
func run(name string, args []string, stdin io.Reader, stdout io.Writer) error {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(stdout, out)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(in, stdin)
		in.Close()
		done <- struct{}{}
	}()
	<-done
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil
}
