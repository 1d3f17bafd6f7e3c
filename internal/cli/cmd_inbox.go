package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/proxy/inbox"
	"github.com/elicitty/elicitty/tui"
)

func (a *app) inboxCommand() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "Answer, in this terminal, what servers ask through every running elicitty proxy",
		Long: `inbox opens the terminal UI with no servers of its own: it attaches to every running
` + "`elicitty proxy`" + ` of this user (over a socket in the user's runtime directory) and shows
their questions in the Inbox, with the host and the server that ask ("Claude Desktop ›
github"), as the usual forms and URL consent screens. The terminal bell rings when one
arrives; a question answered in another inbox, or that its proxy stopped waiting for,
is withdrawn. The TUI (` + "`elicitty`, `elicitty demo`" + `) attaches to the proxies the same way.

With --list it prints the running proxies (pid, host, server, pending questions) and
exits, with --json as JSON.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := inbox.RuntimeDir(os.Getenv)
			if err != nil {
				return err
			}
			if list {
				return a.listProxies(cmd.Context(), dir)
			}
			if a.accessible {
				return usagef("elicitty inbox has no accessible line mode yet; answer with an answers file (elicitty proxy --answers FILE)")
			}
			return a.tui(cmd.Context(), nil, true)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "print the running proxies and exit")
	return cmd
}

// listProxies prints the proxies of dir: a table, or JSON with --json.
func (a *app) listProxies(ctx context.Context, dir string) error {
	ps, err := inbox.List(ctx, dir)
	if err != nil {
		return err
	}
	if a.jsonOut {
		if ps == nil {
			ps = []inbox.Proxy{}
		}
		return a.printJSON(map[string]any{"proxies": ps})
	}
	if len(ps) == 0 {
		fmt.Fprintln(a.stdout, "no elicitty proxy is running")
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PID\tHOST\tSERVER\tPENDING")
	for _, p := range ps {
		host := p.Host
		if host == "" {
			host = "-"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\n", p.PID, host, p.Server, p.Pending)
	}
	return w.Flush()
}

// remote is the TUI's Options.Remote: it attaches to the proxies of the runtime
// directory and answers their asks through the program's answerer. The proxy's own
// engine merges defaults and validates the answer; the program's forms check each
// value as it is typed. Without a usable runtime directory it notes why and attaches
// to none.
func (a *app) remote(ctx context.Context, ans elicit.Answerer, proxies func([]tui.Proxy), note func(string)) {
	dir, err := inbox.RuntimeDir(os.Getenv)
	if err != nil {
		note("not attaching to elicitty proxies: " + err.Error())
		return
	}
	_ = inbox.Watch(ctx, dir, inbox.AnswerWith(ans), &inbox.WatchOptions{
		Log: lineWriter(note),
		OnChange: func(ps []inbox.Proxy) {
			list := make([]tui.Proxy, len(ps))
			for i, p := range ps {
				list[i] = tui.Proxy{Host: p.Host, Server: p.Server, PID: p.PID}
			}
			proxies(list)
		},
	})
}

// lineWriter passes each line written to it, without its "elicitty: " prefix, to a
// status line or another log.
type lineWriter func(string)

// Write implements io.Writer.
func (n lineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		n(strings.TrimPrefix(l, "elicitty: "))
	}
	return len(p), nil
}
