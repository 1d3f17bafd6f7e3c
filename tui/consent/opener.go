package consent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-shellwords"
	"github.com/pkg/browser"
)

// Opener opens a URL the user consented to, out of the client's sight (a browser).
// Open must return once the opening is under way or has failed, and respect ctx.
type Opener interface {
	Open(ctx context.Context, url string) error
}

// ErrNoBrowser reports that no browser can be opened here (no display, or a remote
// session); the caller falls back to copy and QR code. Match it with errors.Is.
var ErrNoBrowser = errors.New("no browser can be opened here")

// NoBrowserError says why no browser can be opened. It matches ErrNoBrowser.
type NoBrowserError struct {
	// Reason is a lower-case explanation, e.g. "this is an SSH session".
	Reason string
}

// Error implements error.
func (e *NoBrowserError) Error() string { return "no browser can be opened here: " + e.Reason }

// Is makes errors.Is(err, ErrNoBrowser) true.
func (e *NoBrowserError) Is(target error) bool { return target == ErrNoBrowser }

// DefaultOpenTimeout bounds an opener that neither succeeds nor fails.
const DefaultOpenTimeout = 10 * time.Second

// BrowserOptions configures a BrowserOpener; nil means the process environment.
type BrowserOptions struct {
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// GOOS is the operating system; empty means runtime.GOOS.
	GOOS string
	// Timeout bounds one Open; zero means DefaultOpenTimeout.
	Timeout time.Duration
}

// BrowserOpener opens URLs in the system browser with github.com/pkg/browser, or with
// the command in $BROWSER when that is set. The zero value is not usable; call
// NewBrowserOpener. It is safe for concurrent use.
type BrowserOpener struct {
	getenv  func(string) string
	goos    string
	timeout time.Duration
}

// quietBrowser silences pkg/browser once per process: browser.Stdout and browser.Stderr
// are package globals of github.com/pkg/browser, and the launcher's chatter ("Opening in
// existing browser session.") must never reach our terminal or stdout.
var quietBrowser sync.Once

// NewBrowserOpener returns a BrowserOpener for this process's environment. It redirects
// pkg/browser's output (process globals, see quietBrowser) to io.Discard.
func NewBrowserOpener() *BrowserOpener { return NewBrowserOpenerWith(nil) }

// NewBrowserOpenerWith returns a BrowserOpener configured by opts (nil means the process
// environment), with pkg/browser's output redirected as by NewBrowserOpener.
func NewBrowserOpenerWith(opts *BrowserOptions) *BrowserOpener {
	quietBrowser.Do(func() {
		browser.Stdout = io.Discard
		browser.Stderr = io.Discard
	})
	b := &BrowserOpener{getenv: os.Getenv, goos: runtime.GOOS, timeout: DefaultOpenTimeout}
	if opts != nil {
		if opts.Getenv != nil {
			b.getenv = opts.Getenv
		}
		if opts.GOOS != "" {
			b.goos = opts.GOOS
		}
		if opts.Timeout > 0 {
			b.timeout = opts.Timeout
		}
	}
	return b
}

// noBrowser returns why no browser can be opened, or "".
func (b *BrowserOpener) noBrowser() string {
	if b.getenv("BROWSER") != "" {
		return ""
	}
	if b.getenv("SSH_CONNECTION") != "" || b.getenv("SSH_TTY") != "" {
		return "this is an SSH session and $BROWSER is not set"
	}
	switch b.goos {
	case "darwin", "windows", "android", "ios", "js", "wasip1":
		return ""
	}
	if b.getenv("DISPLAY") == "" && b.getenv("WAYLAND_DISPLAY") == "" {
		return "there is no graphical display ($DISPLAY and $WAYLAND_DISPLAY are unset) and $BROWSER is not set"
	}
	return ""
}

// Open implements Opener. It returns a *NoBrowserError without running anything when no
// browser is possible; otherwise it launches the browser off the caller's goroutine and
// waits at most the timeout (a launcher still running then is left to finish).
func (b *BrowserOpener) Open(ctx context.Context, url string) error {
	if r := b.noBrowser(); r != "" {
		return &NoBrowserError{Reason: r}
	}
	if env := b.getenv("BROWSER"); env != "" {
		// $BROWSER is a colon-separated list of commands; use the first.
		c, err := ParseCommand(strings.Split(env, ":")[0])
		if err != nil {
			return fmt.Errorf("$BROWSER: %w", err)
		}
		c.Wait = b.timeout
		return c.Open(ctx, url)
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- browser.OpenURL(url) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("open browser: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("open browser: %w", ctx.Err())
	}
}

// CommandOpener runs a command with the URL as its last argument, e.g. the value of
// $ELICITTY_OPENER. Its input and output are discarded. The zero value is not usable.
// It is safe for concurrent use.
type CommandOpener struct {
	// Path is the program, looked up in $PATH when it has no slash.
	Path string
	// Args come before the URL.
	Args []string
	// Wait is how long Open waits for the command to exit; a command still running
	// then (a browser that stays open) counts as a success. Zero means DefaultOpenTimeout.
	Wait time.Duration
}

// ParseCommand splits a command line into a CommandOpener with POSIX shell word rules:
// quotes and backslashes keep a path with spaces whole ("/opt/My Browser/open" or
// /opt/My\ Browser/open). Nothing is expanded or run: no variables, no backquotes, and
// no operators such as ; or |. A "%s" argument is replaced by the URL instead of the
// URL being appended.
func ParseCommand(s string) (*CommandOpener, error) {
	p := shellwords.NewParser()
	p.ParseEnv, p.ParseBacktick, p.ParseComment = false, false, false
	f, err := p.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("opener command: %w", err)
	}
	if p.Position >= 0 {
		return nil, fmt.Errorf("opener command: shell operator at offset %d is not supported", p.Position)
	}
	if len(f) == 0 {
		return nil, errors.New("empty opener command")
	}
	return &CommandOpener{Path: f[0], Args: f[1:]}, nil
}

// NewCommandOpener returns the opener for a command line such as the value of
// $ELICITTY_OPENER (see ParseCommand). An empty command yields an opener whose Open fails.
func NewCommandOpener(cmdline string) *CommandOpener {
	c, err := ParseCommand(cmdline)
	if err != nil {
		return &CommandOpener{}
	}
	return c
}

// Open implements Opener.
func (c *CommandOpener) Open(ctx context.Context, url string) error {
	if c.Path == "" {
		return errors.New("no opener command configured")
	}
	args := make([]string, 0, len(c.Args)+1)
	replaced := false
	for _, a := range c.Args {
		if a == "%s" {
			a, replaced = url, true
		}
		args = append(args, a)
	}
	if !replaced {
		args = append(args, url)
	}
	cmd := exec.Command(c.Path, args...) // Stdin, Stdout, Stderr nil: the null device.
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start opener %q: %w", c.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	wait := c.Wait
	if wait <= 0 {
		wait = DefaultOpenTimeout
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("opener %q: %w", c.Path, err)
		}
		return nil
	case <-t.C:
		return nil
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		return fmt.Errorf("opener %q: %w", c.Path, ctx.Err())
	}
}

// OpenerFromEnv returns the opener a user configured: the command in $ELICITTY_OPENER
// when set, else the system browser.
func OpenerFromEnv(getenv func(string) string) (Opener, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if s := getenv("ELICITTY_OPENER"); s != "" {
		c, err := ParseCommand(s)
		if err != nil {
			return nil, fmt.Errorf("$ELICITTY_OPENER: %w", err)
		}
		return c, nil
	}
	return NewBrowserOpenerWith(&BrowserOptions{Getenv: getenv}), nil
}
