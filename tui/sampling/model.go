package sampling

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tui/keymap"
	"github.com/elicitty/elicitty/tui/theme"
)

// Options configures a Model. The zero value is an 80x24 coloured screen.
type Options struct {
	// Width and Height are the screen size in cells; zero means 80x24.
	Width, Height int
	// NoColor renders without styles.
	NoColor bool
}

type styles struct {
	title, label, faint, warn, focus lipgloss.Style
}

func newStyles(noColor bool) styles {
	if noColor {
		return styles{}
	}
	n := lipgloss.NewStyle
	return styles{
		title: n().Bold(true),
		label: n().Bold(true).Foreground(theme.Accent()),
		faint: n().Faint(true),
		warn:  n().Foreground(theme.Warn()),
		focus: n().Reverse(true),
	}
}

// Model is the answer screen of a sampling request: the request on top (scrollable),
// the reply editor and the model name below, then a review step before anything is
// sent. It never performs I/O and never quits the program; Done reports the answer.
// The zero value is not usable; call New. Not safe for concurrent use.
type Model struct {
	req  *elicit.Request
	opts Options
	st   styles
	keys keymap.Map

	body      []string // the request, wrapped to the width
	off       int      // first body line shown
	reply     textarea.Model
	model     textinput.Model
	onModel   bool // the model name has the focus
	reviewing bool
	note      string

	done bool
	resp elicit.Response
}

// New returns the answer screen of a ModeSampling request; the reply starts as the
// request's draft (from a configured sampling command), if any.
func New(req *elicit.Request, opts Options) *Model {
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Height <= 0 {
		opts.Height = 24
	}
	m := &Model{req: req, opts: opts, st: newStyles(opts.NoColor), keys: keymap.Default()}
	m.reply = textarea.New()
	m.reply.Placeholder = "Write the assistant's reply…"
	m.reply.ShowLineNumbers = false
	m.reply.Prompt = "│ "
	m.reply.CharLimit = 1 << 20
	m.reply.MaxHeight = 0
	// A steady cursor: a blinking one is an endless chain of timer commands.
	rs := m.reply.Styles()
	if opts.NoColor {
		rs = textarea.Styles{}
	}
	rs.Cursor.Blink = false
	m.reply.SetStyles(rs)
	if s := req.Sampling; s != nil && s.Draft != "" {
		m.reply.SetValue(s.Draft)
	}
	m.model = textinput.New()
	m.model.Prompt = ""
	m.model.Placeholder = elicit.DefaultModel
	m.model.CharLimit = 200
	m.model.SetValue(elicit.DefaultModel)
	is := m.model.Styles()
	if opts.NoColor {
		is = textinput.Styles{}
	}
	is.Cursor.Blink = false
	m.model.SetStyles(is)
	m.SetSize(opts.Width, opts.Height)
	return m
}

// Init focuses the reply editor.
func (m *Model) Init() tea.Cmd { return m.reply.Focus() }

// SetSize lays the screen out for w x h cells.
func (m *Model) SetSize(w, h int) {
	m.opts.Width, m.opts.Height = max(w, 20), max(h, 8)
	m.reply.SetWidth(m.opts.Width)
	m.reply.SetHeight(m.replyHeight())
	m.model.SetWidth(max(10, m.opts.Width-20))
	m.body = m.renderRequest(m.opts.Width)
	m.off = min(m.off, max(0, len(m.body)-m.bodyHeight()))
}

// replyHeight is the editor's height: a quarter of the screen, 3 to 8 lines.
func (m *Model) replyHeight() int { return min(8, max(3, m.opts.Height/4)) }

// bodyHeight is the number of request lines shown while editing: all but the title,
// the reply label, the editor, the model line and the help line.
func (m *Model) bodyHeight() int { return max(1, m.opts.Height-4-m.replyHeight()) }

// Done returns the answer once the user gave one.
func (m *Model) Done() (elicit.Response, bool) { return m.resp, m.done }

// Dirty reports whether the user changed the draft or the model name.
func (m *Model) Dirty() bool {
	draft := ""
	if m.req.Sampling != nil {
		draft = m.req.Sampling.Draft
	}
	return m.reply.Value() != draft || m.model.Value() != elicit.DefaultModel
}

// Update handles a message; it returns the command of the focused input.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if m.done {
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m.forward(msg)
	}
	switch {
	case key.Matches(k, m.keys.Cancel, m.keys.Interrupt):
		m.finish(elicit.Response{Action: elicit.Cancel})
		return nil
	case key.Matches(k, m.keys.Decline):
		m.finish(elicit.Response{Action: elicit.Decline})
		return nil
	}
	if m.reviewing {
		return m.reviewKey(k)
	}
	m.note = ""
	switch {
	case key.Matches(k, m.keys.Review):
		if strings.TrimSpace(m.reply.Value()) == "" {
			m.note = "Write a reply first, or press ctrl+x to decline."
			return nil
		}
		m.reviewing, m.off = true, 0
		return nil
	case key.Matches(k, m.keys.Next, m.keys.Prev):
		m.onModel = !m.onModel
		if m.onModel {
			m.reply.Blur()
			return m.model.Focus()
		}
		m.model.Blur()
		return m.reply.Focus()
	case key.Matches(k, m.keys.PageUp):
		m.off = max(0, m.off-max(1, m.bodyHeight()-1))
		return nil
	case key.Matches(k, m.keys.PageDown):
		m.off = max(0, min(m.off+max(1, m.bodyHeight()-1), len(m.body)-m.bodyHeight()))
		return nil
	}
	return m.forward(msg)
}

func (m *Model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if m.onModel {
		m.model, cmd = m.model.Update(msg)
	} else {
		m.reply, cmd = m.reply.Update(msg)
	}
	return cmd
}

func (m *Model) reviewKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Accept, m.keys.Enter, m.keys.Yes):
		m.finish(elicit.Response{Action: elicit.Accept, Sample: &elicit.SampleReply{
			Text: m.reply.Value(), Model: strings.TrimSpace(m.model.Value()), StopReason: elicit.StopEndTurn,
		}})
	case key.Matches(k, m.keys.Edit):
		m.reviewing = false
	case key.Matches(k, m.keys.DeclineButton):
		m.finish(elicit.Response{Action: elicit.Decline})
	case key.Matches(k, m.keys.CancelButton):
		m.finish(elicit.Response{Action: elicit.Cancel})
	case key.Matches(k, m.keys.PageUp):
		m.off = max(0, m.off-1)
	case key.Matches(k, m.keys.PageDown):
		m.off++
	}
	return nil
}

func (m *Model) finish(r elicit.Response) {
	if r.Sample != nil {
		c := r.Sample.Complete()
		r.Sample = &c
	}
	m.done, m.resp = true, r
}

// View renders the screen in at most Height lines.
func (m *Model) View() string {
	if m.done {
		return m.doneLine()
	}
	if m.reviewing {
		return m.viewReview()
	}
	lines := []string{m.st.title.Render(m.fit(m.header()))}
	end := min(len(m.body), m.off+m.bodyHeight())
	shown := m.body[m.off:end]
	lines = append(lines, shown...)
	for range m.bodyHeight() - len(shown) {
		lines = append(lines, "")
	}
	label := "Your reply, as the assistant"
	if more := len(m.body) - end; more > 0 {
		label += fmt.Sprintf(" (%d more request lines: pgdown)", more)
	}
	if m.note != "" {
		label = m.st.warn.Render(m.note)
	}
	lines = append(lines, m.st.label.Render(m.fit(label)))
	lines = append(lines, strings.Split(m.reply.View(), "\n")...)
	modelLabel := "Model name (tab): "
	if m.onModel {
		modelLabel = m.st.focus.Render("Model name (tab):") + " "
	}
	lines = append(lines, m.fit(modelLabel+m.model.View()))
	help := "ctrl+s review · tab model · pgup/pgdown request · ctrl+x decline · esc cancel"
	if m.opts.Width < ansi.StringWidth(help) {
		help = "ctrl+s review · ctrl+x decline · esc cancel"
	}
	lines = append(lines, m.st.faint.Render(m.fit(help)))
	return strings.Join(lines, "\n")
}

func (m *Model) viewReview() string {
	r := elicit.SampleReply{Text: m.reply.Value(), Model: strings.TrimSpace(m.model.Value())}.Complete()
	lines := []string{m.st.title.Render(m.fit(fmt.Sprintf("Send this reply to %q?", oneLine(m.req.Server)))), ""}
	var text []string
	for _, l := range strings.Split(r.Text, "\n") {
		text = append(text, indent(strings.ReplaceAll(l, "\t", "    "), m.opts.Width)...)
	}
	room := max(1, m.opts.Height-7)
	off := min(m.off, max(0, len(text)-room))
	end := min(len(text), off+room)
	lines = append(lines, text[off:end]...)
	if end < len(text) {
		lines = append(lines, m.st.faint.Render(m.fit(fmt.Sprintf("  … %d more lines (pgdown)", len(text)-end))))
	}
	lines = append(lines, "")
	lines = append(lines, wrap(fmt.Sprintf("as model %q, role assistant, stop reason %s", oneLine(r.Model), r.StopReason), m.opts.Width)...)
	lines = append(lines, "", m.fit("a send · e edit · d decline · c cancel"))
	return strings.Join(lines, "\n")
}

func (m *Model) doneLine() string {
	switch m.resp.Action {
	case elicit.Accept:
		return fmt.Sprintf("Sent the reply to %q.", oneLine(m.req.Server))
	case elicit.Decline:
		return fmt.Sprintf("Declined the sampling request of %q.", oneLine(m.req.Server))
	}
	return "Cancelled."
}

func (m *Model) header() string {
	s := fmt.Sprintf("%s asks for a model reply", oneLine(m.req.ServerLabel()))
	if m.req.Tool != "" {
		s += " for " + oneLine(m.req.Tool)
	}
	if m.req.Total > 1 {
		s += fmt.Sprintf(" [%d of %d]", m.req.Index, m.req.Total)
	}
	return s
}

func (m *Model) fit(s string) string { return ansi.Truncate(s, m.opts.Width, "…") }

// renderRequest renders the request's parts as lines of at most w cells, all server
// text sanitized.
func (m *Model) renderRequest(w int) []string {
	return RequestLines(m.req.Sampling, w, m.st.label.Render)
}

// RequestLines renders a sampling request as lines of at most w cells: the system
// prompt, the messages (media as placeholders with type and size, tool use and results
// summarized), the model preferences, the limits and the tools. Server text is
// sanitized; heading renders the section titles.
func RequestLines(s *elicit.Sampling, w int, heading func(...string) string) []string {
	if s == nil {
		return []string{"(no request)"}
	}
	var out []string
	add := func(title string, body []string) {
		out = append(out, heading(title))
		for _, b := range body {
			for _, l := range strings.Split(b, "\n") {
				out = append(out, indent(strings.ReplaceAll(l, "\t", "    "), w)...)
			}
		}
	}
	if s.SystemPrompt != "" {
		add("System prompt", []string{safe.Block(s.SystemPrompt)})
	}
	for i, msg := range s.Messages {
		var parts []string
		for _, c := range msg.Content {
			parts = append(parts, c.Describe())
		}
		add(fmt.Sprintf("Message %d of %d, %s", i+1, len(s.Messages), oneLine(msg.Role)), parts)
	}
	var settings []string
	if p := s.Preferences(); p != "" {
		settings = append(settings, "model preferences: "+p)
	}
	settings = append(settings, s.Limits())
	add("Settings", settings)
	if len(s.Tools) > 0 {
		var tools []string
		for _, t := range s.Tools {
			line := oneLine(t.Name)
			if t.Description != "" {
				line += " — " + oneLine(t.Description)
			}
			tools = append(tools, line)
		}
		if s.ToolChoice != "" {
			tools = append(tools, "tool choice: "+oneLine(s.ToolChoice)+" (a reply written here is text only)")
		}
		add(fmt.Sprintf("Tools offered (%d)", len(s.Tools)), tools)
	}
	if s.DraftErr != "" {
		add("Sampling command", []string{"no draft: " + safe.Block(s.DraftErr)})
	} else if s.Draft != "" {
		add("Sampling command", []string{"its draft is in the reply below: edit it or send it as it is"})
	}
	return out
}

// wrap breaks s into lines of at most w cells, at spaces where it can.
func wrap(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(w, 10), ""), "\n")
}

// indent wraps s to w-2 cells and indents every line by two spaces.
func indent(s string, w int) []string {
	lines := wrap(s, w-2)
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return lines
}

// oneLine sanitizes s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(safe.Block(s)), " ") }
