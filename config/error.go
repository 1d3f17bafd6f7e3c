package config

import "strconv"

// Error is a problem with one place in a config file. Its message names the file, the line
// and column where known, and the field, as in
//
//	config.yaml:12:5: servers.demo.timeout: invalid duration "3x"
//
// It never carries the value of an env variable or header. The zero value is an empty error.
type Error struct {
	// File is the path of the config file; empty when the problem is not tied to a file.
	File string
	// Line and Col are 1-based; zero means unknown.
	Line, Col int
	// Field is the dotted path of the offending field ("servers.demo.timeout"); may be empty.
	Field string
	// Msg says what is wrong, in lower case.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error formats the error as "file:line:col: field: message".
func (e *Error) Error() string {
	s := e.File
	if s == "" && e.Line > 0 {
		s = "line "
	}
	if e.Line > 0 {
		if s != "line " {
			s += ":"
		}
		s += strconv.Itoa(e.Line)
		if e.Col > 0 {
			s += ":" + strconv.Itoa(e.Col)
		}
	}
	if s != "" {
		s += ": "
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Problem is a server entry (or a whole file) from another client's config that could not be
// imported. Problems do not fail Load, since elicitty does not own those files; using the
// server by name reports Err.
type Problem struct {
	// Source is the file the entry came from.
	Source string
	// Server is the entry's name; empty when the whole file could not be read.
	Server string
	// Err says what is wrong; it names the file, line and field where known.
	Err error
}
