package consent

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tui/keymap"
	"github.com/elicitty/elicitty/tui/theme"
)

// Choice is what the user chose on the consent screen. The zero value means no choice.
type Choice int

// The consent choices.
const (
	// Open accepts and opens the URL in the browser.
	Open Choice = iota + 1
	// CopyOnly accepts; the URL is copied (OSC 52) and printed, never opened.
	CopyOnly
	// Decline is an explicit no.
	Decline
	// Cancel dismisses the request without deciding.
	Cancel
	// Retry and Reopen answer the "still waiting" screen of a URL that came back in a
	// later round: accept again without, or with, reopening it.
	Retry
	Reopen
	// Opened accepts after opening the browser failed: the user opened the link
	// themselves (from the printed or copied URL, or the QR code).
	Opened
	// Back leaves the waiting screen and keeps the flow waiting (esc): nothing is
	// answered or cancelled.
	Back
)

// String returns the choice's name.
func (c Choice) String() string {
	switch c {
	case Open:
		return "open"
	case CopyOnly:
		return "copy"
	case Decline:
		return "decline"
	case Cancel:
		return "cancel"
	case Retry:
		return "retry"
	case Reopen:
		return "reopen"
	case Opened:
		return "opened"
	case Back:
		return "back"
	}
	return "none"
}

// Action returns the elicitation action the choice answers with.
func (c Choice) Action() elicit.Action {
	switch c {
	case Open, CopyOnly, Retry, Reopen, Opened:
		return elicit.Accept
	case Decline:
		return elicit.Decline
	}
	return elicit.Cancel
}

// DoneMsg is sent (as a command's message) when the user has chosen. The embedding
// program routes it to whoever waits for the answer.
type DoneMsg struct {
	Choice Choice
	// URL is the URL the user consented to (empty on decline and cancel).
	URL string
}

// Options configures a consent Model. The zero value is an 80x24 coloured screen that
// may not open the browser.
type Options struct {
	// Width and Height are the screen size in cells; zero means 80x24.
	Width, Height int
	// NoColor renders without styles.
	NoColor bool
	// OpenAllowed offers "Open in browser"; false for a copy-only policy.
	OpenAllowed bool
}

type item struct {
	choice Choice // 0 for the QR toggle and the copy action
	label  string
	hint   string
	keys   key.Binding
	copy   bool // "Copy the link again": copies, chooses nothing
}

type styles struct {
	title, label, warn, info, refused, focus, faint lipgloss.Style
	url                                             urlStyles
	host, registrable                               lipgloss.Style
}

func newStyles(noColor bool) styles {
	if noColor {
		return styles{}
	}
	n := lipgloss.NewStyle
	return styles{
		title:       n().Bold(true),
		label:       n().Faint(true),
		warn:        n().Foreground(theme.Warn()),
		info:        n().Faint(true),
		refused:     n().Foreground(theme.Err()).Bold(true),
		focus:       n().Reverse(true),
		faint:       n().Faint(true),
		host:        n().Underline(true),
		registrable: n().Bold(true).Underline(true).Foreground(theme.Host()),
		url: urlStyles{
			Userinfo:    n().Strikethrough(true).Foreground(theme.Err()),
			Host:        n().Underline(true),
			Registrable: n().Bold(true).Underline(true).Foreground(theme.Host()),
		},
	}
}

// Model is the URL consent screen. It only reads its request and analysis and never
// performs I/O: the embedding program acts on the Choice. Update never quits the
// program. The zero value is not usable; call New. Not safe for concurrent use.
type Model struct {
	req    *elicit.Request
	a      urlsafe.Analysis
	opts   Options
	st     styles
	keys   keymap.Map
	items  []item
	cursor int
	showQR bool
	qr     string
	qrErr  error
	choice Choice
	// off is the first line shown of the warnings and message of a short window, and
	// page how many of them it shows (pgup and pgdn move by a page).
	off, page int
	// failed is why the browser could not be opened after Open; the screen then
	// stays (OpenFailed) with the link, the QR code and "I opened it myself".
	failed error
}

// New returns the consent screen for a URL-mode request and its analysis. A refused
// URL offers only Decline and Cancel. The focus starts on Open when the URL has no
// cautionary warning, else on Decline.
func New(req *elicit.Request, a urlsafe.Analysis, opts Options) *Model {
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Height <= 0 {
		opts.Height = 24
	}
	m := &Model{req: req, a: a, opts: opts, st: newStyles(opts.NoColor), keys: keymap.Default()}
	k := m.keys
	if !a.Refused {
		if opts.OpenAllowed {
			m.items = append(m.items, item{Open, "Open in browser", "o", k.Open, false})
		}
		m.items = append(m.items,
			item{CopyOnly, "Copy link only (do not open)", "c", keymap.Plus(k.Copy, "c"), false},
			item{0, "Show QR code", "r", k.QR, false})
	}
	m.items = append(m.items,
		item{Decline, "Decline", "d", keymap.Either(k.DeclineButton, k.No), false},
		item{Cancel, "Cancel", "esc", m.cancelKey(), false})
	if a.Caution() || a.Refused {
		m.cursor = m.index(Decline)
	}
	return m
}

// cancelKey is the screen's cancel: esc, and ctrl+c.
func (m *Model) cancelKey() key.Binding { return keymap.Either(m.keys.Cancel, m.keys.Interrupt) }

func (m *Model) index(c Choice) int {
	for i, it := range m.items {
		if it.choice == c {
			return i
		}
	}
	return 0
}

// Init implements the first step of a bubbletea model; the screen needs no command.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize sets the screen size in cells.
func (m *Model) SetSize(w, h int) {
	if w > 0 {
		m.opts.Width = w
	}
	if h > 0 {
		m.opts.Height = h
	}
}

// Done returns the user's choice, and whether there is one yet.
func (m *Model) Done() (Choice, bool) { return m.choice, m.choice != 0 }

// Analysis returns the URL analysis the screen shows.
func (m *Model) Analysis() urlsafe.Analysis { return m.a }

// Update handles a message. Once a choice is made it returns a command yielding
// DoneMsg (and, for CopyOnly, the clipboard request) and ignores further keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return nil
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.choice != 0 {
		return nil
	}
	switch {
	case key.Matches(msg, m.cancelKey()):
		return m.choose(Cancel)
	case key.Matches(msg, m.keys.Up, m.keys.Prev):
		m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
		return nil
	case key.Matches(msg, m.keys.Down, m.keys.Next):
		m.cursor = (m.cursor + 1) % len(m.items)
		return nil
	case key.Matches(msg, m.keys.Select):
		return m.activate(m.cursor)
	case key.Matches(msg, m.keys.PageDown):
		m.off += max(m.page, 1) // viewShort clamps it
		return nil
	case key.Matches(msg, m.keys.PageUp):
		m.off = max(m.off-max(m.page, 1), 0)
		return nil
	}
	for i, it := range m.items {
		if key.Matches(msg, it.keys) {
			m.cursor = i
			return m.activate(i)
		}
	}
	return nil
}

func (m *Model) activate(i int) tea.Cmd {
	if m.items[i].copy {
		return tea.SetClipboard(m.a.URL)
	}
	if m.items[i].choice == 0 {
		m.showQR = !m.showQR
		if m.showQR && m.qr == "" && m.qrErr == nil {
			m.qr, m.qrErr = QR(m.a.URL)
		}
		return nil
	}
	return m.choose(m.items[i].choice)
}

func (m *Model) choose(c Choice) tea.Cmd {
	if (c == Open || c == CopyOnly || c == Opened) && m.a.Refused || c == Open && !m.opts.OpenAllowed {
		return nil
	}
	m.choice = c
	done := DoneMsg{Choice: c}
	if c == Open || c == CopyOnly || c == Opened {
		done.URL = m.a.URL
	}
	cmd := func() tea.Msg { return done }
	if c == CopyOnly {
		return tea.Batch(tea.SetClipboard(m.a.URL), cmd)
	}
	return cmd
}

// OpenFailed keeps the screen open after Open when the browser could not be opened
// (err says why, e.g. a *NoBrowserError): it copies the link (OSC 52) and offers "I
// opened it myself" (Opened), "Try the browser again" (Open), the QR code, copying
// again, Decline and Cancel. The embedding program calls it instead of answering.
func (m *Model) OpenFailed(err error) tea.Cmd {
	m.failed, m.choice, m.showQR = err, 0, false
	k := m.keys
	m.items = []item{{choice: Opened, label: "I opened it myself", hint: "i", keys: k.Opened}}
	if m.opts.OpenAllowed {
		m.items = append(m.items, item{choice: Open, label: "Try the browser again", hint: "o", keys: k.Open})
	}
	m.items = append(m.items,
		item{label: "Show QR code", hint: "r", keys: k.QR},
		item{label: "Copy the link again", hint: "y", keys: keymap.Plus(k.Copy, "c"), copy: true},
		item{choice: Decline, label: "Decline", hint: "d", keys: keymap.Either(k.DeclineButton, k.No)},
		item{choice: Cancel, label: "Cancel", hint: "esc", keys: m.cancelKey()})
	m.cursor = 0
	return tea.SetClipboard(m.a.URL)
}

// Failed returns why the browser could not be opened, once OpenFailed was called.
func (m *Model) Failed() error { return m.failed }

// viewFailed writes the "open it yourself" body in room lines at most: why, the link
// in full (never cut) and its host; the explanation shrinks first when the window is
// short.
func (m *Model) viewFailed(line func(string), room int) {
	w := m.opts.Width
	urlLines := renderURL(m.a, w-2, m.st.url)
	host := ""
	if h := hostLine(m.a, m.st.host, m.st.registrable); h != "" {
		host = "Goes to: " + h
	}
	reason := "Could not open the browser: " + safeText(m.failed.Error())
	if nb := (*NoBrowserError)(nil); errors.As(m.failed, &nb) {
		reason = "No browser can be opened here: " + safeText(nb.Reason)
	}
	why := strings.Split(ansi.Wrap(reason+".", w, ""), "\n")
	why = append(why, strings.Split(ansi.Wrap("The link is copied (if your terminal allows it). Open it yourself, or scan the QR code (r):", w, ""), "\n")...)
	fixed := len(urlLines)
	if host != "" {
		fixed++
	}
	if n := room - fixed; n < len(why) {
		why = why[:max(n, 0)]
		if n > 0 {
			why[n-1] = ansi.Truncate(why[n-1], w-1, "") + "…"
		}
	}
	for _, l := range why {
		line(m.st.warn.Render(l))
	}
	for _, l := range urlLines {
		line("  " + l)
	}
	if host != "" && room > len(urlLines) {
		line(host)
	}
}

// viewDetails writes the full request: message, URL, host, refusal and warnings.
func (m *Model) viewDetails(line func(string)) {
	w := m.opts.Width
	if msg := safeText(m.req.Message); msg != "" {
		for _, l := range strings.Split(ansi.Wrap(msg, w-2, ""), "\n") {
			line("  " + l)
		}
	}
	line("")
	line(m.st.label.Render("Link (shown in full):"))
	for _, l := range renderURL(m.a, w-2, m.st.url) {
		line("  " + l)
	}
	if h := hostLine(m.a, m.st.host, m.st.registrable); h != "" {
		s := "Goes to: " + h
		if m.a.Registrable != "" && m.a.Registrable != m.a.Host {
			s += "  (site " + m.st.registrable.Render(m.a.Registrable) + ")"
		}
		if !m.a.IP && m.a.ASCIIHost != m.a.Host {
			s += "  ASCII " + m.a.ASCIIHost
		}
		if m.a.Port != "" {
			s += "  port " + m.a.Port
		}
		line(s)
	}
	if m.a.Refused {
		line("")
		for _, l := range strings.Split(ansi.Wrap("Refused: "+m.a.Reason+". This link cannot be opened or copied.", w, ""), "\n") {
			line(m.st.refused.Render(l))
		}
	}
	if len(m.a.Warnings) > 0 {
		line("")
		for _, wn := range m.a.Warnings {
			mark, st := "! ", m.st.warn
			if wn.Code.Info() {
				mark, st = "i ", m.st.info
			}
			for i, l := range strings.Split(ansi.Wrap(wn.Message, w-2, ""), "\n") {
				if i > 0 {
					mark = "  "
				}
				line(st.Render(mark + l))
			}
		}
	}
}

// viewQR writes the compact QR screen: the code, the URL and the host, sized to fit.
func (m *Model) viewQR(line func(string)) {
	w, h := m.opts.Width, m.opts.Height
	urlLines := renderURL(m.a, w-2, m.st.url)
	if m.qrErr != nil {
		line("No QR code: " + m.qrErr.Error())
	} else {
		qr := strings.Split(m.qr, "\n")
		qw := ansi.StringWidth(qr[0])
		// header, QR, URL, host line, actions, footer
		if need := 1 + len(qr) + len(urlLines) + 1 + len(m.items) + 1; qw > w || need > h {
			msg := fmt.Sprintf("The window is too small for the QR code (it needs %d columns and %d rows).", qw, need)
			for _, l := range strings.Split(ansi.Wrap(msg, w, ""), "\n") {
				line(l)
			}
		} else {
			for _, l := range qr {
				line(l)
			}
		}
	}
	for _, l := range urlLines {
		line("  " + l)
	}
	if hl := hostLine(m.a, m.st.host, m.st.registrable); hl != "" {
		s := "Goes to: " + hl
		if n := len(m.a.Warnings); n > 0 && m.a.Caution() {
			s += fmt.Sprintf("  (%d warnings: hide the QR code to read them)", n)
		}
		line(s)
	}
}

// View renders the screen. After a choice it renders one line saying what was chosen.
func (m *Model) View() string {
	if m.choice != 0 {
		return m.doneLine()
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }

	if m.failed != nil && !m.showQR {
		// The title, the link, the choices and the footer always show; the
		// explanation takes the room left.
		line(m.st.title.Render(ansi.Truncate("Open this link yourself", m.opts.Width, "…")))
		urlRows := len(renderURL(m.a, m.opts.Width-2, m.st.url))
		if m.opts.Height >= 1+3+urlRows+1+len(m.items)+1 {
			m.viewFailed(line, m.opts.Height-len(m.items)-2)
			m.viewItems(line)
			b.WriteString(m.st.faint.Render(ansi.Truncate("Then press i; the call waits for the step to finish.", m.opts.Width, "…")))
			return b.String()
		}
		// A short window: the choices two to a row, no footer.
		m.viewFailed(line, m.opts.Height-1-(len(m.items)+1)/2)
		m.viewItemsCompact(&b)
		return strings.TrimSuffix(b.String(), "\n")
	}
	if !m.showQR {
		var det []string
		m.viewDetails(func(s string) { det = append(det, s) })
		if 1+len(det)+1+len(m.items)+1 > m.opts.Height {
			return m.viewShort()
		}
		line(m.st.title.Render(m.header()))
		for _, l := range det {
			line(l)
		}
		line("")
		m.viewItems(line)
		b.WriteString(m.st.faint.Render("Nothing has been opened or fetched. ↑/↓ enter, or the key shown."))
		return b.String()
	}
	line(m.st.title.Render(m.header()))
	if m.showQR {
		m.viewQR(line)
	}
	m.viewItems(line)
	foot := "Nothing has been opened or fetched. ↑/↓ enter, or the key shown."
	if m.failed != nil {
		foot = "The browser could not be opened: scan the code, then press i."
	}
	b.WriteString(m.st.faint.Render(ansi.Truncate(foot, m.opts.Width, "…")))
	return b.String()
}

// viewShort renders the consent screen in a window too short for all of it: the
// title, the link in full, its host (with its ASCII form and port) and the choices
// (two to a row) always show; the refusal, the warnings and then the server's message
// scroll between them (pgup/pgdn), a line saying how many warnings there are and where
// the view is. No warning is ever left out.
func (m *Model) viewShort() string {
	w, h := m.opts.Width, m.opts.Height
	title := strings.Split(ansi.Wrap(m.header(), w, ""), "\n")
	for i, l := range title {
		title[i] = m.st.title.Render(l)
	}
	var must []string
	for _, l := range renderURL(m.a, w-2, m.st.url) {
		must = append(must, "  "+l)
	}
	if hl := m.hostDetails(); hl != "" {
		must = append(must, strings.Split(ansi.Wrap("Goes to: "+hl, w, ""), "\n")...)
	}
	var region []string
	if m.a.Refused {
		for _, l := range strings.Split(ansi.Wrap("Refused: "+m.a.Reason+".", w, ""), "\n") {
			region = append(region, m.st.refused.Render(l))
		}
	}
	region = append(region, m.warningLines()...)
	if text := safeText(m.req.Message); text != "" {
		for _, l := range strings.Split(ansi.Wrap(text, w-2, ""), "\n") {
			region = append(region, "  "+l)
		}
	}
	room := h - len(title) - len(must) - (len(m.items)+1)/2
	if len(region) < room {
		must = append([]string{m.st.label.Render("Link (shown in full):")}, must...)
		room--
	}
	var shown []string
	switch {
	case len(region) <= room:
		shown = region
	case room >= 2:
		view := room - 1 // the line that says where the view is
		m.off, m.page = max(0, min(m.off, len(region)-view)), view
		shown = append(shown, region[m.off:m.off+view]...)
		where := fmt.Sprintf("lines %d-%d of %d · pgup/pgdn scroll", m.off+1, m.off+view, len(region))
		if n := len(m.a.Warnings); n > 0 {
			where = fmt.Sprintf("%d warning(s) · ", n) + where
		}
		shown = append(shown, m.st.warn.Render(ansi.Truncate("! "+where, w, "…")))
	case room == 1 && len(m.a.Warnings) > 0:
		shown = []string{m.st.warn.Render(ansi.Truncate(fmt.Sprintf("! %d warning(s): a taller window shows them", len(m.a.Warnings)), w, "…"))}
	}
	var b strings.Builder
	for _, block := range [][]string{title, shown, must} {
		for _, l := range block {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	m.viewItemsCompact(&b)
	return strings.TrimSuffix(b.String(), "\n")
}

// hostDetails is the host line's text: the real host with its registrable part
// styled, its ASCII form when that differs (punycode) and a port; "" without a host.
func (m *Model) hostDetails() string {
	hl := hostLine(m.a, m.st.host, m.st.registrable)
	if hl == "" {
		return ""
	}
	if !m.a.IP && m.a.ASCIIHost != "" && m.a.ASCIIHost != m.a.Host {
		hl += "  ASCII " + m.a.ASCIIHost
	}
	if m.a.Port != "" {
		hl += "  port " + m.a.Port
	}
	return hl
}

// warningLines are the URL's warnings, wrapped, each marked ! (or i for information).
func (m *Model) warningLines() []string {
	var out []string
	for _, wn := range m.a.Warnings {
		mark, st := "! ", m.st.warn
		if wn.Code.Info() {
			mark, st = "i ", m.st.info
		}
		for i, l := range strings.Split(ansi.Wrap(wn.Message, m.opts.Width-2, ""), "\n") {
			if i > 0 {
				mark = "  "
			}
			out = append(out, st.Render(mark+l))
		}
	}
	return out
}

// viewItemsCompact writes the choices two to a row with short labels.
func (m *Model) viewItemsCompact(b *strings.Builder) {
	col := max(m.opts.Width/2, 8)
	for i, it := range m.items {
		label := ansi.Truncate(shortLabel(it, m.showQR)+" "+it.hint, col-2, "…")
		cell := "  " + label
		if i == m.cursor {
			cell = "> " + m.st.focus.Render(label)
		}
		if i%2 == 0 {
			b.WriteString(cell + strings.Repeat(" ", max(col-2-ansi.StringWidth(label), 0)))
		} else {
			b.WriteString(cell)
		}
		if i%2 == 1 || i == len(m.items)-1 {
			b.WriteByte('\n')
		}
	}
}

// shortLabel is an item's label in a narrow, short window.
func shortLabel(it item, qrShown bool) string {
	switch {
	case it.copy:
		return "Copy again"
	case it.choice == 0 && qrShown:
		return "Hide QR"
	case it.choice == 0:
		return "QR code"
	case it.choice == Opened:
		return "I opened it"
	case it.choice == Open && it.label == "Try the browser again":
		return "Browser again"
	case it.choice == CopyOnly:
		return "Copy only"
	}
	return it.label
}

// viewItems writes the choices, the focused one marked.
func (m *Model) viewItems(line func(string)) {
	for i, it := range m.items {
		label := fmt.Sprintf("%-30s %s", it.label, it.hint)
		if it.choice == 0 && m.showQR {
			label = fmt.Sprintf("%-30s %s", "Hide QR code", it.hint)
		}
		if i == m.cursor {
			line("> " + m.st.focus.Render(label))
		} else {
			line("  " + label)
		}
	}
}

func (m *Model) header() string {
	s := fmt.Sprintf("%q asks you to open a link", safeText(m.req.Asker()))
	if m.req.Tool != "" {
		s += fmt.Sprintf(" (for %s)", safeText(m.req.Tool))
	}
	if m.req.Total > 1 {
		s += fmt.Sprintf(" [%d of %d]", m.req.Index, m.req.Total)
	}
	return s
}

func (m *Model) doneLine() string {
	switch m.choice {
	case Open:
		return "Opening " + m.a.Display + " in your browser."
	case CopyOnly:
		return "Accepted without opening: " + m.a.Display
	case Opened:
		return "Accepted: you opened " + m.a.Display + " yourself."

	case Decline:
		return "Declined the link from " + fmt.Sprintf("%q", safeText(m.req.Server)) + "."
	}
	return "Cancelled."
}

// safeText sanitizes server text for display and, whatever safe.Block leaves,
// shows remaining control and invisible characters as escapes (newlines are kept).
func safeText(s string) string {
	lines := strings.Split(safe.Block(s), "\n")
	for i, l := range lines {
		parts := strings.Split(strings.ReplaceAll(l, "\t", "    "), `\`)
		for j, p := range parts {
			parts[j] = urlsafe.Escape(p)
		}
		lines[i] = strings.Join(parts, `\`)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
