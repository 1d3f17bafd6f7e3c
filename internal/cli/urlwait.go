package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/consent"
)

// errCancelledByUser is the cause of a headless call's context when the user pressed c
// on the inline prompt's URL wait.
var errCancelledByUser = errors.New("cancelled while waiting for the link")

// urlWaiter connects the inline prompt's URL wait (consent.Answerer) to the headless
// command's session: r is Session.RetryNow, c cancels the call, the server's completion
// notification ends the wait, and so does the end of the command. The zero value is
// ready to use; it is safe for concurrent use.
type urlWaiter struct {
	mu     sync.Mutex
	ans    *consent.Answerer
	sess   *transport.Session
	cancel context.CancelCauseFunc
}

// setAnswerer records the inline prompt's URL answerer.
func (u *urlWaiter) setAnswerer(a *consent.Answerer) {
	u.mu.Lock()
	u.ans = a
	u.mu.Unlock()
}

// begin records the command's session and the cancel of its call's context.
func (u *urlWaiter) begin(s *transport.Session, cancel context.CancelCauseFunc) {
	u.mu.Lock()
	u.sess, u.cancel = s, cancel
	u.mu.Unlock()
}

// end stops the wait (the terminal is restored) and forgets the session.
func (u *urlWaiter) end() {
	u.mu.Lock()
	a := u.ans
	u.sess, u.cancel = nil, nil
	u.mu.Unlock()
	if a != nil {
		a.StopWaiting()
	}
}

// println prints line on stderr, above the inline prompt's waiting line when one shows.
func (u *urlWaiter) println(stderr io.Writer, line string) {
	u.mu.Lock()
	a := u.ans
	u.mu.Unlock()
	if a == nil {
		fmt.Fprintln(stderr, line)
		return
	}
	a.Println(line)
}

// retry is "retry now": the session's -32042 waits end at once.
func (u *urlWaiter) retry(*elicit.Request) {
	u.mu.Lock()
	s := u.sess
	u.mu.Unlock()
	if s != nil {
		s.RetryNow()
	}
}

// cancelCall cancels the call that waits; the server gets notifications/cancelled.
func (u *urlWaiter) cancelCall() {
	u.mu.Lock()
	c := u.cancel
	u.mu.Unlock()
	if c != nil {
		c(errCancelledByUser)
	}
}

// completed ends the wait for the flow the server reports complete; it reports whether
// a wait ended (its last line told the user).
func (u *urlWaiter) completed(server, id string) bool {
	u.mu.Lock()
	a := u.ans
	u.mu.Unlock()
	return a != nil && a.Completed(server, id)
}
