package cli

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/demo"
)

func (a *app) serveDemoCommand() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve-demo [--http 127.0.0.1:PORT]",
		Short: "Run the built-in demo server (stdio by default)",
		Long: `Runs the built-in demo MCP server, which exercises every elicitation feature:
forms with every field kind, chained forms, URL mode with a consent page served on
loopback, a tool that answers -32042 until approved, and 2026-07-28 multi round-trip
tools. It speaks stdio unless --http is given; it binds 127.0.0.1 only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr != "" && !isLoopbackAddr(addr) {
				return usagef("--http %q: want a loopback address with a port, e.g. 127.0.0.1:8080", addr)
			}
			srv, err := demo.New(&demo.Options{Logf: func(format string, args ...any) {
				fmt.Fprintf(a.stderr, format+"\n", args...)
			}})
			if err != nil {
				return err
			}
			defer srv.Close()
			if addr != "" {
				return srv.ServeHTTP(cmd.Context(), addr)
			}
			in := a.stdin
			if in == nil {
				in = os.Stdin
			}
			return srv.ServeStdio(cmd.Context(), in, a.stdout)
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve Streamable HTTP on this loopback address instead of stdio")
	return cmd
}

// isLoopbackAddr reports whether addr is HOST:PORT with a loopback IP literal (or
// localhost) and a valid port, so a bad --http is a usage error before anything starts.
func isLoopbackAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
