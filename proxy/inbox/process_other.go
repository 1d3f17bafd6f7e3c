//go:build !unix

package inbox

// processAlive cannot tell here; it says yes, so that no socket is removed.
func processAlive(int) bool { return true }
