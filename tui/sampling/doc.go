// Package sampling is the answer screen of a sampling/createMessage request a person
// answers: the request (messages, media as placeholders, system prompt, model
// preferences, limits, tools), a reply editor, the model name, and a review step
// before the reply is sent. It also holds the line-mode prompt of the same request for
// terminals without the full-screen program (inline and accessible mode). It performs
// no I/O other than the line prompt's reads and writes, and sends nothing: the caller
// writes the answer back.
package sampling
