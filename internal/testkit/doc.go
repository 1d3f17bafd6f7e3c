// Package testkit holds the helpers several packages' tests share: key presses written
// as text ([Key]), golden files ([Golden]), the module's packages read without the go
// command ([ModulePackages]) for the quick tier's checks of the sources, [External]
// for a test that runs another program, which the quick tier (-short) skips, and
// [WaitFor] for a condition that sends no signal. Only tests import it.
//
// It does not own a test harness for a program: package tui's tests drive the model,
// and e2e's drive the binary in tmux through package tmuxterm.
package testkit
