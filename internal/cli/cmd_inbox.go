package cli

import (
	"context"
	"errors"
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
arrives (once for a burst, at most once a second); a question answered in another inbox, or that its proxy stopped waiting for,
is withdrawn. After you consent to a link that a server requires before it runs a
tool (error -32042), the waiting screen shows until the server confirms the step: r
has the proxy retry the host's call at once, o reopens the link, c stops waiting. The
TUI (` + "`elicitty`, `elicitty demo`" + `) attaches to the proxies the same way.

A proxy listens in a directory derived from the user id, whatever environment its
host passes: /run/user/UID/elicitty when /run/user/UID is the user's, else
/tmp/elicitty-UID. The inbox looks there and in $XDG_RUNTIME_DIR/elicitty and
$TMPDIR/elicitty-UID; $ELICITTY_RUNTIME_DIR, when set, is the one place of both.
` + "`elicitty doctor`" + ` shows the places.

With --list it prints the running proxies (pid, host, server, pending questions) and
exits, with --json as JSON (with the places looked in).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			places := inbox.SystemPlaces(os.Getenv)
			if err := refusedOverride(places); err != nil {
				return err
			}
			if list {
				return a.listProxies(cmd.Context(), places)
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

// refusedOverride is the error of an $ELICITTY_RUNTIME_DIR that exists but is refused
// (another user's, open to others): the one place would never be read.
func refusedOverride(places inbox.Places) error {
	if os.Getenv("ELICITTY_RUNTIME_DIR") == "" {
		return nil
	}
	if pl := places.Inspect(); len(pl) == 1 && !pl[0].Missing && pl[0].Problem != "" {
		return errors.New(pl[0].Problem)
	}
	return nil
}

// listProxies prints the proxies found in places: a table, or JSON with --json.
func (a *app) listProxies(ctx context.Context, places inbox.Places) error {
	ps := inbox.ListDirs(ctx, places.Search())
	looked := places.Inspect()
	if a.jsonOut {
		if ps == nil {
			ps = []inbox.Proxy{}
		}
		return a.printJSON(map[string]any{"proxies": ps, "places": looked})
	}
	for _, pl := range looked {
		if !pl.Missing && pl.Problem != "" {
			fmt.Fprintf(a.stderr, "elicitty: not looking in %s: %s\n", pl.Dir, pl.Problem)
		}
	}
	if len(ps) == 0 {
		dirs := make([]string, len(looked))
		for i, pl := range looked {
			dirs[i] = pl.Dir
		}
		fmt.Fprintf(a.stdout, "no elicitty proxy is running (looked in %s)\n", strings.Join(dirs, ", "))
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

// remote is the TUI's Options.Remote: it attaches to the proxies in every place one
// may listen (inbox.Places.Search) and answers their asks through the program's
// answerer. The proxy's own engine merges defaults and validates the answer; the
// program's forms check each value as it is typed. A refused place is noted.
func (a *app) remote(ctx context.Context, ans elicit.Answerer, proxies func([]tui.Proxy), note func(string)) {
	_ = inbox.WatchDirs(ctx, inbox.SystemPlaces(os.Getenv).Search(), inbox.AnswerWith(ans), &inbox.WatchOptions{
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
