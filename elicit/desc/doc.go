// Package desc checks the elicitation declarations of an MCP Description (mcpdesc
// 0.9.0-rc.3 §12) and finds single declarations for preview.
//
// It owns the loader for .mcpdesc.json, .mcpdesc.yaml and .mcpdesc.yml files (restricted
// YAML, positions kept for every node), the resolution of $componentRef references into
// components.schemas, the structural and semantic §12 checks with their diagnostics, and
// the text and JSON reports of `elicitty desc lint`.
//
// It does not render forms, talk to servers or fetch URLs: a declared url is checked for
// syntax only. Its form-schema rules are strict and per protocol version; the keyword
// vocabulary itself is package elicit's one table (elicit.ShapeKeyword), of which the
// lint accepts only what the specification lists, while the lenient run-time parser
// also honours elicitty's extensions (pattern).
package desc
