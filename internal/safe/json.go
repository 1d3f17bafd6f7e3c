package safe

import (
	"io"
	"unicode/utf8"
)

// JSON returns b, a JSON document or a stream of them, with every character Unsafe
// reports written as a \u escape instead (C1 controls, DEL, bidi controls, zero-width
// characters, U+2028 and U+2029) and invalid UTF-8 as \ufffd. JSON allows such
// characters raw inside strings, where a terminal would act on them; outside strings
// only ASCII may appear, so escaping them keeps the document valid and its decoded
// value unchanged. Raw C0 controls cannot occur in valid JSON and are escaped too.
func JSON(b []byte) []byte {
	if jsonClean(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r != '\n' && r != '\t' && r != '\r' && Unsafe(r):
			out = appendEscape(out, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func jsonClean(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f || (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}

func appendEscape(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// jsonWriter escapes every write with JSON.
type jsonWriter struct{ w io.Writer }

// NewJSONWriter returns a writer that passes each write through JSON before w. Each
// write must hold whole characters (encoders write whole documents or lines).
func NewJSONWriter(w io.Writer) io.Writer { return jsonWriter{w: w} }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
