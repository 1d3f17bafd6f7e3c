package tui

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
)

// reqID identifies one pending elicitation inside the program.
type reqID uint64

// Bridge is the interactive elicit.Answerer: Answer hands the request to the program
// as a message and blocks until the user answers or ctx is done. The zero value is not
// usable; use NewBridge. It is safe for concurrent use.
type Bridge struct {
	mu     sync.Mutex
	send   func(tea.Msg)
	closed chan struct{}
	once   sync.Once
	next   atomic.Uint64
}

// NewBridge returns a bridge not yet attached to a program; until Attach, Answer
// returns elicit.ErrUnanswered.
func NewBridge() *Bridge { return &Bridge{closed: make(chan struct{})} }

// Attach connects the bridge to p.
func (b *Bridge) Attach(p *tea.Program) { b.attach(p.Send) }

// Detach disconnects the bridge: later requests are unanswered and requests still
// waiting are answered cancel (the user left).
func (b *Bridge) Detach() {
	b.attach(nil)
	b.once.Do(func() { close(b.closed) })
}

func (b *Bridge) attach(send func(tea.Msg)) {
	b.mu.Lock()
	b.send = send
	b.mu.Unlock()
}

func (b *Bridge) sender() func(tea.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.send
}

// Answer implements elicit.Answerer. The form is parsed here, off the UI goroutine.
func (b *Bridge) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	send := b.sender()
	if send == nil {
		return elicit.Response{}, elicit.ErrUnanswered
	}
	id := reqID(b.next.Add(1))
	reply := make(chan elicit.Response, 1)
	var form *elicit.Form
	if req.Mode != elicit.ModeURL {
		form = elicit.FormOf(ctx, req) // the engine's parse when it called us, else a fresh one
	}
	send(elicitRequestMsg{id: id, req: req, form: form, reply: reply})
	select {
	case r := <-reply:
		return r, nil
	case <-b.closed:
		return elicit.Response{Action: elicit.Cancel}, nil
	case <-ctx.Done():
		why := "cancelled by the server"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "expired"
		}
		send(elicitGoneMsg{id: id, why: why})
		return elicit.Response{}, ctx.Err()
	}
}

// event forwards a session notification to the program; it never blocks the caller
// for long (Send only waits for the event loop).
func (b *Bridge) event(ev transport.Event) {
	if send := b.sender(); send != nil {
		go send(eventMsg(ev))
	}
}

var _ elicit.Answerer = (*Bridge)(nil)
