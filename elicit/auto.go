package elicit

import (
	"encoding/json"
	"math"
	"strings"
)

// AutoAccept answers req with accept and content that validates when the schema allows
// it: every default, plus a type-appropriate placeholder for each required field without
// one (first choice, minimum or 0, false, a minLength-sized string, a valid email, uri,
// date or date-time, the first minItems choices). Optional fields without a default are
// left out. URL-mode requests get a plain accept. The conformance client uses it.
func AutoAccept(req *Request) Response {
	if req.Mode == ModeURL {
		return Response{Action: Accept}
	}
	return Response{Action: Accept, Content: AutoContent(ParseWith(req.Schema, req.Protocol, req.ParseOptions()))}
}

// AutoContent is the content AutoAccept builds for a parsed form; nil when it is empty.
func AutoContent(f *Form) map[string]any {
	var out map[string]any
	for _, fld := range f.Fields {
		v := fld.Default
		if v == nil && fld.Required {
			v = Placeholder(fld)
		}
		if v == nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[fld.Name] = copyValue(v)
	}
	return out
}

// Placeholder returns a type-appropriate value for fld, valid against its constraints
// where a simple one exists (patterns are tried but not solved); nil for a raw field
// without a usable type.
func Placeholder(fld Field) any {
	switch fld.Kind {
	case KindText:
		return textPlaceholder(fld)
	case KindNumber:
		switch {
		case fld.Minimum != nil:
			return *fld.Minimum
		case fld.Maximum != nil && *fld.Maximum < 0:
			return *fld.Maximum
		}
		return float64(0)
	case KindInteger:
		switch {
		case fld.Minimum != nil:
			if i, ok := floatInt64(math.Ceil(*fld.Minimum)); ok {
				return i
			}
		case fld.Maximum != nil && *fld.Maximum < 0:
			if i, ok := floatInt64(math.Floor(*fld.Maximum)); ok {
				return i
			}
		}
		return int64(0)
	case KindBool:
		return false
	case KindSelect:
		if len(fld.Options) > 0 {
			return fld.Options[0].Value
		}
		return nil
	case KindFile:
		return nil // a file is chosen, never made up; UnansweredEntry names one to choose
	case KindMulti:
		n := 0
		if fld.MinItems != nil {
			n = min(*fld.MinItems, len(fld.Options))
		}
		out := make([]string, n)
		for i := range n {
			out[i] = fld.Options[i].Value
		}
		return out
	}
	var s struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(fld.Raw, &s)
	switch s.Type {
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		return int64(0)
	case "boolean":
		return false
	}
	return nil
}

func textPlaceholder(fld Field) string {
	n := 1
	if fld.MinLength != nil {
		n = *fld.MinLength
	}
	var cands []string
	switch fld.Format {
	case "email":
		local := "user"
		if pad := n - len(local+"@example.com"); pad > 0 {
			local += strings.Repeat("x", pad)
		}
		cands = []string{local + "@example.com"}
	case "uri":
		u := "https://example.com/"
		if pad := n - len(u); pad > 0 {
			u += strings.Repeat("x", pad)
		}
		cands = []string{u}
	case "date":
		cands = []string{"2025-01-01"}
	case "date-time":
		cands = []string{"2025-01-01T00:00:00Z"}
	default:
		cands = []string{strings.Repeat("x", n), strings.Repeat("a", n), strings.Repeat("0", n), strings.Repeat("A", n)}
		if fld.MaxLength != nil && *fld.MaxLength == 0 {
			cands = []string{""}
		}
	}
	for _, c := range cands {
		if len(fld.CheckValue(c)) == 0 {
			return c
		}
	}
	return cands[0]
}
