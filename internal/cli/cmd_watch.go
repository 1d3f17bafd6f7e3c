package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// rootsCommand prints the roots elicitty declares to a server.
func (a *app) rootsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "roots TARGET | roots -- command args...",
		Short: "Show the roots declared to a server (the working directory, --root, the config's roots:)",
		Long: `Show the roots elicitty declares to a server: the directories a server may ask about with
roots/list. They are the working directory, every --root DIR, and the server's roots: list in
the config; --no-roots (or noRoots: true) declares none. Nothing is connected.`,
		Example: "  elicitty roots demo\n  elicitty roots demo --root ../notes --json\n  elicitty roots demo --no-roots",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("roots takes only a TARGET, got extra arguments %q", rest)
			}
			srv = a.resolveServer(srv)
			roots := []transport.Root{}
			if !srv.NoRoots {
				if roots, err = transport.RootsOf(srv.Roots); err != nil {
					return &usageError{err: fmt.Errorf("roots of %s: %w", srv.Name, err)}
				}
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"server": srv.Name, "declared": !srv.NoRoots, "roots": roots})
			}
			if srv.NoRoots {
				fmt.Fprintf(a.stderr, "elicitty: no roots are declared to %s\n", safe.Field(srv.Name))
				return nil
			}
			for _, r := range roots {
				fmt.Fprintf(a.stdout, "%s\t%s\n", safe.Field(r.URI), safe.Field(r.Name))
			}
			return nil
		},
	}
}

// watchCommand subscribes to resources and prints each update until interrupted.
func (a *app) watchCommand() *cobra.Command {
	var updates int
	var stopAfter time.Duration
	cmd := &cobra.Command{
		Use:   "watch TARGET URI... | watch URI... -- command args...",
		Short: "Subscribe to resources and print them each time they change, until ctrl+c",
		Long: `Subscribe to resources (resources/subscribe) and print each one now and again after every
notifications/resources/updated, until ctrl+c (or --updates N, or --for DURATION). The server's log messages
(notifications/message) go to stderr; --log-level asks for a level.`,
		Example: "  elicitty watch demo demo://ticker --updates 2\n  elicitty watch demo demo://ticker --log-level debug --updates 1",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, uris, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(uris) == 0 {
				return usagef("watch needs at least one resource URI")
			}
			if updates < 0 || stopAfter < 0 {
				return usagef("--updates and --for must not be negative")
			}
			return a.watch(cmd.Context(), srv, uris, updates, stopAfter)
		},
	}
	cmd.Flags().IntVar(&updates, "updates", 0, "stop after N updates (0: until ctrl+c)")
	cmd.Flags().DurationVar(&stopAfter, "for", 0, "stop this long after subscribing (0: until ctrl+c)")
	return cmd
}

// watch runs watchCommand against srv: limit updates (0: no limit), for at most
// stopAfter once subscribed (0: no limit).
func (a *app) watch(ctx context.Context, srv config.Server, uris []string, limit int, stopAfter time.Duration) error {
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	updated := make(chan string, 64)
	onEvent := func(ev transport.Event) {
		switch ev.Kind {
		case transport.EventResourceUpdated:
			select {
			case updated <- ev.ID:
			default: // a burst: the pending re-reads show the latest content anyway
			}
		case transport.EventLog:
			fmt.Fprintf(a.stderr, "elicitty: %s: log %s\n", safe.Field(ev.Server), ev.Text.Line())
		case transport.EventReconnected:
			fmt.Fprintf(a.stderr, "elicitty: %s: %s\n", safe.Field(ev.Server), ev.Text.Line())
		}
	}
	p, err := a.plan(srv, frontEnd{onEvent: onEvent}, log)
	if err != nil {
		return err
	}
	if p.options.OAuth, err = a.oauthOptions(p.server); err != nil {
		return err
	}
	stopStarting := a.showStarting(p.server)
	s, err := transport.Connect(ctx, p.server, p.options)
	stopStarting()
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.CanSubscribe() {
		return fmt.Errorf("%s does not offer resource subscriptions (its resources capability lacks subscribe)", safe.Field(srv.Name))
	}
	watched := map[string]bool{}
	for _, u := range uris {
		if err := s.Subscribe(ctx, u); err != nil {
			return err
		}
		watched[u] = true
		if err := a.printResource(ctx, s, u, time.Time{}); err != nil {
			return err
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	var stop <-chan time.Time
	if stopAfter > 0 {
		t := time.NewTimer(stopAfter)
		defer t.Stop()
		stop = t.C
	}
loop:
	for n := 0; limit == 0 || n < limit; {
		select {
		case <-ctx.Done():
			return nil // ctrl+c is how a watch ends
		case <-stop:
			break loop
		case err := <-done:
			return fmt.Errorf("%s ended the session: %w", safe.Field(srv.Name), err)
		case u := <-updated:
			if !watched[u] {
				continue
			}
			n++
			if err := a.printResource(ctx, s, u, time.Now()); err != nil {
				return err
			}
		}
	}
	for u := range watched {
		_ = s.Unsubscribe(ctx, u)
	}
	return nil
}

// printResource reads uri and prints it under a header line; at is the update's time
// (zero for the first read).
func (a *app) printResource(ctx context.Context, s *transport.Session, uri string, at time.Time) error {
	res, rounds, err := s.ReadResource(ctx, uri)
	if err != nil {
		return err
	}
	if a.jsonOut {
		out := a.resultJSON(s, res, rounds)
		if !at.IsZero() {
			out["updated"] = at.UTC().Format(time.RFC3339Nano)
		}
		return a.printJSON(out)
	}
	head := "== " + safe.Field(uri)
	if !at.IsZero() {
		head += " updated " + at.Format("15:04:05")
	}
	fmt.Fprintln(a.stdout, head)
	for _, c := range res.Contents {
		if c.Text != "" {
			fmt.Fprintln(a.stdout, safe.Block(c.Text))
		} else {
			fmt.Fprintf(a.stdout, "[blob %s, %d bytes, %s]\n", safe.Field(c.URI), len(c.Blob), safe.Field(c.MIMEType))
		}
	}
	return nil
}
