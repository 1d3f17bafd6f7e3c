package consent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// ServerPolicy is the URL policy of one server.
type ServerPolicy struct {
	Policy urlsafe.Policy
	// CopyOnly never opens a browser: accepting copies and prints the URL.
	CopyOnly bool
}

// AnswererOptions configures an Answerer.
type AnswererOptions struct {
	// Policy and CopyOnly apply to every server that PolicyFor does not name.
	Policy   urlsafe.Policy
	CopyOnly bool
	// PolicyFor returns a server's own policy, when it has one.
	PolicyFor func(server string) (ServerPolicy, bool)
	// Opener opens consented URLs; nil means NewBrowserOpener().
	Opener Opener
	// OpenTimeout bounds one Open; zero means DefaultOpenTimeout.
	OpenTimeout time.Duration
	// NoColor renders without styles.
	NoColor bool
	// Accessible uses a line prompt (print everything, read a choice letter) instead of
	// the interactive screen.
	Accessible bool
	// Width and Height are the terminal size; zero means 80x24.
	Width, Height int
	// NoClipboard omits the OSC 52 copy sequence.
	NoClipboard bool
	// Next answers requests that are not URL mode; nil means they are unanswered.
	Next elicit.Answerer
	// OnRetry, when set, is "retry now" while a -32042 flow waits for its completion
	// (transport.Session.RetryNow); OnCancel, when set, cancels the call that waits.
	OnRetry  func(req *elicit.Request)
	OnCancel func()
	// ShowWait shows the wait that follows consent to a URL flow (a line with the link
	// and the time since consent, keys r, o, y and c) until the flow completes
	// (Completed), the next request comes, or StopWaiting, which the caller must call
	// when its call ends.
	ShowWait bool
}

// Answerer answers URL-mode elicitations on a terminal: it shows the consent screen,
// and on consent opens (or copies) the URL. Prompts are shown one at a time. It is
// safe for concurrent use. The zero value is not usable; call NewAnswerer.
type Answerer struct {
	in   io.Reader
	out  io.Writer
	opts AnswererOptions
	turn chan struct{} // one prompt at a time

	inflight chan lineResult // accessible mode: the line being read; guarded by turn

	wmu  sync.Mutex
	wait *inlineWait // the consented flow being waited for, or nil; guarded by wmu

	// drawMu orders the inline wait's drawing and the lines others print above it
	// (Println); status, when set, draws the waiting line shown last.
	drawMu sync.Mutex
	status func() string
}

// NewAnswerer returns an Answerer reading keys (or lines) from in and drawing on out
// (the terminal; UI goes to stderr in headless commands).
func NewAnswerer(in io.Reader, out io.Writer, opts AnswererOptions) *Answerer {
	if opts.Opener == nil {
		opts.Opener = NewBrowserOpener()
	}
	if opts.OpenTimeout <= 0 {
		opts.OpenTimeout = DefaultOpenTimeout
	}
	return &Answerer{in: in, out: out, opts: opts, turn: make(chan struct{}, 1)}
}

func (a *Answerer) policy(server string) ServerPolicy {
	if a.opts.PolicyFor != nil {
		if p, ok := a.opts.PolicyFor(server); ok {
			return p
		}
	}
	return ServerPolicy{Policy: a.opts.Policy, CopyOnly: a.opts.CopyOnly}
}

// Answer implements elicit.Answerer for URL-mode requests. Nothing is opened before the
// user chooses Open; a refused URL can only be declined or cancelled. When opening
// fails the URL is printed, copied and shown as a QR code, and the answer is still
// accept.
func (a *Answerer) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	if req == nil || req.Mode != elicit.ModeURL {
		if a.opts.Next != nil {
			return a.opts.Next.Answer(ctx, req)
		}
		return elicit.Response{}, fmt.Errorf("consent: not a url-mode request: %w", elicit.ErrUnanswered)
	}
	a.StopWaiting() // a new request: the earlier flow's wait gives the terminal back
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return elicit.Response{}, ctx.Err()
	}
	waiting := false
	defer func() {
		if !waiting {
			<-a.turn
		}
	}()
	pol := a.policy(req.Server)
	an := urlsafe.Analyze(req.URL, pol.Policy)
	var (
		c   Choice
		err error
	)
	if a.opts.Accessible {
		c, err = a.promptLines(ctx, req, an, !pol.CopyOnly)
	} else {
		c, err = a.promptScreen(ctx, req, an, !pol.CopyOnly)
	}
	if err != nil {
		return elicit.Response{}, err
	}
	if an.Refused && (c == Open || c == CopyOnly) {
		c = Decline // unreachable through the screens; never accept a refused URL
	}
	opened := false
	switch c {
	case Open:
		if err := a.open(ctx, an.URL); err != nil {
			fmt.Fprintf(a.out, "Could not open the browser: %v\nOpen this link yourself:\n", err)
			a.fallback(an, true)
		} else {
			opened = true
		}
	case CopyOnly:
		fmt.Fprintln(a.out, "Accepted without opening. The link:")
		a.fallback(an, false)
	}
	if a.opts.ShowWait && c.Action() == elicit.Accept && waits(req) {
		// The wait keeps the turn (and the terminal) until it ends.
		waiting = true
		a.startWait(req, an, waitOpts{canOpen: !pol.CopyOnly, opened: opened, since: time.Now()})
	}
	return elicit.Response{Action: c.Action()}, nil
}

// open runs the opener off this goroutine, bounded by the open timeout.
func (a *Answerer) open(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, a.opts.OpenTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.opts.Opener.Open(ctx, url) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("opener did not finish: %w", ctx.Err())
	}
}

// fallback prints the URL on a line of its own (unwrapped, so the terminal's copy works),
// copies it with OSC 52, and with qr shows the QR code.
func (a *Answerer) fallback(an urlsafe.Analysis, qr bool) {
	fmt.Fprintf(a.out, "%s\n", an.Display)
	if !a.opts.NoClipboard {
		fmt.Fprint(a.out, ansi.SetSystemClipboard(an.URL))
		fmt.Fprintln(a.out, "(copied to the clipboard, if your terminal allows it)")
	}
	if qr {
		if q, err := QR(an.URL); err == nil {
			fmt.Fprintf(a.out, "%s\n", q)
		}
	}
}

// promptScreen runs the consent Model inline as a bubbletea program on the terminal.
func (a *Answerer) promptScreen(ctx context.Context, req *elicit.Request, an urlsafe.Analysis, openAllowed bool) (Choice, error) {
	m := New(req, an, Options{Width: a.opts.Width, Height: a.opts.Height, NoColor: a.opts.NoColor, OpenAllowed: openAllowed})
	opts := []tea.ProgramOption{tea.WithInput(a.in), tea.WithOutput(a.out), tea.WithContext(ctx)}
	if a.opts.Width > 0 && a.opts.Height > 0 {
		opts = append(opts, tea.WithWindowSize(a.opts.Width, a.opts.Height))
	}
	p := tea.NewProgram(program{m}, opts...)
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if errors.Is(err, tea.ErrInterrupted) {
			return Cancel, nil
		}
		return 0, fmt.Errorf("consent screen: %w", err)
	}
	c, ok := m.Done()
	if !ok {
		return Cancel, nil
	}
	return c, nil
}

// program adapts Model to tea.Model and quits once the user has chosen.
type program struct{ m *Model }

func (p program) Init() tea.Cmd { return p.m.Init() }

func (p program) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(DoneMsg); ok {
		return p, tea.Quit
	}
	cmd := p.m.Update(msg)
	return p, cmd
}

func (p program) View() tea.View { return tea.NewView(p.m.View()) }

// promptLines is the accessible prompt: it prints the whole request and reads a letter.
func (a *Answerer) promptLines(ctx context.Context, req *elicit.Request, an urlsafe.Analysis, openAllowed bool) (Choice, error) {
	w := a.out
	fmt.Fprintln(w, New(req, an, Options{}).header())
	if msg := safeText(req.Message); msg != "" {
		fmt.Fprintf(w, "Message: %s\n", msg)
	}
	fmt.Fprintf(w, "Link: %s\n", an.Display)
	if an.Host != "" {
		fmt.Fprintf(w, "Real host: %s", an.Host)
		if an.Registrable != "" && an.Registrable != an.Host {
			fmt.Fprintf(w, " (site %s)", an.Registrable)
		}
		if !an.IP && an.ASCIIHost != an.Host {
			fmt.Fprintf(w, " (ASCII %s)", an.ASCIIHost)
		}
		fmt.Fprintln(w)
	}
	for _, wn := range an.Warnings {
		label := "Warning"
		if wn.Code.Info() {
			label = "Note"
		}
		fmt.Fprintf(w, "%s: %s\n", label, wn.Message)
	}
	var opts []lineOpt
	if an.Refused {
		fmt.Fprintf(w, "Refused: %s. This link cannot be opened or copied.\n", an.Reason)
	} else {
		if openAllowed {
			opts = append(opts, lineOpt{"o", "open in browser", Open})
		}
		opts = append(opts, lineOpt{"c", "copy only", CopyOnly}, lineOpt{"r", "show QR code", 0})
	}
	opts = append(opts, lineOpt{"d", "decline", Decline}, lineOpt{"x", "cancel", Cancel})
	var menu []string
	for _, o := range opts {
		menu = append(menu, o.letter+" = "+o.words)
	}
	fmt.Fprintln(w, "Nothing has been opened or fetched.")
	for {
		fmt.Fprintf(w, "Choose (%s): ", strings.Join(menu, ", "))
		line, ok, err := a.readLine(ctx)
		if err != nil {
			return 0, err
		}
		if !ok {
			fmt.Fprintln(w)
			return Cancel, nil // end of input: dismiss
		}
		o, ok := pick(opts, line)
		switch {
		case !ok:
			fmt.Fprintf(w, "%q is not one of the choices.\n", line)
		case o.c != 0:
			return o.c, nil
		default:
			if q, err := QR(an.URL); err == nil {
				fmt.Fprintln(w, q)
			} else {
				fmt.Fprintf(w, "No QR code: %v\n", err)
			}
		}
	}
}

// lineOpt is one choice of the accessible prompt; c is 0 for "show QR code".
type lineOpt struct {
	letter, words string
	c             Choice
}

// pick matches a typed line against the choices by letter, first word or full words.
func pick(opts []lineOpt, line string) (lineOpt, bool) {
	in := strings.ToLower(strings.TrimSpace(line))
	for _, o := range opts {
		if in == o.letter || in == o.words || in == strings.Fields(o.words)[0] {
			return o, true
		}
	}
	return lineOpt{}, false
}

// readLine returns the next input line; ok is false at end of input. It reads one byte
// at a time and only while a prompt waits, so it never takes input meant for whoever
// reads the terminal after it. A line still being typed when ctx ends is kept for the
// next prompt. The caller holds the turn.
func (a *Answerer) readLine(ctx context.Context) (string, bool, error) {
	if a.inflight == nil {
		ch := make(chan lineResult, 1)
		go func() { ch <- readOneLine(a.in) }()
		a.inflight = ch
	}
	select {
	case r := <-a.inflight:
		a.inflight = nil
		return r.line, r.ok, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

type lineResult struct {
	line string
	ok   bool
}

// readOneLine reads up to and including a newline, without reading ahead. ok is false
// when input ended before any byte of a line.
func readOneLine(r io.Reader) lineResult {
	var b []byte
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return lineResult{strings.TrimSuffix(string(b), "\r"), true}
			}
			b = append(b, c[0])
			continue
		}
		if err != nil {
			return lineResult{string(b), len(b) > 0}
		}
	}
}

// ScriptCheck returns the check the answers-file Script applies to a URL-mode request
// before answering it: refused reports that a scripted accept must become a decline,
// and summary is one line for stderr naming the server, the full URL, its real host and
// the warnings (and the refusal reason).
func ScriptCheck(p urlsafe.Policy) func(*elicit.Request) (refused bool, summary string) {
	return func(req *elicit.Request) (bool, string) {
		an := urlsafe.Analyze(req.URL, p)
		return an.Refused, Summary(req.Server, an)
	}
}

// Summary returns the one-line description of an analysed URL from server.
func Summary(server string, an urlsafe.Analysis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "url elicitation from %q: %s", safeText(server), an.Display)
	if an.Host != "" {
		fmt.Fprintf(&b, " (real host %s", an.Host)
		if an.Registrable != "" && an.Registrable != an.Host {
			fmt.Fprintf(&b, ", site %s", an.Registrable)
		}
		b.WriteString(")")
	}
	if len(an.Warnings) > 0 {
		msgs := make([]string, len(an.Warnings))
		for i, w := range an.Warnings {
			msgs[i] = w.Message
		}
		fmt.Fprintf(&b, "; warnings: %s", strings.Join(msgs, "; "))
	}
	if an.Refused {
		fmt.Fprintf(&b, "; refused: %s", an.Reason)
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}
