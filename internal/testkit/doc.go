// Package testkit holds the helpers several packages' tests share: key presses written
// as text ([Key]), golden files ([Golden]) and the module's packages read without the
// go command ([ModulePackages]), for the quick tier's checks of the sources. Only tests
// import it.
//
// It does not own a test harness for a program or a terminal: package tui's tests
// drive the model, and the root package's tests drive the binary in tmux.
package testkit
