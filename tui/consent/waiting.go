package consent

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// WaitingOptions describes the URL flow a Waiting screen shows.
type WaitingOptions struct {
	// Req is the URL-mode request the user consented to (or, with Req.Repeat > 0, the
	// later round that asks for the same link again).
	Req *elicit.Request
	// Analysis is Req.URL's analysis under the server's policy.
	Analysis urlsafe.Analysis
	// Since is when the user consented; Now returns the current time (the caller's clock).
	Since time.Time
	Now   func() time.Time
	// CanOpen offers "reopen" (false under a copy-only policy); CanRetry offers "retry
	// now" (a -32042 wait, or a later round that asks again).
	CanOpen, CanRetry bool
	// NotOpened is set when nothing opened the link (the user chose "Copy link only"):
	// the screen then offers "o open" and does not speak of a browser step.
	NotOpened bool
	// Width and Height are the screen size in cells; zero means 80x24.
	Width, Height int
	// NoColor renders without styles.
	NoColor bool
}

// Waiting is the one "waiting for the browser step" screen of every URL path: a
// server-pushed elicitation/create (completed by notifications/elicitation/complete), a
// -32042 error (the call retries on completion or on "retry now") and a 2026-07-28
// input request (the call was retried; the server answers in its next round, or asks
// for the same link again, Req.Repeat > 0). It shows the link in full, since when the
// flow waits and what completes it; its keys are r retry now, o reopen, y copy, v QR
// code, esc back (it closes the QR code first) and c cancel, which asks first (c or y
// again cancels, any other key keeps waiting). Like Model it performs no I/O: Done
// reports the choice (Retry, Reopen, Back or Cancel) and the embedding program acts on
// it, then calls Reset to keep waiting. Not safe for concurrent use.
type Waiting struct {
	o      WaitingOptions
	st     styles
	note   string // what went wrong last (the browser could not be opened), or ""
	showQR bool
	qr     string
	qrErr  error
	choice Choice
	// asking is set while "cancel the call?" waits for its answer.
	asking bool
}

// NewWaiting returns the waiting screen for o.
func NewWaiting(o WaitingOptions) *Waiting {
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.Height <= 0 {
		o.Height = 24
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Waiting{o: o, st: newStyles(o.NoColor)}
}

// Init implements the first step of a bubbletea model; the screen needs no command.
func (w *Waiting) Init() tea.Cmd { return nil }

// SetSize sets the screen size in cells.
func (w *Waiting) SetSize(width, height int) {
	if width > 0 {
		w.o.Width = width
	}
	if height > 0 {
		w.o.Height = height
	}
}

// Done returns the user's choice (Retry, Reopen or Cancel), and whether there is one.
func (w *Waiting) Done() (Choice, bool) { return w.choice, w.choice != 0 }

// Reset clears the choice so that the screen keeps waiting; note (may be "") says what
// happened, e.g. that the browser could not be opened.
func (w *Waiting) Reset(note string) { w.choice, w.note, w.asking = 0, note, false }

// Opened records that the link is now open in the browser (after o on a link that
// was only copied), so that the screen speaks of the browser and offers "o reopen".
func (w *Waiting) Opened() { w.o.NotOpened = false }

// Request returns the request the screen shows.
func (w *Waiting) Request() *elicit.Request { return w.o.Req }

// Update handles a key. y copies the link (OSC 52) and v toggles the QR code; the
// other keys choose.
func (w *Waiting) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		w.SetSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		if w.choice != 0 {
			return nil
		}
		if w.asking {
			w.asking = false
			switch msg.String() {
			case "c", "x", "y", "ctrl+c":
				w.choice = Cancel
			default:
				w.note = "Not cancelled: still waiting."
			}
			return nil
		}
		switch msg.String() {
		case "r", "enter":
			if !w.o.CanRetry {
				w.note = "Nothing to retry now: see above for what completes it."
				break
			}
			w.choice = Retry
		case "o":
			if !w.o.CanOpen {
				w.note = "The server's URL policy is copy-only: the link is not opened here (y copies it)."
				break
			}
			w.choice = Reopen
		case "y":
			w.note = "Link copied to the clipboard (if your terminal allows it)."
			return tea.SetClipboard(w.o.Analysis.URL)
		case "v":
			w.showQR = !w.showQR
			if w.showQR && w.qr == "" && w.qrErr == nil {
				w.qr, w.qrErr = QR(w.o.Analysis.URL)
			}
		case "esc":
			if w.showQR {
				w.showQR = false
				break
			}
			w.choice = Back
		case "c", "x", "ctrl+c":
			w.asking = true
			w.note = cancelQuestion
		}
	}
	return nil
}

// Handles reports whether the screen acts on key k; the embedding program may use other
// keys for itself.
func (w *Waiting) Handles(k string) bool {
	if w.asking {
		return true // the answer to "cancel the call?"
	}
	switch k {
	case "r", "enter", "o", "y", "v", "c", "x", "esc", "ctrl+c":
		return true
	}
	return false
}

// Completion says what completes a consented URL flow and what retry does, in one or
// two sentences for the user. It is shared by the TUI's waiting screen and the inline
// prompt's waiting line.
func Completion(req *elicit.Request) string {
	server := safeText(req.Server)
	id := safeText(req.ElicitationID)
	switch {
	case req.Repeat > 0:
		times := "again"
		if req.Repeat > 1 {
			times = fmt.Sprintf("again (%d times)", req.Repeat)
		}
		return server + " asks for the same link " + times + ": the step in the browser is not finished yet. It was not reopened. Retry answers again, so the call retries now."
	case req.Origin == elicit.OriginInputRequest:
		return "Your consent went back with the retried call. " + server + " answers it once the step in the browser is done, or asks again in its next round."
	case req.Origin == elicit.OriginURLRequired && id != "":
		return "The call is retried when " + server + " sends notifications/elicitation/complete for " + id + ", or at once with r."
	case req.Origin == elicit.OriginURLRequired:
		return "The link has no elicitationId, so the call was retried at once; it ends or asks again."
	case id != "":
		return "Done when " + server + " sends notifications/elicitation/complete for " + id + " (or its call ends)."
	}
	return "Done when the call ends."
}

// Elapsed formats a wait's duration for humans: "12s", "3m04s", "1h02m".
func Elapsed(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// keyHints lists the keys the screen offers.
func (w *Waiting) keyHints() []string {
	var k []string
	if w.o.CanRetry {
		k = append(k, "r retry now")
	}
	switch {
	case w.o.CanOpen && w.o.NotOpened:
		k = append(k, "o open")
	case w.o.CanOpen:
		k = append(k, "o reopen")
	}
	qr := "v QR code"
	if w.showQR {
		qr = "v hide QR"
	}
	back := "esc back"
	if w.showQR {
		back = "esc hide QR"
	}
	return append(k, "y copy", qr, back, "c cancel")
}

// cancelQuestion is asked before c cancels: the call and its flow end for good.
const cancelQuestion = "Cancel the call? c or y: yes, cancel · any other key: no, keep waiting."

// View renders the screen in at most its height: the title, the link in full, its
// host and the time since consent, and the keys always show; the explanation of what
// completes the flow, the server's message (or the QR code) and the spacing take the
// room that is left, the message going first.
func (w *Waiting) View() string {
	width, height := max(w.o.Width, 20), max(w.o.Height, 4)
	a := w.o.Analysis
	req := w.o.Req
	head := "Waiting for the step in your browser"
	if w.o.NotOpened {
		head = "Waiting for the step at the link"
	}
	if req.Repeat > 0 {
		head = "Still waiting: the link came back"
	}
	title := wrapLines(w.st.title.Render(head), width)
	elapsed := ""
	if !w.o.Since.IsZero() {
		elapsed = "since " + Elapsed(w.o.Now().Sub(w.o.Since))
	}
	var must []string
	must = append(must, renderURL(a, width, w.st.url)...)
	if h := hostLine(a, w.st.host, w.st.registrable); h != "" {
		must = append(must, wrapLines("on "+h+", for "+safeText(req.Server)+", "+elapsed, width)...)
	} else if elapsed != "" {
		must = append(must, elapsed)
	}
	if w.note != "" {
		must = append(must, wrapLines(w.st.warn.Render(w.note), width)...)
	}
	keys := wrapHints(w.keyHints(), width)
	room := height - len(title) - len(must) - len(keys)
	var msg, comp []string
	if w.showQR {
		comp = w.qrLines(width, room)
	} else {
		if m := safeText(req.Message); m != "" {
			msg = wrapLines(m, width)
		}
		comp = wrapLines(w.st.faint.Render(Completion(req)), width)
	}
	blank := []string{""}
	var lines []string
	switch {
	case len(msg)+len(comp)+4 <= room: // everything, spaced
		lines = concat(title, msg, blank, comp, blank, must, blank, keys)
	case len(comp)+2 <= room: // without the message
		lines = concat(title, comp, blank, must, blank, keys)
	case len(comp) <= room:
		lines = concat(title, comp, must, keys)
	case room > 0: // the explanation cut
		cut := append(comp[:room-1:room-1], w.st.faint.Render(ansi.Truncate("… (a taller window shows more)", width, "…")))
		lines = concat(title, cut, must, keys)
	default:
		lines = concat(title, must, keys)
	}
	if len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	return strings.Join(lines, "\n")
}

// qrLines returns the QR code, or why it is not shown, in room lines at most.
func (w *Waiting) qrLines(width, room int) []string {
	if w.qrErr != nil {
		return wrapLines("No QR code: "+w.qrErr.Error(), width)
	}
	qr := strings.Split(w.qr, "\n")
	if qw := ansi.StringWidth(qr[0]); qw > width || len(qr) > room {
		return wrapLines(fmt.Sprintf("The window is too small for the QR code: it needs %d more columns and %d more rows.",
			max(qw-width, 0), max(len(qr)-room, 0)), width)
	}
	return qr
}

// concat joins blocks of lines.
func concat(blocks ...[]string) []string {
	var out []string
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

// wrapLines wraps s (which may hold styles) at width cells, words first.
func wrapLines(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// wrapHints joins key hints with " · ", starting a new line where the next would not fit.
func wrapHints(hints []string, width int) []string {
	var lines []string
	cur := ""
	for _, h := range hints {
		switch {
		case cur == "":
			cur = h
		case ansi.StringWidth(cur)+3+ansi.StringWidth(h) <= width:
			cur += " · " + h
		default:
			lines = append(lines, cur)
			cur = h
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
