package form

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/elicitty/elicitty/elicit"
)

// prefill puts values (by field name) into the answers, as if typed or picked; a value
// that does not fit its field is left out. It returns a.
func (a *answers) prefill(values map[string]any) *answers {
	for _, an := range a.list {
		if v, ok := values[an.fld.Name]; ok {
			an.prefill(v)
		}
	}
	return a
}

func (a *answer) prefill(v any) {
	if a.fld.Kind == elicit.KindFile {
		return // a file is chosen again each time: a value remembered is its bytes, not its path
	}
	switch a.widget {
	case widgetSelect:
		if s, ok := v.(string); ok {
			if i := optionIndex(a.fld.Options, s); i != noAnswer {
				a.choice = i
			}
		}
	case widgetMulti:
		var picks []int
		switch vs := v.(type) {
		case []string:
			for _, s := range vs {
				if i := optionIndex(a.fld.Options, s); i != noAnswer {
					picks = append(picks, i)
				}
			}
		case []any:
			for _, x := range vs {
				if s, ok := x.(string); ok {
					if i := optionIndex(a.fld.Options, s); i != noAnswer {
						picks = append(picks, i)
					}
				}
			}
		}
		if picks != nil {
			a.picks = picks
		}
	case widgetConfirm:
		if b, ok := v.(bool); ok {
			a.yes = b
		}
	case widgetYesNo:
		if b, ok := v.(bool); ok {
			a.choice = map[bool]int{true: 1, false: 0}[b]
		}
	case widgetInput:
		switch x := v.(type) {
		case string:
			a.text = x // the user's own text, as typed
		case float64:
			a.text = formatFloat(x)
		case int64:
			a.text = strconv.FormatInt(x, 10)
		case int:
			a.text = strconv.Itoa(x)
		case bool, nil:
		default:
			a.text = fmt.Sprint(x)
		}
	}
}

// state is a snapshot of every answer, to tell whether the user changed anything.
func (a *answers) state() string {
	var b strings.Builder
	for _, an := range a.list {
		fmt.Fprintf(&b, "%q %d %v %v|", an.text, an.choice, an.picks, an.yes)
	}
	return b.String()
}
