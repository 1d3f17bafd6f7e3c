// Package process runs the stdio MCP server processes of the transport and the relay
// (proxy): each in a process group of its own (a job object on Windows), its stderr
// pumped into the wire log, its pipes drained boundedly once it exits, and stopped in
// stages (stdin closed, SIGTERM to the group, SIGKILL) so that nothing it started
// outlives it. Procs registers a program's processes so that all of them stop when it
// exits; ExitError reports a process that ended, quoting the stderr lines that name the
// cause of a crash.
package process
