// Package form turns an elicitation form into something a person answers in a terminal.
//
// It owns three things: the huh form builder (an [elicit.Form] becomes huh fields bound to
// typed storage, with a review step and distinct Accept, Decline and Cancel actions), the
// embeddable [Model] that the TUI mounts in a pane, and the inline [Prompter], an
// [elicit.Answerer] that runs the same form on a terminal (or in huh's accessible mode).
// [Render] previews a requestedSchema for `elicitty render`.
//
// It does not own schema parsing, defaults, validation rules or sanitizing: those live in
// package elicit, and this package only calls them. It does not own the TUI program, the
// URL consent screen or any transport.
package form
