package elicit

import (
	"math"
	"strconv"

	"github.com/elicitty/elicitty/tree"
)

// defaultOf converts and checks a property's default (docs/protocol.md, "Defaults"): a default
// of the wrong type, outside the choices or failing its own field's constraints is dropped
// with a finding; a multi-select default loses unknown and duplicate members first.
func (b *builder) defaultOf(fld *Field, d *tree.Node, path string) {
	if b.vocab.legacy && fld.Kind != KindBool && fld.Kind != KindRaw {
		b.warn(path, CodeNotInVersion, "%s allows a default only on booleans", b.protocol)
	}
	drop := func(format string, args ...any) {
		b.warn(path, CodeDefaultDropped, "default dropped: "+format, args...)
	}
	var v any
	switch fld.Kind {
	case KindText, KindSelect:
		if d.Kind != tree.KindString {
			drop("a JSON %s is not a string", d.Kind)
			return
		}
		v = d.Str
		if fld.Kind == KindSelect && !hasOption(fld.Options, d.Str) {
			b.warn(path, CodeDefaultOutsideEnum, "default dropped: %q is not one of the choices", d.Str)
			return
		}
	case KindBool:
		if d.Kind != tree.KindBool {
			drop("a JSON %s is not a boolean", d.Kind)
			return
		}
		v = d.Bool
	case KindNumber:
		if d.Kind != tree.KindNumber {
			drop("a JSON %s is not a number", d.Kind)
			return
		}
		f, err := strconv.ParseFloat(string(d.Str), 64)
		if err != nil || math.IsInf(f, 0) {
			drop("%s is out of range", d.Str)
			return
		}
		v = f
	case KindInteger:
		if d.Kind != tree.KindNumber {
			drop("a JSON %s is not an integer", d.Kind)
			return
		}
		i, ok := wholeInt64(string(d.Str))
		if !ok {
			drop("%s is not a whole number within 64-bit range", d.Str)
			return
		}
		v = i
	case KindMulti:
		if d.Kind != tree.KindArray {
			drop("a JSON %s is not an array", d.Kind)
			return
		}
		list := make([]string, 0, d.Len())
		seen := map[string]bool{}
		for i := range d.Len() {
			switch s, kind := itemString(d, i); {
			case kind != tree.KindString:
				b.warn(path+"/"+strconv.Itoa(i), CodeDefaultTrimmed, "default member removed: a JSON %s is not a string", kind)
			case !hasOption(fld.Options, s):
				b.warn(path+"/"+strconv.Itoa(i), CodeDefaultTrimmed, "default member removed: %q is not one of the choices", s)
			case seen[s]:
				b.warn(path+"/"+strconv.Itoa(i), CodeDefaultTrimmed, "default member removed: %q is listed twice", s)
			default:
				seen[s] = true
				list = append(list, s)
			}
		}
		v = list
	default:
		drop("property %q is answered as raw JSON and gets no default", fld.Name)
		return
	}
	if vs := fld.CheckValue(v); len(vs) > 0 {
		drop("%s", vs[0].Message)
		return
	}
	fld.Default = v
}

// wholeInt64 parses a JSON number that is a whole number within int64 range ("2", "2.0",
// "2e3"); "2.5" and "1e20" fail.
func wholeInt64(s string) (int64, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return floatInt64(f)
}

// floatInt64 converts a whole float64 within int64 range.
func floatInt64(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

func hasOption(opts []Option, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

// Merge returns content with absent keys filled from the fields' defaults; it is applied
// on accept only. User input always wins, zero values and explicit nulls included. The
// input map is not modified; a nil content with no defaults to add stays nil (the accept
// then carries no content).
func (f *Form) Merge(content map[string]any) map[string]any {
	if f == nil {
		return content
	}
	var out map[string]any
	for _, fld := range f.Fields {
		if fld.Default == nil {
			continue
		}
		if _, ok := content[fld.Name]; ok {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(content)+len(f.Fields))
			for k, v := range content {
				out[k] = v
			}
		}
		if list, ok := fld.Default.([]string); ok {
			fld.Default = append([]string(nil), list...)
		}
		out[fld.Name] = fld.Default
	}
	if out == nil {
		return content
	}
	return out
}
