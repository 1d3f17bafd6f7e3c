package consent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// State is the state of a pending URL elicitation.
type State int

// The states of a pending URL elicitation. Only Waiting changes.
const (
	Waiting State = iota + 1
	Completed
	Declined
	Cancelled
	Expired
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Waiting:
		return "waiting"
	case Completed:
		return "completed"
	case Declined:
		return "declined"
	case Cancelled:
		return "cancelled"
	case Expired:
		return "expired"
	}
	return "unknown"
}

// Entry is one tracked URL elicitation.
type Entry struct {
	Server, ID string
	State      State
}

type pendingKey struct{ server, id string }

// Pending tracks URL elicitations (2025-11-25) by server and elicitationId until their
// notifications/elicitation/complete arrives. The zero value is an empty table ready to
// use. It is safe for concurrent use.
type Pending struct {
	mu      sync.Mutex
	entries map[pendingKey]State
	changed chan struct{} // closed and replaced on every change
}

func (p *Pending) changedLocked() chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

func (p *Pending) notifyLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// Register starts tracking id of server as Waiting. Registering a known id again puts
// it back to Waiting (the server asked again).
func (p *Pending) Register(server, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.entries == nil {
		p.entries = make(map[pendingKey]State)
	}
	p.entries[pendingKey{server, id}] = Waiting
	p.notifyLocked()
}

// Complete records a completion notification. It reports whether the id was known and
// waiting; unknown and already finished ids are ignored (the caller logs them).
func (p *Pending) Complete(server, id string) (known bool) {
	return p.finish(server, id, Completed)
}

// Finish moves a waiting id to Declined, Cancelled or Expired; it reports whether the
// id was waiting.
func (p *Pending) Finish(server, id string, s State) bool {
	if s == Waiting {
		return false
	}
	return p.finish(server, id, s)
}

func (p *Pending) finish(server, id string, s State) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := pendingKey{server, id}
	if p.entries[k] != Waiting {
		return false
	}
	p.entries[k] = s
	p.notifyLocked()
	return true
}

// State returns the state of id of server, and whether it is tracked.
func (p *Pending) State(server, id string) (State, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.entries[pendingKey{server, id}]
	return s, ok
}

// Forget stops tracking the ids of server.
func (p *Pending) Forget(server string, ids ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		delete(p.entries, pendingKey{server, id})
	}
	p.notifyLocked()
}

// Entries returns every tracked elicitation, sorted by server and id.
func (p *Pending) Entries() []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Entry, 0, len(p.entries))
	for k, s := range p.entries {
		out = append(out, Entry{Server: k.server, ID: k.id, State: s})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// NotWaitingError reports that Wait cannot succeed: an id is unknown or was declined,
// cancelled or expired.
type NotWaitingError struct {
	Server, ID string
	// State is the id's state; zero when the id is not tracked.
	State State
}

// Error implements error.
func (e *NotWaitingError) Error() string {
	if e.State == 0 {
		return fmt.Sprintf("url elicitation %q of %q is not tracked", e.ID, e.Server)
	}
	return fmt.Sprintf("url elicitation %q of %q was %s", e.ID, e.Server, e.State)
}

// Wait blocks until every id of server is Completed (nil), one of them cannot complete
// (*NotWaitingError), or ctx ends (ctx.Err()). With no ids it returns nil at once.
func (p *Pending) Wait(ctx context.Context, server string, ids ...string) error {
	for {
		p.mu.Lock()
		all := true
		for _, id := range ids {
			switch s := p.entries[pendingKey{server, id}]; s {
			case Completed:
			case Waiting:
				all = false
			default:
				p.mu.Unlock()
				return &NotWaitingError{Server: server, ID: id, State: s}
			}
		}
		if all {
			p.mu.Unlock()
			return nil
		}
		ch := p.changedLocked()
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
