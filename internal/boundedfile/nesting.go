package boundedfile

import "strconv"

// DefaultMaxDepth is the nesting cap of Nesting when max is zero or less: far deeper
// than any config, and far from the depth where a recursive parser runs out of stack.
const DefaultMaxDepth = 1000

// Syntax is the grammar whose strings and comments Nesting skips.
type Syntax int

// The syntaxes Nesting knows.
const (
	// JSON is JSON, with // and /* */ comments allowed (VS Code's JSONC).
	JSON Syntax = iota
	// YAML is YAML: flow collections ([...], {...}) nest; "..." and '...' scalars and
	// # comments are skipped.
	YAML
	// TOML is TOML: arrays and inline tables nest; its four kinds of strings and #
	// comments are skipped.
	TOML
)

// Nesting refuses data whose arrays and objects ([ and {) nest deeper than max
// (DefaultMaxDepth when max <= 0), before any parser sees it. It is one pass over the
// bytes, skipping strings and comments as s writes them; when it cannot tell, it
// counts, so it may refuse a pathological file a parser would accept but never lets a
// deeper one through to a JSON or TOML parser. path only names the file in the error.
func Nesting(path string, data []byte, s Syntax, max int) error {
	if max <= 0 {
		max = DefaultMaxDepth
	}
	sc := scanner{data: data, s: s}
	depth, line := 0, 1
	for sc.i < len(data) {
		c := data[sc.i]
		switch {
		case c == '\n':
			line++
			sc.i++
		case c == '[' || c == '{':
			depth++
			if depth > max {
				return &Error{Path: path, Line: line, Msg: "arrays or objects nest more than " + strconv.Itoa(max) + " levels deep", Err: ErrTooDeep}
			}
			sc.i++
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			sc.i++
		default:
			line += sc.skip()
		}
	}
	return nil
}

// scanner walks data in one syntax.
type scanner struct {
	data []byte
	i    int
	s    Syntax
}

// at reports whether data at i starts with p.
func (sc *scanner) at(p string) bool {
	return len(sc.data)-sc.i >= len(p) && string(sc.data[sc.i:sc.i+len(p)]) == p
}

// skip moves past the byte at i, or the whole string or comment starting there, and
// returns the number of newlines it moved past.
func (sc *scanner) skip() int {
	start := sc.i
	switch sc.s {
	case JSON:
		switch {
		case sc.at(`"`):
			sc.i++
			sc.until(`"`, true, false)
		case sc.at("//"):
			sc.untilNewline()
		case sc.at("/*"):
			sc.i += 2
			sc.until("*/", false, true)
		default:
			sc.i++
		}
	case TOML:
		switch {
		case sc.at(`"""`):
			sc.i += 3
			sc.until(`"""`, true, true)
		case sc.at("'''"):
			sc.i += 3
			sc.until("'''", false, true)
		case sc.at(`"`):
			sc.i++
			sc.until(`"`, true, false)
		case sc.at("'"):
			sc.i++
			sc.until("'", false, false)
		case sc.at("#"):
			sc.untilNewline()
		default:
			sc.i++
		}
	case YAML:
		switch {
		case sc.at("#") && sc.afterSpace():
			sc.untilNewline()
		case sc.at(`"`) && sc.afterIndicator():
			sc.i++
			sc.until(`"`, true, true)
		case sc.at("'") && sc.afterIndicator():
			sc.i++
			sc.untilQuote()
		default:
			sc.i++
		}
	default:
		sc.i++
	}
	n := 0
	for _, c := range sc.data[start:sc.i] {
		if c == '\n' {
			n++
		}
	}
	return n
}

// until moves past the next end; escapes skips the byte after a backslash; multiline
// lets the string run past a newline (else it ends there, left for the caller).
func (sc *scanner) until(end string, escapes, multiline bool) {
	for sc.i < len(sc.data) {
		c := sc.data[sc.i]
		switch {
		case escapes && c == '\\':
			sc.i += 2
			continue
		case c == '\n' && !multiline:
			return
		case sc.at(end):
			sc.i += len(end)
			return
		}
		sc.i++
	}
	if sc.i > len(sc.data) {
		sc.i = len(sc.data)
	}
}

// untilQuote moves past a YAML single-quoted scalar's closing quote (a doubled quote
// stands for one quote).
func (sc *scanner) untilQuote() {
	for sc.i < len(sc.data) {
		if sc.data[sc.i] == '\'' {
			if sc.i+1 < len(sc.data) && sc.data[sc.i+1] == '\'' {
				sc.i += 2
				continue
			}
			sc.i++
			return
		}
		sc.i++
	}
}

func (sc *scanner) untilNewline() {
	for sc.i < len(sc.data) && sc.data[sc.i] != '\n' {
		sc.i++
	}
}

// afterSpace reports whether the byte at i starts a line or follows a blank (where # starts
// a YAML comment).
func (sc *scanner) afterSpace() bool {
	if sc.i == 0 {
		return true
	}
	switch sc.data[sc.i-1] {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// afterIndicator reports whether a quote at i can start a YAML quoted scalar: at the
// start of a line or after a blank or a flow indicator.
func (sc *scanner) afterIndicator() bool {
	if sc.afterSpace() {
		return true
	}
	switch sc.data[sc.i-1] {
	case '[', '{', ',', ':':
		return true
	}
	return false
}
