package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/elicitty/elicitty/elicit"
)

// progressLine is the one updating stderr line on which a headless command shows the
// server's progress notifications while a request runs. It draws only on a terminal;
// anything else printed on stderr (a scripted answer, an inline form, an error) clears
// it first. The zero value is unusable; a nil *progressLine draws nothing.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
	done  bool // finish was called: progress that arrives late is not drawn
}

// progressMax is the most runes of progress text shown, so the line never wraps on an
// 80-column terminal (a wrapped line could not be redrawn in place).
const progressMax = 76

// newProgressLine returns the progress line of stderr, or nil when stderr is not a
// terminal.
func newProgressLine(stderr io.Writer) *progressLine {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	return &progressLine{w: stderr}
}

// show replaces the line with text (already sanitized, one line).
func (p *progressLine) show(text string) {
	if p == nil {
		return
	}
	if r := []rune(text); len(r) > progressMax {
		text = string(r[:progressMax-1]) + "…"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[2K%s", text)
	p.shown = true
}

// clear erases the line, if shown, leaving the cursor at the start of an empty line.
func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r\x1b[2K")
		p.shown = false
	}
}

// finish clears the line for good, when the command's requests are over.
func (p *progressLine) finish() {
	if p == nil {
		return
	}
	p.clear()
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
}

// progressText is how one progress notification of server reads on the line.
func progressText(server, text string) string {
	return "elicitty: " + server + ": " + strings.Join(strings.Fields(text), " ")
}

// clearProgressFirst wraps inner so that the progress line is cleared before a request
// is answered (an inline form, a scripted answer's stderr line).
func (a *app) clearProgressFirst(inner elicit.Answerer) elicit.Answerer {
	return elicit.AnswererFunc(func(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
		a.progress.clear()
		return inner.Answer(ctx, req)
	})
}
