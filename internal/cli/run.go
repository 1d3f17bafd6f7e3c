// Package cli is elicitty's command line: the commands, their flags and exit codes, and the
// app that connects the layers below (config, transport, elicit, proxy, tui) for a run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
)

// Exit codes (docs/architecture.md, "Exit codes").
const (
	ExitOK         = 0
	ExitToolError  = 1
	ExitUsage      = 2
	ExitUnanswered = 3
	ExitConn       = 4
	ExitCancel     = 130
)

// Run executes the command line args with the given streams and returns the process exit
// code. It is the whole program: main only calls it.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// SIGHUP: the terminal closed. Each ends the run like Ctrl-C.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	app := newApp(stdin, stdout, stderr)
	// Whatever the exit path (an error, a panic in this goroutine), no server outlives
	// the run; once interrupted, the run ends within exitDeadline even if stuck.
	finished := make(chan struct{})
	defer close(finished)
	defer app.stopServers()
	defer app.urlWaits.end() // whatever the exit path, the terminal is given back
	defer app.colorSettled() // no colour detection (in tmux, `tmux info`) outlives the run
	go func() {
		select {
		case <-ctx.Done():
			app.exitWithin(finished, ExitCancel, os.Exit)
		case <-finished:
		}
	}()
	root := app.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if ctx.Err() != nil { // interrupted (SIGINT/SIGTERM)
		code = ExitCancel
	}
	app.urlWaits.end() // the waiting line, if any, is gone before the error is printed
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(stderr, "elicitty: %s\n", userMessage(err))
		var printed *jsonPrinted
		if app.jsonOut && !errors.As(err, &printed) {
			app.printErrorJSON(code, err)
		}
	}
	return code
}

// printErrorJSON is the --json output of a failed command: {"error": {"code": the exit
// code, "message": the sanitized error}}, with the violations of a scripted answer and
// the findings reported on the way, so a script reading stdout always gets a JSON value.
func (a *app) printErrorJSON(code int, err error) {
	obj := map[string]any{"code": code, "message": userMessage(err)}
	var viol *elicit.ViolationsError
	if errors.As(err, &viol) {
		obj["violations"] = viol.Violations
	}
	out := map[string]any{"error": obj}
	if f := a.reportedFindings(); len(f) > 0 {
		out["findings"] = f
	}
	_ = a.printJSON(out)
}

// usageError is a bad command line or configuration (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// toolError reports a result with isError set (exit 1); it was already printed.
type toolError struct{ what string }

func (e *toolError) Error() string { return e.what + " returned an error result" }

// jsonPrinted is a failure whose --json output the command printed itself (a skill
// that fails verification); it is reported on stderr, with no second JSON value.
type jsonPrinted struct{ err error }

func (e *jsonPrinted) Error() string { return e.err.Error() }
func (e *jsonPrinted) Unwrap() error { return e.err }

// silentError carries an exit code for a failure that was already reported.
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exitCode maps an error to the exit code of docs/architecture.md, "Exit codes".
func exitCode(err error) int {
	var (
		usage  *usageError
		tool   *toolError
		silent *silentError
		viol   *elicit.ViolationsError
		conn   *transport.ConnError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &silent):
		return silent.code
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &tool):
		return ExitToolError
	case errors.Is(err, elicit.ErrUnanswered), errors.As(err, &viol):
		return ExitUnanswered
	case errors.As(err, &conn):
		return ExitConn
	}
	return ExitConn
}

// RootCommand returns the command tree of a run over the given streams, for tools and
// tests that walk the commands (their help, examples and man pages) without running one.
func RootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newApp(stdin, stdout, stderr).rootCommand()
}
