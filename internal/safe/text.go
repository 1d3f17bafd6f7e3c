package safe

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Text is text a server sent, kept as received. Its only ways out are sanitizing: Line,
// Block, and fmt verbs (%s, %v and %q print Line, quoted for %q). The zero value is the
// empty text.
type Text struct{ raw string }

// Untrusted marks s as server text.
func Untrusted(s string) Text { return Text{raw: s} }

// Line returns the text cleaned onto a single line (see the package function Line).
func (t Text) Line() string { return Line(t.raw) }

// Block returns the text cleaned, newlines kept (see the package function Block).
func (t Text) Block() string { return Block(t.raw) }

// IsEmpty reports whether the text is empty.
func (t Text) IsEmpty() bool { return t.raw == "" }

// Len returns the length of the text as received, in bytes.
func (t Text) Len() int { return len(t.raw) }

// Format prints the text as Line, so that passing a Text to fmt cannot print it raw.
func (t Text) Format(f fmt.State, verb rune) {
	s := t.Line()
	if verb == 'q' {
		s = strconv.Quote(s)
	}
	if p, ok := f.Precision(); ok && p < utf8.RuneCountInString(s) {
		s = string([]rune(s)[:p])
	}
	_, _ = f.Write([]byte(s))
}

// MarshalText encodes the text sanitized, so that JSON and YAML encoders write no raw
// control characters either.
func (t Text) MarshalText() ([]byte, error) { return []byte(t.Block()), nil }

// Error is an error whose message may quote a server. Its Error is that message
// cleaned onto one line; Unwrap returns the original error for errors.Is and errors.As.
type Error struct{ err error }

// Wrap returns err as an *Error (nil for nil; err itself when it already is one).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{err: err}
}

// Errorf is fmt.Errorf for messages that quote server text: the result is wrapped, so
// its Error is sanitized whatever the arguments held.
func Errorf(format string, args ...any) error { return Wrap(fmt.Errorf(format, args...)) }

func (e *Error) Error() string { return Line(e.err.Error()) }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.err }
