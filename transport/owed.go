package transport

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// notificationCancelled tells the other side that a request's sender gave up on it.
const notificationCancelled = "notifications/cancelled"

// A request of ours whose caller gave up (its context ended) before its response came
// is owed a notifications/cancelled. go-sdk writes it from a goroutine of its own after
// it has retired the call, and its connection refuses that notification once Close has
// begun: a session closed right after a call was cancelled (the user quitting with a
// call in flight) could leave the server never told. Close waits for what is owed
// (awaitOwed), within answerGrace. Only connections that hand the tap the caller's
// context (stdio, in-memory, legacy HTTP+SSE) keep these books; a Streamable HTTP
// session ends with its DELETE, which the server sees whatever was cancelled.

// written notes the outcome of writing msg, which outState saw: a request that never
// reached the server is owed nothing, and a notifications/cancelled that did settles
// what its request was owed.
func (t *tap) written(msg jsonrpc.Message, err error) {
	m, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	switch {
	case m.IsCall() && err != nil:
		t.mu.Lock()
		delete(t.inflight, idKey(m.ID))
		t.checkOwed()
		t.mu.Unlock()
	case !m.IsCall() && err == nil && m.Method == notificationCancelled:
		key, ok := cancelledKey(m.Params)
		if !ok {
			return
		}
		t.mu.Lock()
		if r, ok := t.inflight[key]; ok {
			r.told = true
			t.inflight[key] = r
		}
		t.checkOwed()
		t.mu.Unlock()
	}
}

// owes reports whether a request of ours is owed a cancellation; t.mu is held.
func (t *tap) owes() bool {
	for _, r := range t.inflight {
		if r.ctx != nil && r.ctx.Err() != nil && !r.told {
			return true
		}
	}
	return false
}

// checkOwed wakes awaitOwed when nothing is owed any more; t.mu is held. It is called
// wherever a request leaves the books or is told.
func (t *tap) checkOwed() {
	if t.owedDone != nil && !t.owes() {
		close(t.owedDone)
		t.owedDone = nil
	}
}

// awaitOwed waits until every request of ours whose caller gave up has its
// notifications/cancelled written (or its response), at most d.
func (t *tap) awaitOwed(d time.Duration) {
	t.mu.Lock()
	if !t.owes() {
		t.mu.Unlock()
		return
	}
	if t.owedDone == nil {
		t.owedDone = make(chan struct{})
	}
	done := t.owedDone
	t.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// cancelledKey is the idKey of the request a notifications/cancelled with params names
// (either direction); ok is false when params name none.
func cancelledKey(params json.RawMessage) (key string, ok bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return "", false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return "", false
	}
	return idKey(id), true
}
