package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tui/keymap"
)

// Default size of a Model that was given none.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Options configures a Model. The zero value means 80x24, colour, not accessible.
// Whether content failing the schema may be accepted is the request's NoValidate.
type Options struct {
	// Width and Height are the size of the area the form is drawn in.
	Width, Height int
	// Accessible asks for huh's accessible mode. Model itself always draws the
	// interactive form; the flag is carried for embedders (the Prompter runs accessible
	// forms without a model).
	Accessible bool
	// NoColor draws without colour.
	NoColor bool
	// Editor is the command line ctrl+e runs on a text field's value; "" means
	// $VISUAL, then $EDITOR, then vi.
	Editor string
	// Call, when set ("tool echo"), makes the form collect the arguments of that call
	// instead of answering a server: the header names the call, the review shows the
	// arguments, its buttons are Call, Edit and Cancel, and nothing declines.
	Call string
	// Values pre-fill the fields, by field name (a call's last arguments); values that
	// do not fit their field are ignored.
	Values map[string]any
}

// phase is where a Model is in its flow.
type phase int

const (
	phaseFill   phase = iota // the huh fields
	phaseReview              // the JSON that will be sent and the action buttons
	phaseDone                // answered; Done reports the response
)

// button is an action of the review step.
type button int

const (
	buttonAccept button = iota
	buttonEdit
	buttonDecline
	buttonCancel
	buttonCount
)

var buttonLabels = [buttonCount]string{"Accept", "Edit", "Decline", "Cancel"}

// Model is the form of one elicitation request as an embeddable bubbletea component:
// a header with the asking server, the message and warnings (pgup/pgdown scroll it), the
// huh fields in server order (in pages of a few fields; shift+tab on a page's first
// field goes back a page), a review step showing the exact JSON that will be sent
// (secrets masked), and Accept, Edit, Decline and Cancel buttons. Esc and ctrl+c cancel
// and ctrl+x declines at every step.
//
// The embedder sends it every message it does not handle itself (huh moves focus with
// its own messages, returned as commands), calls SetSize instead of sending
// tea.WindowSizeMsg, and checks Done after each Update: Update never returns tea.Quit.
// Create it with NewModel; the zero value is not usable. It is not safe for
// concurrent use.
type Model struct {
	req    *elicit.Request
	form   *elicit.Form
	opts   Options
	ans    *answers
	hf     *huh.Form   // the current page; nil for a confirm-only form
	fields []huh.Field // the current page's fields
	page   int         // index of the current page
	keys   keymap.Map
	styles styles

	width, height int
	// sized is false when the huh form has not been laid out for width and height
	// yet; layout waits for the first Init, Update or View, so that an embedder that
	// resizes right after creating the model pays for one layout only.
	sized bool
	phase phase

	// header is the wrapped header text; headerOff the first line shown.
	header    []string
	headerOff int

	review reviewState
	resp   elicit.Response
	// raw is the review's JSON before wrapping; review.lines is it wrapped to the width.
	raw string
	// initial is the answers' state when the form opened (see Dirty).
	initial string

	// exec runs the editor with the terminal (tea.ExecProcess; tests replace it).
	exec func(*exec.Cmd, tea.ExecCallback) tea.Cmd
	// editorErr is the last editor failure, shown until the next edit.
	editorErr string
	// ahead holds keys typed while the focus moves to the next field.
	ahead typeahead
}

// reviewState is the review step: the merged content, its JSON and what is wrong with it.
type reviewState struct {
	content  map[string]any
	lines    []string // the JSON that will be sent, indented
	off      int      // first JSON line shown
	problems []string // violations and conversion errors, sanitized
	focus    button
}

// NewModel returns the form for req, whose schema parsed into f. A form without
// fields starts at the review step (accept, decline or cancel).
func NewModel(req *elicit.Request, f *elicit.Form, opts Options) *Model {
	if f == nil {
		f = &elicit.Form{}
	}
	if req == nil {
		req = &elicit.Request{}
	}
	m := &Model{
		req:    req,
		form:   f,
		opts:   opts,
		ans:    newAnswers(f).prefill(opts.Values),
		keys:   keymap.Default(),
		styles: newStyles(opts.NoColor),
		exec:   tea.ExecProcess,
	}
	m.initial = m.ans.state()
	if len(f.Fields) == 0 {
		m.enterReview()
	} else {
		m.openPage(0)
	}
	m.SetSize(opts.Width, opts.Height)
	return m
}

// Dirty reports whether the user has typed or picked anything that cancelling would
// throw away.
func (m *Model) Dirty() bool {
	return m.phase != phaseDone && m.ans.state() != m.initial
}

// pageSize is the number of fields on one page. huh renders every field of a form on
// each update, so a long form is shown as pages of separate huh forms, built as the
// user reaches them.
const pageSize = 5

// pages is the number of pages of fields.
func (m *Model) pages() int { return (len(m.ans.list) + pageSize - 1) / pageSize }

// openPage builds the huh form of page p over m's answers and makes it current.
// The caller lays it out and runs its Init.
func (m *Model) openPage(p int) {
	m.page = p
	page := &answers{form: m.form, list: m.ans.list[p*pageSize : min(len(m.ans.list), (p+1)*pageSize)]}
	m.fields = page.fields(buildOptions{mask: true, width: m.contentWidth(), theme: m.styles.theme, noValidate: m.req.NoValidate})
	hf := huh.NewForm(huh.NewGroup(m.fields...)).
		WithTheme(m.styles.theme).
		WithShowHelp(true).
		WithShowErrors(true)
	// The form must never quit the program. Update reads hf.State right after each
	// update instead of waiting for these commands, so the review step shows in the
	// same frame the last field is submitted.
	hf.SubmitCmd, hf.CancelCmd = nil, nil
	m.hf = hf
	m.phase = phaseFill
}

// turnPage opens page p, sized and focused, and returns its Init command.
func (m *Model) turnPage(p int) tea.Cmd {
	m.openPage(p)
	m.sized = false
	m.layout()
	return m.hf.Init()
}

// Init returns the command that focuses the first field.
func (m *Model) Init() tea.Cmd {
	if m.hf == nil {
		return nil
	}
	m.layout()
	return m.hf.Init()
}

// Done returns the user's response once they accepted, declined or cancelled.
// On accept, Content is the content after the defaults merge, exactly as shown in the
// review step.
func (m *Model) Done() (elicit.Response, bool) {
	return m.resp, m.phase == phaseDone
}

// SetSize sets the size of the area the form is drawn in; 0 means the default (80x24).
func (m *Model) SetSize(w, h int) {
	if w <= 0 {
		w = defaultWidth
	}
	if h <= 0 {
		h = defaultHeight
	}
	m.width, m.height = w, h
	m.header = wrapLines(m.headerText(), m.contentWidth())
	m.headerOff = clamp(m.headerOff, 0, max(0, len(m.header)-m.headerHeight()))
	m.sized = false
	m.review.lines = wrapJSON(m.raw, m.contentWidth())
	m.review.off = clamp(m.review.off, 0, max(0, len(m.review.lines)-m.jsonHeight()))
}

// wrapJSON splits the review JSON into lines of at most w cells: a long string is
// shown in full over several lines, continuation lines indented under their start.
func wrapJSON(s string, w int) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " ")) + 2
		if indent > w/2 {
			indent = 0
		}
		first := ansi.Hardwrap(l, w, false)
		parts := strings.Split(first, "\n")
		out = append(out, parts[0])
		rest := strings.Join(parts[1:], "")
		pad := strings.Repeat(" ", indent)
		for _, p := range strings.Split(ansi.Hardwrap(rest, w-indent, false), "\n") {
			out = append(out, pad+p)
		}
	}
	return out
}

// layout sizes the huh form for the current size, once per size.
func (m *Model) layout() {
	if m.sized || m.hf == nil {
		return
	}
	m.sized = true
	// huh sizes a form that was given no fixed size from a WindowSizeMsg: its width,
	// and the smaller of its content and the given height. Its group view is one
	// line taller than the height it is given (the blank line above its help),
	// hence the -1.
	// In a short area huh's own key help goes (the footer stays), so that the
	// focused field's input fits.
	help := m.bodyHeight() >= huhHelpHeight
	m.hf.WithShowHelp(help)
	h := m.bodyHeight()
	if help {
		h--
	}
	fm, _ := m.hf.Update(tea.WindowSizeMsg{Width: m.contentWidth(), Height: h})
	if f, ok := fm.(*huh.Form); ok {
		m.hf = f
	}
}

// update handles a message once its turn has come (see Update).
func (m *Model) update(msg tea.Msg) tea.Cmd {
	if m.phase == phaseDone {
		return nil
	}
	if e, ok := msg.(editorDoneMsg); ok {
		m.editorDone(e)
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if cmd, handled := m.onKey(k); handled {
			return cmd
		}
	}
	if m.phase != phaseFill || m.hf == nil {
		return nil
	}
	m.layout()
	fm, cmd := m.hf.Update(msg)
	if f, ok := fm.(*huh.Form); ok {
		m.hf = f
	}
	if m.hf.State == huh.StateAborted {
		m.finish(elicit.Cancel)
		return nil
	}
	if m.hf.State == huh.StateCompleted {
		if m.page+1 < m.pages() {
			return m.turnPage(m.page + 1)
		}
		m.enterReview()
		return nil
	}
	return cmd
}

// onKey handles the keys that work at every step and the review step's keys; handled
// is false for keys that belong to the huh form.
func (m *Model) onKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	switch {
	case key.Matches(k, m.keys.Interrupt), key.Matches(k, m.keys.Cancel) && !m.filtering():
		m.finish(elicit.Cancel)
		return nil, true
	case key.Matches(k, m.keys.Decline) && m.opts.Call == "":
		m.finish(elicit.Decline)
		return nil, true
	case key.Matches(k, m.keys.PageUp):
		m.headerOff = clamp(m.headerOff-max(1, m.headerHeight()-1), 0, max(0, len(m.header)-m.headerHeight()))
		return nil, true
	case key.Matches(k, m.keys.PageDown):
		m.headerOff = clamp(m.headerOff+max(1, m.headerHeight()-1), 0, max(0, len(m.header)-m.headerHeight()))
		return nil, true
	}
	if m.phase == phaseReview {
		return m.onReviewKey(k), true
	}
	if key.Matches(k, m.keys.Editor) {
		if _, _, ok := m.focusedInput(); ok {
			return m.openEditor(), true
		}
	}
	if key.Matches(k, m.keys.Prev) && m.page > 0 && len(m.fields) > 0 && m.hf.GetFocusedField() == m.fields[0] {
		return m.turnPage(m.page - 1), true
	}
	return nil, false
}

// Filtering reports whether the focused field is filtering its options: esc then ends
// the filtering instead of cancelling the form.
func (m *Model) Filtering() bool { return m.filtering() }

// filtering reports whether the focused huh field is filtering its options, where esc
// belongs to the field.
func (m *Model) filtering() bool {
	if m.phase != phaseFill || m.hf == nil {
		return false
	}
	f, ok := m.hf.GetFocusedField().(interface{ GetFiltering() bool })
	return ok && f.GetFiltering()
}

func (m *Model) onReviewKey(k tea.KeyPressMsg) tea.Cmd {
	r := &m.review
	switch {
	case key.Matches(k, m.keys.Left, m.keys.Prev):
		r.focus = m.moveFocus(-1)
	case key.Matches(k, m.keys.Right, m.keys.Next):
		r.focus = m.moveFocus(+1)
	case key.Matches(k, m.keys.Up):
		r.off = clamp(r.off-1, 0, max(0, len(r.lines)-m.jsonHeight()))
	case key.Matches(k, m.keys.Down):
		r.off = clamp(r.off+1, 0, max(0, len(r.lines)-m.jsonHeight()))
	case key.Matches(k, m.keys.Select):
		return m.press(r.focus)
	case key.Matches(k, m.keys.Accept):
		return m.press(buttonAccept)
	case key.Matches(k, m.keys.Edit):
		return m.press(buttonEdit)
	case key.Matches(k, m.keys.DeclineButton):
		return m.press(buttonDecline)
	case key.Matches(k, m.keys.CancelButton):
		return m.press(buttonCancel)
	}
	return nil
}

// moveFocus returns the next enabled button in direction d, wrapping around.
func (m *Model) moveFocus(d int) button {
	b := m.review.focus
	for range buttonCount {
		b = (b + button(d) + buttonCount) % buttonCount
		if m.enabled(b) {
			return b
		}
	}
	return m.review.focus
}

// enabled reports whether a review button can be pressed.
func (m *Model) enabled(b button) bool {
	switch b {
	case buttonAccept:
		return len(m.review.problems) == 0 || m.req.NoValidate
	case buttonEdit:
		return len(m.form.Fields) > 0
	case buttonDecline:
		return m.opts.Call == ""
	}
	return true
}

func (m *Model) press(b button) tea.Cmd {
	if !m.enabled(b) {
		return nil
	}
	switch b {
	case buttonAccept:
		m.finish(elicit.Accept)
	case buttonEdit:
		return m.turnPage(0)
	case buttonDecline:
		m.finish(elicit.Decline)
	case buttonCancel:
		m.finish(elicit.Cancel)
	}
	return nil
}

// finish records the response; content goes with Accept only.
func (m *Model) finish(a elicit.Action) {
	m.resp = elicit.Response{Action: a}
	if a == elicit.Accept {
		if m.phase != phaseReview {
			m.enterReview()
		}
		m.resp.Content = m.review.content
		m.resp.Files = m.ans.files(m.review.content)
	}
	m.phase = phaseDone
}

// enterReview computes the content that Accept would send: what the user produced,
// merged with the defaults, and what is wrong with it.
func (m *Model) enterReview() {
	m.phase = phaseReview
	r := reviewState{focus: buttonAccept}
	r.content, r.problems = reviewContent(m.form, m.ans, m.req.NoValidate)
	var b []byte
	var jerr error
	if m.opts.Call != "" {
		b, jerr = argsJSON(m.form, r.content)
	} else {
		b, jerr = reviewJSON(m.form, r.content)
	}
	if jerr != nil {
		r.problems = append(r.problems, "✗ "+jerr.Error())
	}
	m.raw = string(b)
	r.lines = wrapJSON(m.raw, m.contentWidth())
	m.review = r
	if !m.enabled(buttonAccept) {
		m.review.focus = buttonEdit
	}
}

// headerText is the header: who asks, the sanitized message and the warnings.
func (m *Model) headerText() string {
	if m.opts.Call != "" {
		return callHeader(m.opts.Call, m.req, m.form)
	}
	return headerText(m.req, m.form)
}

// callHeader is the header of an argument form: the call, its server, the sanitized
// description and the lint findings.
func callHeader(call string, req *elicit.Request, f *elicit.Form) string {
	var b strings.Builder
	b.WriteString("Arguments for " + oneLine(safe.Block(call)))
	if req.Server != "" {
		b.WriteString(" on " + oneLine(safe.Block(req.Server)))
	}
	b.WriteString(" (* required)\n")
	if msg := strings.TrimSpace(safe.Block(req.Message)); msg != "" {
		b.WriteString(msg + "\n")
	}
	for _, fd := range f.Findings {
		b.WriteString("⚠ " + oneLine(safe.Block(fd.Message)) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// contentWidth is the width available to the header, form and review.
func (m *Model) contentWidth() int { return max(20, m.width-2) }

// huhHelpHeight is the least body height at which huh's key help is shown.
const huhHelpHeight = 10

// headerHeight is the number of header lines shown: at most a third of the height, and
// two lines in a short area (pgup/pgdn scroll the rest).
func (m *Model) headerHeight() int {
	limit := max(3, (m.height-2)/3)
	if m.height < 16 {
		limit = 2
	}
	return min(len(m.header), limit)
}

// headerOverflows reports whether the header needs scrolling.
func (m *Model) headerOverflows() bool { return len(m.header) > m.headerHeight() }

// bodyHeight is the height left for the form or the review: the whole height minus the
// header, its scroll indicator, a blank line and the footer.
func (m *Model) bodyHeight() int {
	h := m.height - m.headerHeight() - 2
	if m.headerOverflows() {
		h--
	}
	return max(3, h)
}

// jsonHeight is the number of JSON lines shown in the review step.
func (m *Model) jsonHeight() int {
	// the title, the problems, a blank line and the buttons
	h := m.bodyHeight() - 3 - len(m.review.problems)
	if len(m.review.lines) > h {
		h-- // the scroll indicator
	}
	return max(1, h)
}

// View renders the form. It is never taller or wider than the size given to SetSize,
// and the footer with the actions is always its last line.
func (m *Model) View() string {
	m.layout()
	var b strings.Builder
	s := m.styles
	hh := m.headerHeight()
	for i, l := range m.header[m.headerOff : m.headerOff+hh] {
		if i+m.headerOff == 0 {
			l = s.title.Render(l)
		} else if strings.HasPrefix(l, "⚠") {
			l = s.warn.Render(l)
		}
		b.WriteString(l + "\n")
	}
	if m.headerOverflows() {
		b.WriteString(s.dim.Render(fmt.Sprintf("── message %d-%d of %d · pgup/pgdn ──",
			m.headerOff+1, m.headerOff+hh, len(m.header))) + "\n")
	}
	b.WriteString("\n")
	var body string
	switch m.phase {
	case phaseFill:
		body = m.hf.View()
	case phaseReview:
		body = m.reviewView()
	case phaseDone:
		body = s.dim.Render("answered: " + string(m.resp.Action))
	}
	b.WriteString(fitLines(body, m.bodyHeight()) + "\n")
	b.WriteString(s.dim.Render(m.footer()))
	return fitWidth(b.String(), m.width)
}

// fitWidth cuts every line of s to at most w cells.
func fitWidth(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) reviewView() string {
	s := m.styles
	r := m.review
	var b strings.Builder
	title := "Review: Accept sends this response"
	if m.opts.Call != "" {
		title = "Review: Call sends these arguments"
	}
	if hasSecret(m.form) {
		title += " (secrets masked here)"
	}
	if len(m.form.Fields) == 0 && m.opts.Call == "" {
		title = "This request has no fields: accept, decline or cancel"
	}
	b.WriteString(s.title.Render(title) + "\n")
	jh := m.jsonHeight()
	end := min(len(r.lines), r.off+jh)
	for _, l := range r.lines[r.off:end] {
		b.WriteString(s.json.Render(l) + "\n")
	}
	if len(r.lines) > jh {
		b.WriteString(s.dim.Render(fmt.Sprintf("(lines %d-%d of %d, ↑/↓ to scroll)", r.off+1, end, len(r.lines))) + "\n")
	}
	for _, p := range r.problems {
		b.WriteString(s.err.Render(ansi.Truncate(p, m.contentWidth(), "…")) + "\n")
	}
	b.WriteString("\n")
	btns := make([]string, 0, buttonCount)
	for i := range buttonCount {
		if (i == buttonEdit || i == buttonDecline) && !m.enabled(i) {
			continue
		}
		btns = append(btns, m.buttonView(i))
	}
	b.WriteString(strings.Join(btns, " "))
	return b.String()
}

func (m *Model) buttonView(b button) string {
	label := buttonLabels[b]
	if b == buttonAccept && m.opts.Call != "" {
		label = "Call"
	}
	switch {
	case !m.enabled(b):
		return m.styles.disabled.Render("  " + label + "  ")
	case m.review.focus == b:
		return m.styles.focused.Render("[ " + label + " ]")
	}
	return m.styles.button.Render("  " + label + "  ")
}

// footer is the key help line that keeps the actions in view, most important first so
// that a narrow terminal still shows how to leave.
func (m *Model) footer() string {
	parts := []string{"esc cancel"}
	if m.phase == phaseReview {
		switch {
		case !m.enabled(buttonAccept):
		case m.opts.Call != "":
			parts = append(parts, "a call")
		default:
			parts = append(parts, "a accept")
		}
		if m.enabled(buttonDecline) {
			parts = append(parts, "d decline")
		}
		if m.enabled(buttonEdit) {
			parts = append(parts, "e edit")
		}
		parts = append(parts, "←/→ enter")
	} else {
		if m.opts.Call == "" {
			parts = append(parts, "ctrl+x decline")
		}
		if _, _, ok := m.focusedInput(); ok {
			parts = append(parts, "ctrl+e $EDITOR")
		}
		if m.hf != nil && m.bodyHeight() < huhHelpHeight && isMulti(m.hf.GetFocusedField()) {
			parts = append(parts, "x toggle") // huh's own help is hidden
		}
		if n := m.pages(); n > 1 {
			parts = append(parts, fmt.Sprintf("page %d/%d", m.page+1, n))
		}
	}
	if m.headerOverflows() {
		parts = append(parts, "pgup/pgdn message")
	}
	if m.editorErr != "" {
		parts = append(parts, m.editorErr)
	}
	return ansi.Truncate(strings.Join(parts, " · "), m.width, "…")
}

// headerText is the header note of a request: who asks, the sanitized message, and the
// warnings (lint findings and secret fields). Everything server-provided is sanitized.
func headerText(req *elicit.Request, f *elicit.Form) string {
	var b strings.Builder
	server := "a server"
	if req != nil && req.Server != "" {
		server = fmt.Sprintf("%q", oneLine(req.Asker()))
	}
	b.WriteString("Input requested by " + server)
	if req != nil && req.Call != "" {
		b.WriteString(" during " + oneLine(safe.Block(req.Call)))
	}
	if req != nil && req.Total > 1 {
		fmt.Fprintf(&b, " (%d of %d)", req.Index, req.Total)
	}
	b.WriteString("\n")
	if req != nil {
		if msg := strings.TrimSpace(safe.Block(req.Message)); msg != "" {
			b.WriteString(msg + "\n")
		}
		if line := appViewLine(req); line != "" {
			b.WriteString(line + "\n")
		}
	}
	for _, fd := range f.Findings {
		line := "⚠ " + oneLine(safe.Block(fd.Message))
		if fd.Path != "" {
			line += " (" + oneLine(safe.Block(fd.Path)) + ")"
		}
		b.WriteString(line + "\n")
	}
	warned := map[string]bool{}
	for _, fd := range f.Findings {
		if fd.Code == elicit.CodeSecretField {
			warned[fd.Path] = true
		}
	}
	for _, fld := range f.Fields {
		// Parse reports secret fields itself; hand-built forms may not.
		if fld.Secret && !warned["/properties/"+escapePointer(fld.Name)] {
			fmt.Fprintf(&b, "⚠ field %q looks like a secret: form mode must not collect secrets; decline unless you trust this server\n",
				oneLine(safe.Block(fld.Name)))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// wrapLines wraps s at width and splits it into lines.
func wrapLines(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// fitLines cuts s to at most n lines.
func fitLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// escapePointer escapes a property name for a JSON Pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// maskSecrets returns content with the string values of secret fields replaced by
// asterisks, for display; content is not modified.
func maskSecrets(f *elicit.Form, content map[string]any) map[string]any {
	if !hasSecret(f) || content == nil {
		return content
	}
	out := make(map[string]any, len(content))
	for k, v := range content {
		out[k] = v
	}
	for _, fld := range f.Fields {
		if s, ok := out[fld.Name].(string); ok && fld.Secret {
			out[fld.Name] = strings.Repeat("*", min(len([]rune(s)), 12))
		}
	}
	return out
}

func hasSecret(f *elicit.Form) bool {
	for _, fld := range f.Fields {
		if fld.Secret {
			return true
		}
	}
	return false
}

// reviewJSON encodes the accept response a review shows, indented, with the content's
// members in the form's field order (the server's order) and any others after them in
// name order, secrets masked. Go maps would sort every key alphabetically.
func reviewJSON(f *elicit.Form, content map[string]any) ([]byte, error) {
	return orderedJSON(f, content, true)
}

// argsJSON encodes the arguments of a call as reviewJSON encodes a response's content.
func argsJSON(f *elicit.Form, content map[string]any) ([]byte, error) {
	if content == nil {
		content = map[string]any{}
	}
	return orderedJSON(f, content, false)
}

func orderedJSON(f *elicit.Form, content map[string]any, response bool) ([]byte, error) {
	content = describeFiles(f, maskSecrets(f, content))
	var buf bytes.Buffer
	if response {
		buf.WriteString(`{"action":"accept"`)
	}
	if content != nil {
		if response {
			buf.WriteString(`,"content":`)
		}
		buf.WriteString(`{`)
		seen := make(map[string]bool, len(content))
		var keys []string
		for _, fld := range f.Fields {
			if _, ok := content[fld.Name]; ok && !seen[fld.Name] {
				keys = append(keys, fld.Name)
				seen[fld.Name] = true
			}
		}
		var rest []string
		for k := range content {
			if !seen[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for i, k := range append(keys, rest...) {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeJSON(&buf, k); err != nil {
				return nil, err
			}
			buf.WriteByte(':')
			if err := encodeJSON(&buf, content[k]); err != nil {
				return nil, err
			}
		}
		buf.WriteByte('}')
	}
	if response {
		buf.WriteByte('}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	// Field names and defaults come from the server: what a terminal would act on or
	// hide (C1, bidi, zero-width characters) shows as \u escapes, as in every output.
	return safe.JSON(out.Bytes()), nil
}

// encodeJSON appends v's JSON to buf as it will be sent: & < > stay as they are (not
// \u0026), so that the review shows what the person typed.
func encodeJSON(buf *bytes.Buffer, v any) error {
	e := json.NewEncoder(buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

// isMulti reports whether f is a multiple choice, whose toggle key the footer names
// when huh's own help is hidden.
func isMulti(f huh.Field) bool {
	_, ok := f.(*huh.MultiSelect[int])
	return ok
}
