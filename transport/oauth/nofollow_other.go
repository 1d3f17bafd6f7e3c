//go:build !unix

package oauth

// noFollow is 0 where open has no such flags; the Lstat before the open still refuses
// a symbolic link.
const noFollow = 0
