package tui

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
)

// reqID identifies one pending elicitation inside the program.
type reqID uint64

// Bridge is the interactive elicit.Answerer: Answer hands the request to the program
// as a message and blocks until the user answers or ctx is done. The zero value is not
// usable; use NewBridge. It is safe for concurrent use.
type Bridge struct {
	mu     sync.Mutex
	send   func(tea.Msg)
	signIn map[string]bool // servers whose sign-in the user started (key l)
	closed chan struct{}
	once   sync.Once
	next   atomic.Uint64

	evMu       sync.Mutex
	evQueue    []transport.Event // events not yet handed to the program, oldest first
	forwarding bool              // a forward goroutine is draining evQueue
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
	if req.Mode != elicit.ModeURL && req.Mode != elicit.ModeSampling {
		form = req.ParsedForm() // the engine's parse when it called us, else a fresh one
	}
	call, _ := ctx.Value(callKey{}).(callID)
	send(elicitRequestMsg{id: id, req: req, form: form, reply: reply, call: call})
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
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			why = safe.Line(cause.Error()) // e.g. a proxy's "withdrawn: answered in another inbox"
		}
		send(elicitGoneMsg{id: id, why: why})
		return elicit.Response{}, ctx.Err()
	}
}

// notice hands msg to the program, when one is attached.
func (b *Bridge) notice(msg tea.Msg) {
	if send := b.sender(); send != nil {
		send(msg)
	}
}

// event forwards a session notification to the program without blocking the caller
// (a session's reader goroutine): it queues ev and one goroutine at a time hands the
// queue to the program in the order the events came.
func (b *Bridge) event(ev transport.Event) {
	if b.sender() == nil {
		return
	}
	b.evMu.Lock()
	b.evQueue = append(b.evQueue, ev)
	start := !b.forwarding
	b.forwarding = true
	b.evMu.Unlock()
	if start {
		go b.forward()
	}
}

// forward sends queued events until the queue is empty. Events queued after Detach
// are dropped with the program.
func (b *Bridge) forward() {
	for {
		b.evMu.Lock()
		if len(b.evQueue) == 0 {
			b.forwarding = false
			b.evMu.Unlock()
			return
		}
		ev := b.evQueue[0]
		b.evQueue[0] = transport.Event{}
		b.evQueue = b.evQueue[1:]
		b.evMu.Unlock()
		if send := b.sender(); send != nil {
			send(eventMsg(ev)) // Send only waits for the event loop
		}
	}
}

// callKey is the context key under which runCall stores its callID, so that requests
// asked within a call (MRTR rounds, -32042 entries) name it.
type callKey struct{}

func withCall(ctx context.Context, id callID) context.Context {
	return context.WithValue(ctx, callKey{}, id)
}

// SignIn implements oauth.Browser: once the user has started the sign-in of s.Server
// from the servers pane, the sign-in page is shown on the URL consent screen (server,
// full authorization URL, host, warnings; Open / Copy / QR / Cancel) and SignIn returns
// when the user chose, so the handler waits for the redirect. Before that it returns
// oauth.ErrNoWait: the server shows "sign-in needed" instead of a screen nobody asked
// for.
func (b *Bridge) SignIn(ctx context.Context, s oauth.SignIn) error {
	b.mu.Lock()
	ok := b.signIn[s.Server]
	b.mu.Unlock()
	if !ok {
		return oauth.ErrNoWait
	}
	resp, err := b.Answer(ctx, s.Request())
	if err != nil {
		return err
	}
	if resp.Action != elicit.Accept {
		return oauth.ErrCancelled
	}
	return nil
}

// allowSignIn lets the next sign-ins of server show the sign-in page.
func (b *Bridge) allowSignIn(server string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.signIn == nil {
		b.signIn = map[string]bool{}
	}
	b.signIn[server] = true
}

var (
	_ elicit.Answerer = (*Bridge)(nil)
	_ oauth.Browser   = (*Bridge)(nil)
)
