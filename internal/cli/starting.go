package cli

import (
	"fmt"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// Delays of the line that shows a stdio server still starting: on a terminal it shows
// after startingShown and counts the seconds; elsewhere one line is printed after
// startingNoted, for a server started through a package runner only, so a script's
// stderr stays quiet for servers that start at once.
const (
	startingShown = time.Second
	startingNoted = 3 * time.Second
)

// showStarting shows on stderr that srv, a stdio server, is still starting while the
// handshake runs, with the time elapsed; the returned func ends it.
func (a *app) showStarting(srv config.Server) (stop func()) {
	if srv.EffectiveKind() != config.KindStdio {
		return func() {}
	}
	runner := transport.PackageRunner(srv)
	bound := srv.HandshakeTimeout
	if bound <= 0 {
		bound = transport.DefaultHandshakeBound(srv)
	}
	if a.progress == nil && runner == "" {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		first := startingNoted
		if a.progress != nil {
			first = startingShown
		}
		t := time.NewTimer(first)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			text := startingText(srv.Name, runner, time.Since(start), bound, a.progress != nil)
			if a.progress == nil {
				fmt.Fprintln(a.stderr, text)
				return
			}
			a.progress.show(text)
			t.Reset(time.Second)
		}
	}()
	return func() {
		close(done)
		<-finished
		a.progress.clear()
	}
}

// startingText is the line that shows server still starting after elapsed, of at most
// bound; terse keeps it within an 80-column terminal line (the flag is named by the
// timeout's error and --help).
func startingText(server, runner string, elapsed, bound time.Duration, terse bool) string {
	text := fmt.Sprintf("elicitty: starting %q: %s (", safe.Block(server), elapsed.Round(time.Second))
	if runner != "" {
		text += runner + " may be downloading it; "
	}
	text += "up to " + bound.String()
	if !terse {
		text += ", --handshake-timeout"
	}
	return text + ")"
}
