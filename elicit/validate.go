package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Check validates accepted (merged) content against the form (docs/protocol.md, "Validation") and
// returns the violations in field order; nil means valid. A nil content is validated as
// {}. An Unvalidatable form returns nil: the server's schema is at fault, so the user's
// answer goes through. Keys of content that are not properties are allowed.
func (f *Form) Check(content map[string]any) []Violation {
	if f == nil || f.Unvalidatable {
		return nil
	}
	var out []Violation
	for _, fld := range f.Fields {
		v, ok := content[fld.Name]
		if !ok {
			if fld.Required {
				out = append(out, Violation{Path: fld.path(), Keyword: "required", Message: "is required"})
			}
			continue
		}
		out = append(out, fld.CheckValue(v)...)
	}
	return out
}

func (fld Field) path() string { return "/" + escapePointer(fld.Name) }

// CheckValue validates one field's value (string, float64, int64 or another Go number,
// bool, []string, []any or decoded JSON); paths are "/<name>" or "/<name>/<i>". It is
// the validator shared by Check and the interactive form, so form and wire agree.
func (fld Field) CheckValue(v any) []Violation {
	p := fld.path()
	bad := func(keyword, format string, args ...any) []Violation {
		return []Violation{{Path: p, Keyword: keyword, Message: fmt.Sprintf(format, args...)}}
	}
	switch fld.Kind {
	case KindText, KindSelect:
		s, ok := v.(string)
		if !ok {
			return bad("type", "must be a string, not %s", describe(v))
		}
		if fld.Kind == KindSelect {
			if !hasOption(fld.Options, s) {
				return bad(fld.choiceKeyword(), "%q is not an allowed choice", s)
			}
			return nil
		}
		return fld.checkText(s)
	case KindNumber, KindInteger:
		n, ok := toFloat(v)
		if !ok {
			if fld.Kind == KindInteger {
				return bad("type", "must be an integer, not %s", describe(v))
			}
			return bad("type", "must be a number, not %s", describe(v))
		}
		if fld.Kind == KindInteger && n != math.Trunc(n) {
			return bad("type", "must be a whole number, not %v", n)
		}
		var out []Violation
		if fld.Minimum != nil && n < *fld.Minimum {
			out = append(out, bad("minimum", "must be at least %v", *fld.Minimum)...)
		}
		if fld.Maximum != nil && n > *fld.Maximum {
			out = append(out, bad("maximum", "must be at most %v", *fld.Maximum)...)
		}
		return out
	case KindBool:
		if _, ok := v.(bool); !ok {
			return bad("type", "must be a boolean, not %s", describe(v))
		}
		return nil
	case KindFile:
		return fld.checkFile(v)
	case KindMulti:
		if !isList(v) {
			return bad("type", "must be an array of strings, not %s", describe(v))
		}
		var out []Violation
		items := listItems(v)
		for i, it := range items {
			ip := p + "/" + strconv.Itoa(i)
			s, ok := it.(string)
			switch {
			case !ok:
				out = append(out, Violation{Path: ip, Keyword: "type", Message: fmt.Sprintf("must be a string, not %s", describe(it))})
			case !hasOption(fld.Options, s):
				out = append(out, Violation{Path: ip, Keyword: fld.choiceKeyword(), Message: fmt.Sprintf("%q is not an allowed choice", s)})
			}
		}
		if fld.MinItems != nil && len(items) < *fld.MinItems {
			out = append(out, bad("minItems", "must have at least %d %s", *fld.MinItems, Plural(*fld.MinItems, "choice"))...)
		}
		if fld.MaxItems != nil && len(items) > *fld.MaxItems {
			out = append(out, bad("maxItems", "must have at most %d %s", *fld.MaxItems, Plural(*fld.MaxItems, "choice"))...)
		}
		return out
	}
	return fld.checkRaw(v)
}

func (fld Field) checkText(s string) []Violation {
	p := fld.path()
	var out []Violation
	add := func(keyword, format string, args ...any) {
		out = append(out, Violation{Path: p, Keyword: keyword, Message: fmt.Sprintf(format, args...)})
	}
	n := utf8.RuneCountInString(s)
	if fld.MinLength != nil && n < *fld.MinLength {
		add("minLength", "must be at least %d %s long", *fld.MinLength, Plural(*fld.MinLength, "character"))
	}
	if fld.MaxLength != nil && n > *fld.MaxLength {
		add("maxLength", "must be at most %d %s long", *fld.MaxLength, Plural(*fld.MaxLength, "character"))
	}
	if fld.Format != "" {
		if err := checkFormat(fld.Format, s); err != nil {
			add("format", "%v", err)
		}
	}
	if fld.Pattern != "" {
		if re, err := regexp.Compile(fld.Pattern); err == nil && !re.MatchString(s) {
			add("pattern", "must match the pattern %q", fld.Pattern)
		}
	}
	return out
}

// checkRaw checks a raw JSON field (nested object, array of objects, union or unknown
// type) against its own property schema, with the subset of JSON Schema that flat forms
// use, applied recursively: type, enum, const, properties, required, items, minItems,
// maxItems, minLength, maxLength, minimum, maximum and pattern. Other keywords, and
// keywords of the wrong JSON type, constrain nothing.
func (fld Field) checkRaw(v any) []Violation {
	var schema map[string]any
	if len(fld.Raw) == 0 || json.Unmarshal(fld.Raw, &schema) != nil {
		return nil
	}
	var out []Violation
	rawCheck(schema, v, fld.path(), &out, 0)
	return out
}

func rawCheck(schema map[string]any, v any, path string, out *[]Violation, depth int) {
	if depth > maxDepth {
		return
	}
	add := func(keyword, format string, args ...any) {
		*out = append(*out, Violation{Path: path, Keyword: keyword, Message: fmt.Sprintf(format, args...)})
	}
	var types []string
	switch t := schema["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if ts, ok := x.(string); ok {
				types = append(types, ts)
			}
		}
	}
	if len(types) > 0 {
		ok := false
		for _, t := range types {
			ok = ok || jsonTypeIs(t, v)
		}
		if !ok {
			add("type", "must be %s, not %s", strings.Join(types, " or "), describe(v))
			return
		}
	}
	if enum, ok := schema["enum"].([]any); ok && !containsJSON(enum, v) {
		add("enum", "%s is not an allowed choice", jsonText(v))
	}
	if c, ok := schema["const"]; ok && !equalJSON(c, v) {
		add("const", "must be %s", jsonText(c))
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if m, ok := count(schema["minLength"]); ok && n < m {
			add("minLength", "must be at least %d %s long", m, Plural(m, "character"))
		}
		if m, ok := count(schema["maxLength"]); ok && n > m {
			add("maxLength", "must be at most %d %s long", m, Plural(m, "character"))
		}
		if p, ok := schema["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(x) {
				add("pattern", "must match the pattern %q", p)
			}
		}
	case map[string]any:
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, present := x[name]; !present {
						*out = append(*out, Violation{Path: path + "/" + escapePointer(name), Keyword: "required", Message: "is required"})
					}
				}
			}
		}
		if props, ok := schema["properties"].(map[string]any); ok {
			for _, name := range sortedKeys(props) {
				sub, ok := props[name].(map[string]any)
				if val, present := x[name]; ok && present {
					rawCheck(sub, val, path+"/"+escapePointer(name), out, depth+1)
				}
			}
		}
	case []any:
		if m, ok := count(schema["minItems"]); ok && len(x) < m {
			add("minItems", "must have at least %d %s", m, Plural(m, "item"))
		}
		if m, ok := count(schema["maxItems"]); ok && len(x) > m {
			add("maxItems", "must have at most %d %s", m, Plural(m, "item"))
		}
		if items, ok := schema["items"].(map[string]any); ok {
			for i, it := range x {
				rawCheck(items, it, path+"/"+strconv.Itoa(i), out, depth+1)
			}
		}
	default:
		if f, ok := toFloat(v); ok {
			if m, ok := schema["minimum"].(float64); ok && f < m {
				add("minimum", "must be at least %v", m)
			}
			if m, ok := schema["maximum"].(float64); ok && f > m {
				add("maximum", "must be at most %v", m)
			}
		}
	}
}

func count(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// equalJSON compares two decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y := listItems(b)
		if !isList(b) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return a == b
}

func containsJSON(list []any, v any) bool {
	for _, it := range list {
		if equalJSON(it, v) {
			return true
		}
	}
	return false
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func jsonTypeIs(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := toFloat(v)
		return ok
	case "integer":
		f, ok := toFloat(v)
		return ok && f == math.Trunc(f)
	case "array":
		return isList(v)
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true // unknown type names constrain nothing
}

func (fld Field) choiceKeyword() string {
	if fld.Kind == KindMulti {
		var s struct {
			Items struct {
				AnyOf json.RawMessage `json:"anyOf"`
				Enum  json.RawMessage `json:"enum"`
			} `json:"items"`
		}
		if json.Unmarshal(fld.Raw, &s) == nil && s.Items.Enum == nil && s.Items.AnyOf != nil {
			return "anyOf"
		}
		return "enum"
	}
	var s struct {
		Enum  json.RawMessage `json:"enum"`
		OneOf json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(fld.Raw, &s) == nil && s.Enum == nil && s.OneOf != nil {
		return "oneOf"
	}
	return "enum"
}

// checkFormat checks the four formats of the vocabulary.
func checkFormat(format, s string) error {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s {
			return errors.New("must be an email address")
		}
	case "uri":
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n\"<>\\^`{|}") {
			return errors.New("must be an absolute URI")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("must be a date (YYYY-MM-DD)")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, strings.ToUpper(s)); err != nil {
			return errors.New("must be a date-time (RFC 3339, e.g. 2025-01-31T09:30:00Z)")
		}
	}
	return nil
}

// toFloat converts any Go number (and json.Number) to float64.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func isList(v any) bool {
	switch v.(type) {
	case []string, []any:
		return true
	}
	return false
}

func listItems(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

// describe names the JSON type of a value for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []string, []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		if _, ok := toFloat(x); ok {
			return "a number"
		}
	}
	return fmt.Sprintf("a %T", v)
}

// Plural is word for a count of n: "1 choice", "2 choices" (English, regular plurals).
func Plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// ParseText converts what a user typed into the field's typed value: the string itself
// for text, float64 for numbers, int64 for integers ("2.5" is an error), bool for
// booleans (true/false, yes/no, y/n), the option value for a select (value or label),
// []string for a multi-select (comma-separated values or labels), decoded JSON for
// KindRaw. It checks the syntax only; CheckValue checks the constraints.
func (fld Field) ParseText(s string) (any, error) {
	t := strings.TrimSpace(s)
	switch fld.Kind {
	case KindText:
		return s, nil
	case KindNumber:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%q is not a number", t)
		}
		return f, nil
	case KindInteger:
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return i, nil
		}
		if i, ok := wholeInt64(t); ok && !strings.ContainsAny(t, "nN") {
			return i, nil
		}
		return nil, fmt.Errorf("%q is not a whole number", t)
	case KindBool:
		switch strings.ToLower(t) {
		case "true", "yes", "y", "1", "on":
			return true, nil
		case "false", "no", "n", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not yes or no", t)
	case KindSelect:
		if v, ok := fld.choice(t); ok {
			return v, nil
		}
		return nil, fmt.Errorf("%q is not one of the choices", t)
	case KindFile:
		// A path (paths, comma-separated, for several files) from the working
		// directory: the file is checked and read here (ReadFile).
		v, _, err := fld.ReadFiles(s, "")
		return v, err
	case KindMulti:
		out := []string{}
		if t == "" {
			return out, nil
		}
		for _, part := range strings.Split(t, ",") {
			v, ok := fld.choice(strings.TrimSpace(part))
			if !ok {
				return nil, fmt.Errorf("%q is not one of the choices", strings.TrimSpace(part))
			}
			out = append(out, v)
		}
		return out, nil
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return v, nil
}

// choice finds an option by value, then by label (case-insensitively).
func (fld Field) choice(s string) (string, bool) {
	for _, o := range fld.Options {
		if o.Value == s {
			return o.Value, true
		}
	}
	for _, o := range fld.Options {
		if strings.EqualFold(o.Label, s) {
			return o.Value, true
		}
	}
	return "", false
}
