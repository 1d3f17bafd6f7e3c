// Package repocheck holds the repository's own checks, run as tests from the
// repository's root: the docs name files, packages and sections that exist, the README
// quotes the current UI, the layers import one way, and nothing refers outside the
// repository. It has no code of its own.
package repocheck
