package process

import (
	"errors"
	"sync"
	"time"
)

// Procs is the set of stdio server processes a program started (transport.Options.Procs). Its
// Stop ends every one still running, whatever state its session is in (connecting,
// ready, or abandoned by a caller that gave up on it), so that no server outlives the
// program. The zero value is not usable; use NewProcs. It is safe for concurrent use.
type Procs struct {
	mu      sync.Mutex
	live    map[*Proc]struct{}
	stopped bool
	// starts counts the starts under way (between begin and add), which Stop waits for
	// so that no process starts unseen while it runs.
	starts sync.WaitGroup

	stopOnce sync.Once
	stopDone chan struct{}
	report   StopReport
}

// NewProcs returns an empty set.
func NewProcs() *Procs { return &Procs{live: map[*Proc]struct{}{}, stopDone: make(chan struct{})} }

// errStopping refuses a server start once the program is shutting down.
var errStopping = errors.New("not started: elicitty is exiting")

// begin announces a start; it reports false once Stop was called (do not start). Each
// true begin must be followed by add or abort.
func (ps *Procs) begin() bool {
	if ps == nil {
		return true
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.stopped {
		return false
	}
	ps.starts.Add(1)
	return true
}

// abort ends a start that failed.
func (ps *Procs) abort() {
	if ps != nil {
		ps.starts.Done()
	}
}

// add registers the started p, ending its start.
func (ps *Procs) add(p *Proc) {
	if ps == nil {
		return
	}
	ps.mu.Lock()
	ps.live[p] = struct{}{}
	ps.mu.Unlock()
	ps.starts.Done()
}

// remove forgets p once it has ended.
func (ps *Procs) remove(p *Proc) {
	if ps == nil {
		return
	}
	ps.mu.Lock()
	delete(ps.live, p)
	ps.mu.Unlock()
}

// Live returns how many registered processes have not ended yet.
func (ps *Procs) Live() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.live)
}

// StopReport says what Stop did.
type StopReport struct {
	// Stopped counts the processes that were running when Stop was called.
	Stopped int
	// Killed counts those that had to be killed (they ignored stdin EOF and SIGTERM).
	Killed int
	// Left counts those still not reaped when Stop gave up (normally 0).
	Left int
}

// Stop ends every registered process at once, each in order: stdin closed, SIGTERM to
// its process group after grace, SIGKILL after another grace. It returns once all
// have ended or 3×grace+1 s have passed, and refuses any server started afterwards.
// grace <= 0 means 500 ms. Later and concurrent calls wait for the first and return
// its report.
func (ps *Procs) Stop(grace time.Duration) StopReport {
	ps.stopOnce.Do(func() {
		ps.report = ps.stop(grace)
		close(ps.stopDone)
	})
	<-ps.stopDone
	return ps.report
}

func (ps *Procs) stop(grace time.Duration) StopReport {
	if grace <= 0 {
		grace = 500 * time.Millisecond
	}
	ps.mu.Lock()
	ps.stopped = true
	ps.mu.Unlock()
	// A start under way takes a fork and an exec: wait for it, boundedly.
	started := make(chan struct{})
	go func() { ps.starts.Wait(); close(started) }()
	t := time.NewTimer(grace)
	select {
	case <-started:
	case <-t.C:
	}
	t.Stop()
	ps.mu.Lock()
	list := make([]*Proc, 0, len(ps.live))
	for p := range ps.live {
		list = append(list, p)
	}
	ps.mu.Unlock()
	rep := StopReport{Stopped: len(list)}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for _, p := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			killed := p.stopWithin(grace, grace, grace+time.Second)
			mu.Lock()
			defer mu.Unlock()
			if killed {
				rep.Killed++
			}
			select {
			case <-p.done:
			default:
				rep.Left++
			}
		}()
	}
	wg.Wait()
	return rep
}
