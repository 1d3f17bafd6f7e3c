package process

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// stderrTail is how many stderr lines a process keeps for error reports.
const stderrTail = 20

// Shutdown grace periods of Proc.Shutdown: after closing stdin (CloseGrace), and after
// SIGTERM.
const (
	CloseGrace = 2 * time.Second
	termGrace  = 2 * time.Second
	// pumpGrace bounds how long an exited server's pipes are drained.
	pumpGrace = time.Second
)

// ExitError reports a stdio server process that ended.
type ExitError struct {
	// Status is the exit status, or -1 when the process died of a signal.
	Status int
	// Signal names the signal that killed it, when one did.
	Signal string
	// Stderr holds the last lines the server wrote on stderr (at most 20).
	Stderr []string
	// Cause holds the stderr lines that name the cause of the crash: the last line
	// that reads like an error (a panic, a Traceback, "Error:") and those after it, at
	// most causeShown; nil when no line did.
	Cause []string
}

// Error implements error.
func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != "" {
		b.WriteString("the server process was killed (" + e.Signal + ")")
	} else {
		fmt.Fprintf(&b, "the server process exited with status %d", e.Status)
	}
	lines := e.Cause
	if len(lines) == 0 {
		lines = e.Stderr[max(0, len(e.Stderr)-3):]
	}
	if len(lines) > 0 {
		b.WriteString("; stderr: ")
		b.WriteString(safe.Line(strings.Join(lines, " | "))) // the server's own words
	}
	return b.String()
}

// causeShown is the most stderr lines an exit report quotes.
const causeShown = 6

// looksLikeCause reports whether a stderr line starts the report of a failure.
func looksLikeCause(line string) bool {
	l := strings.ToLower(strings.TrimSpace(line))
	for _, p := range []string{"panic:", "fatal error:", "fatal:", "traceback (most recent call last)", "error:", "error ", "exception", "uncaught", "unhandled"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	// "TypeError: ...", "ModuleNotFoundError: ...", "java.lang.IllegalStateException: ..."
	if head, _, ok := strings.Cut(l, ":"); ok && !strings.Contains(head, " ") && (strings.HasSuffix(head, "error") || strings.HasSuffix(head, "exception")) {
		return true
	}
	return false
}

// Proc is a stdio server process started by Start: in a process group of its own, its
// stderr in the log. It is safe for concurrent use.
type Proc struct {
	server string
	cmd    *exec.Cmd
	group  *procGroup
	log    *wire.Log
	stdin  io.WriteCloser
	done   chan struct{} // closed once Wait returned
	state  *os.ProcessState

	mu    sync.Mutex
	tail  []string
	cause []string // ExitError.Cause
}

// Start starts srv's command (config.KindStdio) in a process group of its own, with its
// stderr pumped into log (the server's lines and the notes on its shutdown) and its
// stdout handed to stdout on a goroutine of its own, which must read it to EOF (Start
// closes it then). The process is registered in procs (nil: none) until it ends; its
// exit is reported (Done, Exited) once stderr and stdout are drained, boundedly.
func Start(srv config.Server, log *wire.Log, procs *Procs, stdout func(io.Reader)) (*Proc, error) {
	if srv.Command == "" {
		return nil, errors.New("no command configured")
	}
	if !procs.begin() {
		return nil, errStopping
	}
	started := false
	defer func() {
		if !started {
			procs.abort()
		}
	}()
	cmd := exec.Command(srv.Command, srv.Args...)
	ownGroup(cmd)
	cmd.Dir = srv.Cwd
	cmd.Env = os.Environ()
	keys := make([]string, 0, len(srv.Env))
	for k := range srv.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+srv.Env[k])
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{outR, outW, errR, errW} {
			f.Close()
		}
		// exec errors name the command, never the environment.
		return nil, fmt.Errorf("start %s: %w", srv.Command, err)
	}
	outW.Close()
	errW.Close()
	group, gerr := attachGroup(cmd)
	p := &Proc{server: srv.Name, cmd: cmd, group: group, log: log, stdin: stdin, done: make(chan struct{})}
	if gerr != nil {
		// Not stoppable as a whole: better not run at all.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", srv.Command, gerr)
	}
	procs.add(p)
	started = true
	var pumps sync.WaitGroup
	pumps.Add(1)
	go func() {
		defer pumps.Done()
		p.pumpStderr(errR, log)
	}()
	pumps.Add(1)
	go func() {
		defer pumps.Done()
		defer outR.Close()
		stdout(outR)
	}()
	go func() {
		_ = cmd.Wait()
		// stderr fully read before anyone reports the exit, but bounded: a grandchild
		// the server left behind (a wrapper script's child) may hold the pipes open.
		pumped := make(chan struct{})
		go func() { pumps.Wait(); close(pumped) }()
		t := time.NewTimer(pumpGrace)
		select {
		case <-pumped:
		case <-t.C:
		}
		t.Stop()
		p.state = cmd.ProcessState
		close(p.done)
		procs.remove(p)
	}()
	return p, nil
}

// pumpStderr logs the server's stderr lines and keeps the last ones and the cause.
func (p *Proc) pumpStderr(r io.ReadCloser, log *wire.Log) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, maxStderrLine)
		if line != "" || err == nil {
			line = strings.TrimRight(line, "\r")
			log.Append(wire.Entry{Server: p.server, Dir: wire.Stderr, Text: line, Size: len(line)})
			p.mu.Lock()
			p.tail = append(p.tail, line)
			switch {
			case looksLikeCause(line):
				p.cause = []string{line}
			case len(p.cause) > 0 && len(p.cause) < causeShown && strings.TrimSpace(line) != "":
				p.cause = append(p.cause, line)
			}
			if len(p.tail) > stderrTail {
				p.tail = append(p.tail[:0:0], p.tail[len(p.tail)-stderrTail:]...)
			}
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// maxStderrLine is the longest stderr line kept; the rest of a longer line is dropped
// (but still read, so the server never blocks on a full pipe).
const maxStderrLine = 64 << 10

// readLine reads one line without its newline, keeping at most max bytes of it.
func readLine(br *bufio.Reader, max int) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(buf); room > 0 {
			buf = append(buf, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimSuffix(string(buf), "\n"), err
	}
}

// Stdin returns the server's standard input.
func (p *Proc) Stdin() io.WriteCloser { return p.stdin }

// Done is closed once the process has ended and its pipes are drained (boundedly).
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited returns how the process ended, or nil while it runs.
func (p *Proc) Exited() *ExitError {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.mu.Lock()
	tail := append([]string(nil), p.tail...)
	cause := append([]string(nil), p.cause...)
	p.mu.Unlock()
	e := &ExitError{Status: p.state.ExitCode(), Stderr: tail, Cause: cause}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = signalName(ws.Signal())
	}
	return e
}

// WaitExit waits up to d for the process to end and returns its report, or nil.
func (p *Proc) WaitExit(d time.Duration) *ExitError {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
	return p.Exited()
}

// Shutdown ends the process and what it started: stdin closed, then SIGTERM to its
// group after CloseGrace, then SIGKILL after another grace; it returns once the process
// has ended (ctx cuts the graces short, not that wait).
func (p *Proc) Shutdown(ctx context.Context) { p.stopCtx(ctx, CloseGrace, termGrace, -1) }

// Stop ends the process and what it started: stdin closed, then SIGTERM to its group
// after grace, then SIGKILL after another grace, waiting at most grace+1s after it. It
// reports whether SIGKILL was needed.
func (p *Proc) Stop(grace time.Duration) bool { return p.stopWithin(grace, grace, grace+time.Second) }

// stopWithin stops with the given graces after closing stdin and after SIGTERM, and
// a bound on the wait after SIGKILL; it reports whether SIGKILL was needed.
func (p *Proc) stopWithin(closeWait, termWait, killWait time.Duration) bool {
	return p.stopCtx(context.Background(), closeWait, termWait, killWait)
}

// stopCtx stops the process; killWait < 0 waits for it without bound after SIGKILL.
func (p *Proc) stopCtx(ctx context.Context, closeWait, termWait, killWait time.Duration) (killed bool) {
	_ = p.stdin.Close()
	wait := func(d time.Duration) bool {
		if d <= 0 {
			select {
			case <-p.done:
				return true
			default:
				return false
			}
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-p.done:
			return true
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	if wait(closeWait) {
		// The server is gone; whatever it started and left behind goes too.
		p.group.term()
		killed = p.reapGroup(ctx, termWait)
		p.group.release()
		p.log.Notef(p.server, "server process stopped: it exited when its stdin was closed%s", leftBehind(killed))
		return killed
	}
	p.group.term()
	termed := time.Now()
	if wait(termWait) {
		killed = p.reapGroup(ctx, termWait-time.Since(termed))
		p.group.release()
		p.log.Notef(p.server, "server process stopped: SIGTERM to its process group%s", leftBehind(killed))
		return killed
	}
	p.group.kill()
	defer p.log.Notef(p.server, "server process stopped: SIGKILL to its process group (it ignored stdin EOF and SIGTERM)")
	if killWait < 0 {
		<-p.done
	} else {
		t := time.NewTimer(killWait)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
		}
	}
	p.group.release()
	return true
}

// Polling of a process group the server left behind: its processes are not our
// children, so nothing tells us when they end.
const (
	reapPollFirst = 5 * time.Millisecond
	reapPollMax   = 50 * time.Millisecond
	// reapKillWait bounds the wait for a killed group to be gone.
	reapKillWait = 250 * time.Millisecond
)

// reapGroup is called after SIGTERM once the server itself has exited: what it left
// in its process group (a wrapper's child that ignores SIGTERM) gets SIGKILL once d
// has passed since the SIGTERM. It returns when the group is empty, at most
// reapKillWait after the SIGKILL, and reports whether SIGKILL was needed.
func (p *Proc) reapGroup(ctx context.Context, d time.Duration) (killed bool) {
	deadline := time.Now().Add(max(d, 0))
	poll := reapPollFirst
	for !p.group.empty() {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			if killed {
				return true // SIGKILLed and still not reaped: give up waiting
			}
			p.group.kill()
			killed = true
			deadline = time.Now().Add(reapKillWait)
			continue
		}
		t := time.NewTimer(min(poll, left))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		poll = min(poll*2, reapPollMax)
	}
	return killed
}

// leftBehind is the end of a stop note: what happened to the processes the server
// left in its group.
func leftBehind(killed bool) string {
	if killed {
		return "; what it left in its process group ignored SIGTERM and got SIGKILL"
	}
	return ""
}

// signalName names sig as a user knows it: "SIGKILL", or "signal 42".
func signalName(sig syscall.Signal) string {
	for _, s := range []struct {
		sig  syscall.Signal
		name string
	}{
		{syscall.SIGKILL, "SIGKILL"}, {syscall.SIGTERM, "SIGTERM"}, {syscall.SIGINT, "SIGINT"},
		{syscall.SIGHUP, "SIGHUP"}, {syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGABRT, "SIGABRT"},
		{syscall.SIGBUS, "SIGBUS"}, {syscall.SIGPIPE, "SIGPIPE"}, {syscall.SIGQUIT, "SIGQUIT"},
		{syscall.SIGFPE, "SIGFPE"}, {syscall.SIGILL, "SIGILL"},
	} {
		if sig == s.sig {
			return s.name
		}
	}
	return fmt.Sprintf("signal %d", int(sig))
}
