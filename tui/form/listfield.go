package form

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// bigListThreshold is the number of options above which a choice is made with a
// listField instead of huh's Select and MultiSelect, which render every option on every
// update and filter by copying options.
const bigListThreshold = 200

// listRows is the number of options a listField shows at once.
const listRows = 10

// accessibleMatches is the number of matches the accessible prompt prints per search.
const accessibleMatches = 20

// listField is a huh field that chooses one (or, when multi, several) of many options.
// It renders only the rows in view and filters them with a text input (substring,
// ignoring case): the options are the server's slice, never copied, and a filter keeps
// the indices of the matching options in one reused slice; a longer filter searches
// only the previous matches. In accessible mode it is a searchable prompt.
type listField struct {
	key, title, desc string
	opts             []elicit.Option
	multi            bool
	// noAnswerRow puts a "(no answer)" row first (an optional single choice) while no
	// filter is set.
	noAnswerRow bool
	choice      *int   // single choice: an index into opts, or noAnswer
	picks       *[]int // multi: indices into opts, ascending
	limit       int    // multi: the most picks, 0 for no limit
	validate    func([]int) error
	err         error

	filter    textinput.Model
	filtering bool
	query     string  // the lower-cased filter the matches are for
	matches   []int32 // indices of the options matching query; used when query != ""; never changed once made
	seq       int     // the number of the latest search; older results are dropped
	searching bool    // a background search for the filter is running
	cursor    int     // the row under the cursor
	offset    int     // the first row shown

	focused bool
	dark    bool // the terminal's background is dark
	width   int
	theme   huh.Theme
	keys    listKeys
}

// listKeys are the bindings a listField reads, taken from huh's key map.
type listKeys struct {
	up, down, pageUp, pageDown, top, bottom key.Binding
	toggle, filter, prev, next, submit      key.Binding
}

// newListField returns the listField of a, which must be a select or multi-select answer.
func newListField(a *answer, title, desc string, o buildOptions) *listField {
	l := &listField{
		key:   a.fld.Name,
		title: title,
		desc:  desc,
		opts:  a.fld.Options,
		multi: a.widget == widgetMulti,
		width: o.width,
	}
	if l.multi {
		l.picks = &a.picks
		l.validate = a.picksValidator(o.noValidate)
		if a.fld.MaxItems != nil && *a.fld.MaxItems > 0 {
			l.limit = *a.fld.MaxItems
		}
		slices.Sort(a.picks)
		a.picks = slices.Compact(a.picks)
	} else {
		l.choice = &a.choice
		l.noAnswerRow = !a.fld.Required
		l.cursor = l.rowOf(a.choice)
	}
	l.filter = textinput.New()
	l.filter.Prompt = "/"
	l.filter.Placeholder = "type to filter"
	km := huh.NewDefaultKeyMap()
	l.WithKeyMap(km)
	l.WithTheme(o.theme)
	l.scrollToCursor()
	return l
}

// rows is the number of rows: the options matching the filter, after the "(no
// answer)" row when there is one.
func (l *listField) rows() int {
	if l.query != "" {
		return len(l.matches)
	}
	if l.noAnswerRow {
		return len(l.opts) + 1
	}
	return len(l.opts)
}

// option is the option index of row r, or noAnswer for the "(no answer)" row.
func (l *listField) option(r int) int {
	switch {
	case l.query != "":
		return int(l.matches[r])
	case l.noAnswerRow:
		return r - 1
	}
	return r
}

// rowOf is the row of option i when no filter is set.
func (l *listField) rowOf(i int) int {
	if l.noAnswerRow {
		return i + 1
	}
	return max(0, i)
}

// label is what a user reads for option i.
func (l *listField) label(i int) string {
	if i == noAnswer {
		return noAnswerLabel
	}
	return optionLabel(l.opts[i])
}

// optionText is what the filter searches in o: its label as the server sent it
// (already sanitized when parsed).
func optionText(o elicit.Option) string {
	if o.Label != "" {
		return o.Label
	}
	return o.Value
}

// asyncSearchMin is the number of options to search from which a filter runs in the
// background, so that the key that changed it is answered at once.
const asyncSearchMin = 100_000

// listFilteredMsg carries the matches of a background search to its field.
type listFilteredMsg struct {
	field   *listField
	seq     int
	query   string
	matches []int32
}

// base is what a search for q starts from: the current matches when q contains the
// current query (all is false), else every option.
func (l *listField) base(q string) (cands []int32, all bool) {
	if l.query != "" && strings.Contains(q, l.query) {
		return l.matches, false
	}
	return nil, true
}

// searchOptions returns the indices, among cands (every option when all), of the options
// whose text contains the lower-case q. It reads only its arguments, which are never
// changed once made, so it may run in the background.
func searchOptions(opts []elicit.Option, cands []int32, all bool, q string) []int32 {
	var out []int32
	if all {
		for i := range opts {
			if containsFold(optionText(opts[i]), q) {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for _, i := range cands {
		if containsFold(optionText(opts[i]), q) {
			out = append(out, i)
		}
	}
	return out
}

// setQuery filters the options by q at once.
func (l *listField) setQuery(q string) {
	q = strings.ToLower(q)
	l.seq++ // a search still running is stale
	l.searching = false
	if q == "" {
		l.apply("", nil)
		return
	}
	cands, all := l.base(q)
	l.apply(q, searchOptions(l.opts, cands, all, q))
}

// filterTo filters the options by q: at once when there are few to search, else in
// the background, returning the command that searches.
func (l *listField) filterTo(q string) tea.Cmd {
	q = strings.ToLower(q)
	cands, all := l.base(q)
	n := len(cands)
	if all {
		n = len(l.opts)
	}
	if q == "" || n < asyncSearchMin {
		l.setQuery(q)
		return nil
	}
	l.seq++
	l.searching = true
	seq, opts := l.seq, l.opts
	return func() tea.Msg {
		return listFilteredMsg{field: l, seq: seq, query: q, matches: searchOptions(opts, cands, all, q)}
	}
}

// apply makes matches the rows for the lower-case query q and puts the cursor on the
// first (or, without a filter, on the current choice).
func (l *listField) apply(q string, matches []int32) {
	l.query, l.matches = q, matches
	l.cursor, l.offset = 0, 0
	if q == "" && !l.multi {
		l.cursor = l.rowOf(*l.choice)
	}
	l.scrollToCursor()
}

// containsFold reports whether s contains the lower-case needle, ignoring case, without
// allocating.
func containsFold(s, needle string) bool {
	if needle == "" {
		return true
	}
	if isASCII(needle) {
		n0, last := needle[0], len(s)-len(needle)
		for i := 0; i <= last; i++ {
			if foldASCII[s[i]] != n0 {
				continue
			}
			j := 1
			for j < len(needle) && foldASCII[s[i+j]] == needle[j] {
				j++
			}
			if j == len(needle) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); {
		if hasPrefixFold(s[i:], needle) {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case needle, ignoring case.
func hasPrefixFold(s, needle string) bool {
	for _, nr := range needle {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || unicode.ToLower(r) != nr {
			return false
		}
		s = s[n:]
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldASCII maps every byte to itself but A-Z to a-z.
var foldASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// moveTo puts the cursor on row r (clamped) and, for a single choice, makes its option
// the value, as huh's Select does.
func (l *listField) moveTo(r int) {
	n := l.rows()
	if n == 0 {
		return
	}
	l.cursor = clamp(r, 0, n-1)
	l.scrollToCursor()
	if !l.multi {
		*l.choice = l.option(l.cursor)
	}
}

// followCursor makes the option under the cursor the value of a single choice, as
// huh's Select does.
func (l *listField) followCursor() {
	if !l.multi && l.rows() > 0 {
		*l.choice = l.option(l.cursor)
	}
}

// scrollToCursor moves the window the least so that the cursor row is in it.
func (l *listField) scrollToCursor() {
	switch {
	case l.cursor < l.offset:
		l.offset = l.cursor
	case l.cursor >= l.offset+listRows:
		l.offset = l.cursor - listRows + 1
	}
	l.offset = clamp(l.offset, 0, max(0, l.rows()-listRows))
}

// toggle adds or removes option i from the picks, within the limit.
func (l *listField) toggle(i int) {
	p := *l.picks
	at, found := slices.BinarySearch(p, i)
	if found {
		*l.picks = slices.Delete(p, at, at+1)
		return
	}
	if l.limit > 0 && len(p) >= l.limit {
		l.err = fmt.Errorf("at most %d choices", l.limit)
		return
	}
	*l.picks = slices.Insert(p, at, i)
}

func (l *listField) picked(i int) bool {
	_, found := slices.BinarySearch(*l.picks, i)
	return found
}

// check validates the current value.
func (l *listField) check() error {
	if l.multi && l.validate != nil {
		return l.validate(*l.picks)
	}
	return nil
}

// Init implements huh.Field.
func (l *listField) Init() tea.Cmd { return nil }

// Update implements huh.Field.
func (l *listField) Update(msg tea.Msg) (huh.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		l.dark = msg.IsDark()
	case listFilteredMsg:
		if msg.field == l && msg.seq == l.seq {
			l.searching = false
			l.apply(msg.query, msg.matches)
			l.followCursor()
		}
		return l, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if l.filtering {
			var cmd tea.Cmd
			l.filter, cmd = l.filter.Update(msg)
			return l, cmd
		}
		return l, nil
	}
	l.err = nil
	page := listRows - 1
	switch {
	case l.filtering && k.String() == "esc":
		l.stopFiltering()
		l.filter.SetValue("")
		l.setQuery("")
		l.followCursor()
		return l, nil
	case l.filtering && k.String() == "enter" && l.multi:
		l.stopFiltering()
		return l, nil
	case key.Matches(k, l.keys.up) && !(l.filtering && k.Text != ""):
		l.moveTo(l.cursor - 1)
	case key.Matches(k, l.keys.down) && !(l.filtering && k.Text != ""):
		l.moveTo(l.cursor + 1)
	case key.Matches(k, l.keys.pageUp) || k.String() == "pgup":
		l.moveTo(l.cursor - page)
	case key.Matches(k, l.keys.pageDown) || k.String() == "pgdown":
		l.moveTo(l.cursor + page)
	case key.Matches(k, l.keys.top) && !(l.filtering && k.Text != ""):
		l.moveTo(0)
	case key.Matches(k, l.keys.bottom) && !(l.filtering && k.Text != ""):
		l.moveTo(l.rows() - 1)
	case !l.filtering && key.Matches(k, l.keys.filter):
		l.filtering = true
		return l, l.filter.Focus()
	case l.multi && !l.filtering && key.Matches(k, l.keys.toggle):
		if l.rows() > 0 {
			l.toggle(l.option(l.cursor))
		}
	case key.Matches(k, l.keys.prev):
		l.stopFiltering()
		if l.err = l.check(); l.err != nil {
			return l, nil
		}
		return l, huh.PrevField
	case key.Matches(k, l.keys.next, l.keys.submit):
		if !l.multi {
			if l.rows() == 0 {
				return l, nil
			}
			*l.choice = l.option(l.cursor)
		}
		l.stopFiltering()
		if l.err = l.check(); l.err != nil {
			return l, nil
		}
		return l, huh.NextField
	case l.filtering || k.Text != "" && k.Mod&^tea.ModShift == 0:
		// Typing starts a filter: keys that do something else were matched above.
		var cmd tea.Cmd
		if !l.filtering {
			l.filtering = true
			cmd = l.filter.Focus()
		}
		var c tea.Cmd
		l.filter, c = l.filter.Update(k)
		search := l.filterTo(l.filter.Value())
		l.followCursor()
		return l, tea.Batch(cmd, c, search)
	}
	return l, nil
}

func (l *listField) stopFiltering() {
	l.filtering = false
	l.filter.Blur()
}

// styles are the theme's styles for the field's focus.
func (l *listField) styles() *huh.FieldStyles {
	t := l.theme.Theme(l.dark)
	if l.focused {
		return &t.Focused
	}
	return &t.Blurred
}

// View implements huh.Field: the title, the description, the filter line and the rows
// in view.
func (l *listField) View() string {
	s := l.styles()
	inner := l.width - s.Base.GetHorizontalFrameSize()
	if l.width <= 0 {
		inner = defaultWidth - s.Base.GetHorizontalFrameSize()
	}
	var b strings.Builder
	title := s.Title.Render(ansi.Truncate(l.title, max(1, inner-2), "…"))
	if l.err != nil {
		title += s.ErrorIndicator.String()
	}
	b.WriteString(title + "\n")
	if l.desc != "" {
		b.WriteString(s.Description.Render(ansi.Wrap(l.desc, max(1, inner), "")) + "\n")
	}
	b.WriteString(l.statusLine(s, inner) + "\n")
	n := l.rows()
	if n == 0 {
		b.WriteString(s.Description.Render("  no matches"))
	}
	end := min(n, l.offset+listRows)
	for r := l.offset; r < end; r++ {
		b.WriteString(l.rowView(s, r, inner))
		if r < end-1 {
			b.WriteString("\n")
		}
	}
	base := s.Base
	if l.width > 0 {
		base = base.Width(l.width)
	}
	return base.Render(b.String())
}

// statusLine is the filter input while filtering, else the filter and the count.
func (l *listField) statusLine(s *huh.FieldStyles, inner int) string {
	total := len(l.opts)
	var line string
	switch {
	case l.filtering:
		switch {
		case l.searching:
			line = l.filter.View() + s.Description.Render("  searching…")
		case l.query == "":
			line = l.filter.View() + s.Description.Render(fmt.Sprintf("  %s options", count(total)))
		default:
			line = l.filter.View() + s.Description.Render(fmt.Sprintf("  %s of %s", count(len(l.matches)), count(total)))
		}
	case l.query != "":
		line = s.Description.Render(fmt.Sprintf("/%s · %s of %s · / to change", oneLine(safe.Block(l.filter.Value())), count(len(l.matches)), count(total)))
	default:
		line = s.Description.Render(fmt.Sprintf("%s options · / to filter", count(total)))
	}
	if l.multi {
		line += s.Description.Render(fmt.Sprintf(" · %d picked", len(*l.picks)))
	}
	return ansi.Truncate(line, max(1, inner), "…")
}

// rowView renders row r.
func (l *listField) rowView(s *huh.FieldStyles, r, inner int) string {
	i := l.option(r)
	cur := r == l.cursor
	var prefix string
	if l.multi {
		sel := s.MultiSelectSelector.String()
		if !cur {
			sel = strings.Repeat(" ", lipgloss.Width(sel))
		}
		if l.picked(i) {
			prefix = sel + s.SelectedPrefix.String()
		} else {
			prefix = sel + s.UnselectedPrefix.String()
		}
	} else {
		sel := s.SelectSelector.String()
		if !cur {
			sel = strings.Repeat(" ", lipgloss.Width(sel))
		}
		prefix = sel
	}
	label := ansi.Truncate(l.label(i), max(1, inner-lipgloss.Width(prefix)), "…")
	if cur || (l.multi && l.picked(i)) {
		return prefix + s.SelectedOption.Render(label)
	}
	return prefix + s.UnselectedOption.Render(label)
}

// count formats n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Focus implements huh.Field.
func (l *listField) Focus() tea.Cmd {
	l.focused = true
	return nil
}

// Blur implements huh.Field.
func (l *listField) Blur() tea.Cmd {
	l.focused = false
	l.stopFiltering()
	l.err = l.check()
	return nil
}

// Error implements huh.Field.
func (l *listField) Error() error { return l.err }

// Run implements huh.Field.
func (l *listField) Run() error { return huh.Run(l) }

// Skip implements huh.Field.
func (l *listField) Skip() bool { return false }

// Zoom implements huh.Field.
func (l *listField) Zoom() bool { return false }

// KeyBinds implements huh.Field: the help line's keys.
func (l *listField) KeyBinds() []key.Binding {
	filter := key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter"))
	if l.filtering {
		filter = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"))
	}
	b := []key.Binding{l.keys.up, l.keys.down, filter}
	if l.multi {
		b = append(b, l.keys.toggle)
	}
	return append(b, l.keys.prev, l.keys.next, l.keys.submit)
}

// WithTheme implements huh.Field; the first theme set stays, as with huh's fields.
func (l *listField) WithTheme(t huh.Theme) huh.Field {
	if l.theme != nil && t != nil {
		return l
	}
	if t == nil {
		t = newCachedTheme(huh.ThemeCharm)
	}
	l.theme = t
	st := l.filter.Styles()
	ti := t.Theme(true).Focused.TextInput
	st.Cursor.Color = ti.Cursor.GetForeground()
	st.Focused.Prompt = ti.Prompt
	st.Focused.Text = ti.Text
	st.Focused.Placeholder = ti.Placeholder
	l.filter.SetStyles(st)
	return l
}

// WithKeyMap implements huh.Field.
func (l *listField) WithKeyMap(k *huh.KeyMap) huh.Field {
	if l.multi {
		m := k.MultiSelect
		l.keys = listKeys{up: m.Up, down: m.Down, pageUp: m.HalfPageUp, pageDown: m.HalfPageDown, top: m.GotoTop,
			bottom: m.GotoBottom, toggle: m.Toggle, filter: m.Filter, prev: m.Prev, next: m.Next, submit: m.Submit}
	} else {
		s := k.Select
		l.keys = listKeys{up: s.Up, down: s.Down, pageUp: s.HalfPageUp, pageDown: s.HalfPageDown, top: s.GotoTop,
			bottom: s.GotoBottom, filter: s.Filter, prev: s.Prev, next: s.Next, submit: s.Submit}
	}
	l.keys.up.SetEnabled(true)
	l.keys.down.SetEnabled(true)
	return l
}

// WithWidth implements huh.Field.
func (l *listField) WithWidth(w int) huh.Field {
	l.width = w
	return l
}

// WithHeight implements huh.Field; the field is always listRows rows tall.
func (l *listField) WithHeight(int) huh.Field { return l }

// WithPosition implements huh.Field.
func (l *listField) WithPosition(p huh.FieldPosition) huh.Field {
	l.keys.prev.SetEnabled(!p.IsFirst())
	l.keys.next.SetEnabled(!p.IsLast())
	l.keys.submit.SetEnabled(p.IsLast())
	return l
}

// GetKey implements huh.Field.
func (l *listField) GetKey() string { return l.key }

// GetValue implements huh.Field: the option index, or the picked indices.
func (l *listField) GetValue() any {
	if l.multi {
		return *l.picks
	}
	return *l.choice
}

// GetFiltering reports whether keys go to the filter, where esc clears it.
func (l *listField) GetFiltering() bool { return l.filtering }

// RunAccessible implements huh.Field: a searchable prompt. A line of digits picks the
// option of that number; other text searches and prints the first matches with their
// numbers; an empty line keeps the current choice (for a multi-select: ends picking).
func (l *listField) RunAccessible(w io.Writer, r io.Reader) error {
	fmt.Fprintln(w, l.title)
	n := len(l.opts)
	help := fmt.Sprintf("%s options: type to search, a number (1-%d) to pick", count(n), n)
	if l.multi {
		help = fmt.Sprintf("%s options: type to search, a number (1-%d) to pick or unpick, enter when done", count(n), n)
	} else if l.noAnswerRow {
		help += ", 0 for no answer"
	}
	fmt.Fprintln(w, help)
	for {
		fmt.Fprint(w, l.accessiblePrompt())
		line, err := readLine(r)
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			fmt.Fprintln(w)
			return fmt.Errorf("read choice: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if !l.multi && *l.choice == noAnswer && !l.noAnswerRow {
				fmt.Fprintln(w, "a choice is required")
				continue
			}
			if e := l.check(); e != nil {
				fmt.Fprintln(w, safe.Block(e.Error()))
				continue
			}
			return nil
		}
		if v, perr := strconv.Atoi(line); perr == nil {
			l.accessiblePick(w, v)
			if !l.multi && (v >= 1 && v <= n || v == 0 && l.noAnswerRow) {
				return nil
			}
			continue
		}
		l.setQuery(strings.TrimPrefix(line, "/"))
		l.printMatches(w)
	}
}

// accessiblePrompt is the prompt line with the current choice.
func (l *listField) accessiblePrompt() string {
	if l.multi {
		var names []string
		for _, i := range *l.picks {
			names = append(names, l.label(i))
			if len(names) == 5 && len(*l.picks) > 5 {
				names = append(names, fmt.Sprintf("and %d more", len(*l.picks)-5))
				break
			}
		}
		if len(names) == 0 {
			return "search or number (none picked): "
		}
		return fmt.Sprintf("search or number (picked: %s): ", strings.Join(names, ", "))
	}
	if *l.choice == noAnswer {
		return "search or number: "
	}
	return fmt.Sprintf("search or number [enter keeps %d. %s]: ", *l.choice+1, l.label(*l.choice))
}

// accessiblePick applies the number v typed at the accessible prompt.
func (l *listField) accessiblePick(w io.Writer, v int) {
	n := len(l.opts)
	switch {
	case v == 0 && !l.multi && l.noAnswerRow:
		*l.choice = noAnswer
	case v < 1 || v > n:
		fmt.Fprintf(w, "no option %d: pick 1 to %d\n", v, n)
	case l.multi:
		l.err = nil
		l.toggle(v - 1)
		if l.err != nil {
			fmt.Fprintln(w, l.err.Error())
		}
	default:
		*l.choice = v - 1
	}
}

// printMatches prints the first matches of the query with their numbers.
func (l *listField) printMatches(w io.Writer) {
	var b strings.Builder
	total := len(l.matches)
	if l.query == "" {
		total = len(l.opts)
	}
	shown := min(total, accessibleMatches)
	for r := range shown {
		i := r
		if l.query != "" {
			i = int(l.matches[r])
		}
		mark := ""
		if l.multi && l.picked(i) {
			mark = " ✓"
		}
		fmt.Fprintf(&b, "%d. %s%s\n", i+1, l.label(i), mark)
	}
	switch {
	case total == 0:
		b.WriteString("no matches\n")
	case total > shown:
		fmt.Fprintf(&b, "… %s more matches: type more to narrow them\n", count(total-shown))
	}
	fmt.Fprint(w, b.String())
}
