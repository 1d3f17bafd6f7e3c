//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package consent

// cbreak does nothing here: a wait's keys need Enter.
func cbreak(uintptr) func() { return func() {} }
