//go:build !unix

package oauth

import "io/fs"

// fileOwner is unknown where files have no Unix owner (Windows: ACLs apply).
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
