package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/huh/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// widget is the huh control a field is answered with.
type widget int

const (
	widgetInput   widget = iota // text, number, integer and raw JSON
	widgetSelect                // single choice among Options
	widgetMulti                 // several choices among Options
	widgetConfirm               // a boolean that always has a value
	widgetYesNo                 // a boolean without a default: yes / no / no answer (required: the user must choose)
	widgetFile                  // one file: huh's file picker, or a typed path (filefield.go)
)

// noAnswer is the choice index of the "(no answer)" option.
const noAnswer = -1

// noAnswerLabel labels the choice that leaves an optional field out of the content.
const noAnswerLabel = "(no answer)"

// secretWarning is shown beside every field that looks like a secret.
const secretWarning = "⚠ looks like a secret: form mode must not collect passwords, tokens or keys (servers should use URL mode)"

// answer is the typed storage one field's huh control is bound to. Only the member that
// belongs to its widget is used.
type answer struct {
	fld    elicit.Field
	widget widget
	text   string // widgetInput
	choice int    // widgetSelect, widgetYesNo: an index into fld.Options (or 1 yes, 0 no), or noAnswer
	picks  []int  // widgetMulti: indices into fld.Options
	yes    bool   // widgetConfirm
}

// answers holds the typed storage of one form, in server order. It outlives the huh fields
// built over it, so going back from the review step keeps what the user typed.
type answers struct {
	form *elicit.Form
	list []*answer
}

// buildOptions tunes the huh fields built for one form.
type buildOptions struct {
	// accessible puts descriptions and defaults into titles, since huh's accessible
	// mode prints only titles.
	accessible bool
	// mask hides what is typed into secret fields.
	mask bool
	// width is the width the fields are laid out for (for MultiSelect heights).
	width int
	// theme is set on each field as it is built, before options are added, so that
	// huh never falls back to building its default theme.
	theme huh.Theme
	// noValidate checks only that a typed value parses as its kind, not the schema's
	// constraints (the request's NoValidate: --no-validate).
	noValidate bool
	// last is set while the form's last field is built: after it comes the review.
	last bool
}

// newAnswers returns storage for f pre-filled from the fields' defaults.
func newAnswers(f *elicit.Form) *answers {
	a := &answers{form: f, list: make([]*answer, 0, len(f.Fields))}
	for _, fld := range f.Fields {
		a.list = append(a.list, newAnswer(fld))
	}
	return a
}

func newAnswer(fld elicit.Field) *answer {
	a := &answer{fld: fld, choice: noAnswer}
	switch {
	case fld.Kind == elicit.KindSelect && len(fld.Options) > 0:
		a.widget = widgetSelect
		if d, ok := fld.Default.(string); ok {
			a.choice = optionIndex(fld.Options, d)
		}
		if a.choice == noAnswer && fld.Required {
			a.choice = 0
		}
	case fld.Kind == elicit.KindMulti && len(fld.Options) > 0:
		a.widget = widgetMulti
		a.picks = []int{}
		if d, ok := fld.Default.([]string); ok {
			for _, v := range d {
				if i := optionIndex(fld.Options, v); i != noAnswer {
					a.picks = append(a.picks, i)
				}
			}
		}
	case fld.Kind == elicit.KindBool:
		// A boolean without a default is a choice the user makes: yes, no or (when
		// optional) no answer; a required one is not preselected as "no".
		d, hasDefault := fld.Default.(bool)
		if hasDefault {
			a.widget = widgetConfirm
			a.yes = d
		} else {
			a.widget = widgetYesNo
		}
	case fld.Kind == elicit.KindFile && fld.File != nil && !fld.File.Multi:
		a.widget = widgetFile
	default:
		a.widget = widgetInput
	}
	return a
}

func optionIndex(opts []elicit.Option, v string) int {
	for i, o := range opts {
		if o.Value == v {
			return i
		}
	}
	return noAnswer
}

// fields builds a fresh set of huh fields bound to a's storage, in server order.
func (a *answers) fields(o buildOptions) []huh.Field {
	if o.theme == nil {
		o.theme = newCachedTheme(huh.ThemeCharm)
	}
	out := make([]huh.Field, 0, len(a.list))
	for i, an := range a.list {
		o.last = i == len(a.list)-1
		out = append(out, an.field(o))
	}
	return out
}

// confirmHint is the help line of a yes/no field with a default; lastConfirmHint that
// of the form's last field, after which comes the review.
const (
	confirmHint     = "y or n answers and moves on to the next field"
	lastConfirmHint = "y or n answers, then the review shows what will be sent"
)

// field builds the huh control for one answer.
func (a *answer) field(o buildOptions) huh.Field {
	title, desc := a.title(), a.description()
	if o.accessible {
		title, desc = accessibleTitle(title, desc, a), ""
	}
	if (a.widget == widgetSelect || a.widget == widgetMulti) && len(a.fld.Options) > bigListThreshold {
		return newListField(a, title, desc, o)
	}
	if a.widget == widgetFile && !o.accessible {
		return a.filePicker(title, desc, o)
	}
	switch a.widget {
	case widgetSelect:
		opts := make([]huh.Option[int], 0, len(a.fld.Options)+1)
		if !a.fld.Required {
			opts = append(opts, huh.NewOption(noAnswerLabel, noAnswer))
		}
		for i, op := range a.fld.Options {
			opts = append(opts, huh.NewOption(optionLabel(op), i))
		}
		s := huh.NewSelect[int]()
		s.WithTheme(o.theme)
		return s.Key(a.fld.Name).Title(title).Description(desc).Options(opts...).Value(&a.choice)
	case widgetYesNo:
		s := huh.NewSelect[int]()
		s.WithTheme(o.theme)
		none := noAnswerLabel
		if a.fld.Required {
			none = "(choose yes or no)"
		}
		s = s.Key(a.fld.Name).Title(title).Description(desc).
			Options(huh.NewOption(none, noAnswer), huh.NewOption("yes", 1), huh.NewOption("no", 0)).
			Value(&a.choice)
		if a.fld.Required && !o.noValidate {
			s = s.Validate(func(c int) error {
				if c == noAnswer {
					return errors.New("choose yes or no")
				}
				return nil
			})
		}
		return s
	case widgetConfirm:
		c := huh.NewConfirm()
		c.WithTheme(o.theme)
		if !o.accessible {
			// y and n answer and move on at once: a second y or n meant for this
			// field would land in the next one.
			hint := confirmHint
			if o.last {
				hint = lastConfirmHint
			}
			desc = strings.TrimSpace(desc + "\n" + hint)
		}
		return c.Key(a.fld.Name).Title(title).Description(desc).Affirmative("yes").Negative("no").Value(&a.yes)
	case widgetMulti:
		opts := make([]huh.Option[int], 0, len(a.fld.Options))
		for i, op := range a.fld.Options {
			opts = append(opts, huh.NewOption(optionLabel(op), i))
		}
		m := huh.NewMultiSelect[int]()
		m.WithTheme(o.theme)
		m = m.Key(a.fld.Name).Title(title).Description(desc).
			Options(opts...).Value(&a.picks).Validate(a.picksValidator(o.noValidate)).Filterable(false)
		if a.fld.MaxItems != nil && *a.fld.MaxItems > 0 {
			m = m.Limit(*a.fld.MaxItems)
		}
		// huh v2.0.3 hides the last options of a MultiSelect unless its height
		// counts the title and description lines too.
		return m.Height(len(opts) + textLines(title, o.width) + textLines(desc, o.width))
	}
	check := a.validateText
	if o.noValidate {
		check = a.parseText
	}
	validate := check
	if o.accessible {
		// huh's accessible prompt keeps the current value on an empty line, so an
		// empty line is fine once there is one (on a second pass after Edit).
		validate = func(s string) error {
			if strings.TrimSpace(s) == "" && a.inputText(a.text) != "" {
				return nil
			}
			return check(s)
		}
	}
	in := huh.NewInput()
	in.WithTheme(o.theme)
	in = in.Key(a.fld.Name).Title(title).Description(desc).Value(&a.text).Validate(validate)
	if d := formatDefault(a.fld.Default); d != "" && !o.accessible {
		in = in.Placeholder(d + " (default)")
	}
	if a.fld.Secret && (o.mask || !o.accessible) {
		in = in.EchoMode(huh.EchoModePassword)
	}
	return in
}

// title is the sanitized field title, marked when required.
func (a *answer) title() string {
	t := oneLine(safe.Block(a.fld.Title))
	if t == "" {
		t = oneLine(safe.Block(a.fld.Name))
	}
	if a.fld.Required {
		t += " *"
	}
	return t
}

// description is the sanitized field description followed by hints about what the
// field accepts and, for secrets, the warning.
func (a *answer) description() string {
	var lines []string
	if d := strings.TrimSpace(safe.Block(a.fld.Description)); d != "" {
		lines = append(lines, d)
	}
	if h := hints(a.fld); h != "" {
		lines = append(lines, h)
	}
	if a.fld.Secret {
		lines = append(lines, secretWarning)
	}
	return strings.Join(lines, "\n")
}

// accessibleTitle folds description and default into a title, for huh's accessible
// mode, which prints only titles.
func accessibleTitle(title, desc string, a *answer) string {
	var b strings.Builder
	b.WriteString(title)
	if desc != "" {
		b.WriteString(" (" + strings.ReplaceAll(desc, "\n", "; ") + ")")
	}
	if d := formatDefault(a.fld.Default); d != "" && a.widget == widgetInput {
		b.WriteString(" [default: " + d + "]")
	}
	if (a.widget == widgetInput || a.widget == widgetFile) && !a.fld.Required {
		b.WriteString(" [optional: enter to skip]")
	}
	b.WriteString(":")
	return b.String()
}

// hints describes the constraints of a field in a few words, e.g. "whole number, 1 to 10".
func hints(fld elicit.Field) string {
	var h []string
	switch fld.Kind {
	case elicit.KindNumber:
		h = append(h, "number")
	case elicit.KindInteger:
		h = append(h, "whole number")
	case elicit.KindRaw:
		h = append(h, "JSON value")
	case elicit.KindFile:
		h = append(h, fileHint(fld))
	}
	if fld.Format != "" {
		f := "format " + oneLine(safe.Block(fld.Format))
		switch fld.Format {
		case "date":
			f += " (YYYY-MM-DD)"
		case "date-time":
			f += " (YYYY-MM-DDThh:mm:ssZ)"
		}
		h = append(h, f)
	}
	if r := rangeHint(fld.Minimum, fld.Maximum); r != "" {
		h = append(h, r)
	}
	if r := countHint(fld.MinLength, fld.MaxLength, "character"); r != "" {
		h = append(h, r)
	}
	if fld.Kind == elicit.KindMulti {
		if r := countHint(fld.MinItems, fld.MaxItems, "choice"); r != "" {
			h = append(h, r)
		}
	}
	if fld.Pattern != "" {
		h = append(h, "pattern "+oneLine(safe.Block(fld.Pattern)))
	}
	return strings.Join(h, ", ")
}

func rangeHint(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return formatFloat(*lo) + " to " + formatFloat(*hi)
	case lo != nil:
		return "at least " + formatFloat(*lo)
	case hi != nil:
		return "at most " + formatFloat(*hi)
	}
	return ""
}

func countHint(lo, hi *int, unit string) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d to %d %s", *lo, *hi, elicit.Plural(*hi, unit))
	case lo != nil:
		return fmt.Sprintf("at least %d %s", *lo, elicit.Plural(*lo, unit))
	case hi != nil:
		return fmt.Sprintf("at most %d %s", *hi, elicit.Plural(*hi, unit))
	}
	return ""
}

func optionLabel(o elicit.Option) string {
	l := oneLine(safe.Block(o.Label))
	if l == "" {
		l = oneLine(safe.Block(o.Value))
	}
	return l
}

// formatDefault renders a default for display; "" when there is none.
func formatDefault(d any) string {
	switch v := d.(type) {
	case nil:
		return ""
	case string:
		return oneLine(safe.Block(v))
	case float64:
		return formatFloat(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return ""
	}
	return oneLine(safe.Block(string(b)))
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// oneLine folds line breaks and tabs into spaces, for titles and labels.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// textLines is the number of lines s takes when wrapped at width (0 for "").
func textLines(s string, width int) int {
	if s == "" {
		return 0
	}
	if width <= 4 {
		width = 80
	}
	return strings.Count(ansi.Wrap(s, width-4, ""), "\n") + 1
}

// inputText is what the user typed, trimmed for every kind but free text.
func (a *answer) inputText(s string) string {
	if a.fld.Kind == elicit.KindText {
		return s
	}
	return strings.TrimSpace(s)
}

// validateText is the huh validator of an Input: it parses and checks the typed value
// through the engine, so what the form accepts is what the engine accepts.
func (a *answer) validateText(s string) error {
	s = a.inputText(s)
	if s == "" {
		if a.fld.Required && a.fld.Default == nil {
			return errors.New("required")
		}
		return nil
	}
	v, err := a.fld.ParseText(s)
	if err != nil {
		return errors.New(safe.Block(err.Error()))
	}
	return violationErr(a.fld.CheckValue(v))
}

// parseText is the huh validator of an Input without validation: a typed value must
// still parse as its kind (the content is typed JSON), but may break the constraints.
func (a *answer) parseText(s string) error {
	if s = a.inputText(s); s == "" {
		return nil
	}
	if _, err := a.fld.ParseText(s); err != nil {
		return errors.New(safe.Block(err.Error()))
	}
	return nil
}

// picksValidator is the huh validator of a MultiSelect: validatePicks, or none
// without validation.
func (a *answer) picksValidator(noValidate bool) func([]int) error {
	if noValidate {
		return func([]int) error { return nil }
	}
	return a.validatePicks
}

// validatePicks is the huh validator of a MultiSelect.
func (a *answer) validatePicks(picks []int) error {
	if len(picks) == 0 && !a.fld.Required && a.fld.Default == nil {
		return nil
	}
	return violationErr(a.fld.CheckValue(a.pickValues(picks)))
}

func violationErr(vs []elicit.Violation) error {
	if len(vs) == 0 {
		return nil
	}
	return errors.New(safe.Block(vs[0].Message))
}

func (a *answer) pickValues(picks []int) []string {
	out := make([]string, 0, len(picks))
	for _, i := range picks {
		if i >= 0 && i < len(a.fld.Options) {
			out = append(out, a.fld.Options[i].Value)
		}
	}
	return out
}

// value is the typed value of the answer; ok is false when the field is left out of
// the content (so that the engine's merge may fill its default).
func (a *answer) value() (v any, ok bool, err error) {
	switch a.widget {
	case widgetSelect:
		if a.choice < 0 || a.choice >= len(a.fld.Options) {
			return nil, false, nil
		}
		return a.fld.Options[a.choice].Value, true, nil
	case widgetYesNo:
		if a.choice == noAnswer {
			return nil, false, nil
		}
		return a.choice == 1, true, nil
	case widgetConfirm:
		return a.yes, true, nil
	case widgetMulti:
		if len(a.picks) == 0 && !a.fld.Required && a.fld.Default == nil {
			return nil, false, nil
		}
		return a.pickValues(a.picks), true, nil
	}
	s := a.inputText(a.text)
	if s == "" {
		return nil, false, nil
	}
	v, err = a.fld.ParseText(s)
	if err != nil {
		return nil, false, fmt.Errorf("field %q: %w", a.fld.Name, err)
	}
	return v, true, nil
}

// content is what the user produced, before the engine's merge: typed values (int64
// for integers, float64 for numbers, []string for multi-selects).
func (a *answers) content() (map[string]any, error) {
	c := make(map[string]any, len(a.list))
	var errs []error
	for _, an := range a.list {
		v, ok, err := an.value()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			c[an.fld.Name] = v
		}
	}
	return c, errors.Join(errs...)
}
