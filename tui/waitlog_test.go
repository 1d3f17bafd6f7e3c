package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/transport/wire"
)

// TestWaitLogWaitsForEntries: the Log tab's reader sends no message while the wire log
// is quiet (an idle TUI draws no frames for it), brings the entries once some are
// appended, and ends with the model.
func TestWaitLogWaitsForEntries(t *testing.T) {
	log := wire.New(100)
	log.Append(wire.Entry{Server: "demo", Dir: wire.Stderr, Text: "first"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, NewBridge(), Options{Servers: demoServers(), dial: connector(demoSession()), Log: log, LogEvery: 5 * time.Millisecond, NoColor: true})
	m.ticks = true

	run := func(cmd tea.Cmd) <-chan tea.Msg {
		out := make(chan tea.Msg, 1)
		go func() { out <- cmd() }()
		return out
	}
	got := run(m.waitLog())
	select {
	case msg := <-got:
		es, ok := msg.(logEntriesMsg)
		if !ok || len(es) != 1 || es[0].Text != "first" {
			t.Fatalf("first read = %#v, want the entry already in the log", msg)
		}
		m.Update(msg)
	case <-time.After(5 * time.Second):
		t.Fatal("the entry already in the log was not read")
	}

	got = run(m.waitLog())
	select {
	case msg := <-got:
		t.Fatalf("a quiet log sent %#v", msg)
	case <-time.After(100 * time.Millisecond): // twenty periods
	}
	log.Append(wire.Entry{Server: "demo", Dir: wire.Stderr, Text: "second"})
	select {
	case msg := <-got:
		if es, ok := msg.(logEntriesMsg); !ok || len(es) != 1 || es[0].Text != "second" {
			t.Fatalf("after an append = %#v, want the new entry alone", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an appended entry was not read")
	}

	got = run(m.waitLog())
	m.stop()
	select {
	case msg := <-got:
		if msg != nil {
			t.Fatalf("after the model ended = %#v, want nil", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reader outlived the model")
	}
}
