//go:build !unix

package proxy

import "os"

// Pollable returns f unchanged on this system (see pollable_unix.go).
func Pollable(f *os.File) (*os.File, func()) { return f, func() {} }
