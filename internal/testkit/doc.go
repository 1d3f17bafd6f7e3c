// Package testkit holds the helpers the UI packages' tests share: key presses written
// as text ([Key]) and golden files ([Golden]). Only tests import it.
//
// It does not own a test harness for a program or a terminal: package tui's tests
// drive the model, and the root package's tests drive the binary in tmux.
package testkit
