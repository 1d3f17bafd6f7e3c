package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// ErrClosed is returned by Broker.Answer once the broker is closed.
var ErrClosed = errors.New("inbox broker closed")

// peerQueue bounds the lines waiting to be written to one peer; a peer that lets more
// pile up is dropped. It is well above the questions one proxy keeps open at once, so
// that an inbox attaching late gets them all.
const peerQueue = 1024

// BrokerOptions configures a Broker; the zero value is usable.
type BrokerOptions struct {
	// Host and Server name this proxy in every inbox: the host's clientInfo.name and
	// the server's configured name.
	Host, Server string
	// Log receives one line per attach, refusal, ask, answer and withdrawal, sanitized;
	// nil discards them.
	Log io.Writer
	// Notify is called, best effort, when an ask arrives with no inbox attached; nil
	// notifies nobody. See CommandNotifier.
	Notify Notifier
	// PID is the process id announced in the hello and in the socket's name; zero
	// means os.Getpid().
	PID int
}

// Broker is the proxy's side of the inbox: an elicit.Answerer that hands each request
// to every attached inbox and returns the first answer. Build one with Listen; it is
// safe for concurrent use.
type Broker struct {
	opts BrokerOptions
	path string
	ln   *net.UnixListener
	done chan struct{}
	wg   sync.WaitGroup

	logMu sync.Mutex

	mu     sync.Mutex
	peers  map[*peer]struct{}
	asks   map[uint64]*pendingAsk
	next   uint64
	closed bool
}

// pendingAsk is one ask waiting for its first answer.
type pendingAsk struct {
	line     []byte // the ask message, encoded
	who      string // "host › server (form mode)", sanitized, for log lines
	answered chan elicit.Response
}

// peer is one attached inbox.
type peer struct {
	conn *net.UnixConn
	pid  int
	out  chan []byte
	gone chan struct{}
	once sync.Once
}

// Listen creates the socket proxy-<pid>.sock (mode 0600) in dir, the RuntimeDir, and
// starts accepting inboxes.
func Listen(dir string, opts BrokerOptions) (*Broker, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	if opts.PID == 0 {
		opts.PID = os.Getpid()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	path := filepath.Join(dir, socketName(opts.PID))
	_ = os.Remove(path) // a socket left by an earlier process with our pid
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	b := &Broker{opts: opts, path: path, ln: ln, done: make(chan struct{}),
		peers: map[*peer]struct{}{}, asks: map[uint64]*pendingAsk{}}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

// SetHost names the host the proxy serves (its clientInfo.name, known once it sent
// initialize, after Listen): the attached inboxes get a new hello that says it, and
// so do those that attach later.
func (b *Broker) SetHost(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name == b.opts.Host {
		return
	}
	b.opts.Host = name
	hello, err := b.helloLocked()
	if err != nil {
		return
	}
	for p := range b.peers {
		p.send(hello)
	}
}

// helloLocked encodes the hello as of now; the caller holds b.mu.
func (b *Broker) helloLocked() ([]byte, error) {
	return encode(helloMsg{Type: typeHello, Version: Version, PID: b.opts.PID,
		Host: b.opts.Host, Server: b.opts.Server, Pending: len(b.asks)})
}

// Path returns the socket's path.
func (b *Broker) Path() string { return b.path }

// Close stops listening, removes the socket and drops every inbox; the Answer calls
// still waiting return ErrClosed.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.done)
	peers := make([]*peer, 0, len(b.peers))
	for p := range b.peers {
		peers = append(peers, p)
	}
	b.mu.Unlock()
	err := b.ln.Close()
	for _, p := range peers {
		p.drop()
	}
	b.wg.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close the inbox socket: %w", err)
	}
	return nil
}

// logf writes one sanitized log line.
func (b *Broker) logf(format string, args ...any) {
	b.logMu.Lock()
	defer b.logMu.Unlock()
	fmt.Fprintln(b.opts.Log, "elicitty: inbox: "+safe.Line(fmt.Sprintf(format, args...)))
}

func (b *Broker) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.AcceptUnix()
		if err != nil {
			select {
			case <-b.done:
			default:
				b.logf("accept: %v", err)
			}
			return
		}
		uid, pid, err := peerCred(c)
		switch {
		case err != nil:
			b.logf("refused a connection: %v", err)
			c.Close()
			continue
		case uid != os.Getuid():
			b.logf("refused a connection from uid %d (pid %d): not this user (uid %d)", uid, pid, os.Getuid())
			c.Close()
			continue
		}
		p := &peer{conn: c, pid: pid, out: make(chan []byte, peerQueue), gone: make(chan struct{})}
		b.attach(p)
	}
}

// attach registers p and queues its hello and every pending ask, under the lock, so
// that p sees each ask exactly once and before its withdrawal.
func (b *Broker) attach(p *peer) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		p.conn.Close()
		return
	}
	b.peers[p] = struct{}{}
	hello, err := b.helloLocked()
	if err == nil {
		p.send(hello)
	}
	ids := make([]uint64, 0, len(b.asks))
	for id := range b.asks {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		p.send(b.asks[id].line)
	}
	n := len(ids)
	b.wg.Add(2)
	b.mu.Unlock()
	b.logf("an inbox attached (pid %d); %d ask(s) pending", p.pid, n)
	go func() { defer b.wg.Done(); p.write() }()
	go func() { defer b.wg.Done(); b.read(p) }()
}

// detach forgets p.
func (b *Broker) detach(p *peer, why string) {
	b.mu.Lock()
	_, ok := b.peers[p]
	delete(b.peers, p)
	b.mu.Unlock()
	p.drop()
	if ok {
		b.logf("inbox (pid %d) detached: %s", p.pid, why)
	}
}

// read handles p's lines until it goes.
func (b *Broker) read(p *peer) {
	sc := bufio.NewScanner(p.conn)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		line := sc.Bytes()
		typ, err := decodeType(line)
		if err != nil {
			b.detach(p, "it sent "+err.Error())
			return
		}
		if typ != typeAnswer {
			continue // hellos and types of later versions
		}
		var a answerMsg
		if err := json.Unmarshal(line, &a); err != nil {
			b.detach(p, "it sent a malformed answer: "+err.Error())
			return
		}
		if err := checkAnswer(a); err != nil {
			b.detach(p, "it sent "+err.Error())
			return
		}
		b.answered(p, a)
	}
	why := "it closed the connection"
	if err := sc.Err(); err != nil {
		why = err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			why = fmt.Sprintf("it sent a line over %d bytes", MaxLine)
		}
	}
	b.detach(p, why)
}

// answered hands a's answer to the waiting Answer call and withdraws the ask from the
// other inboxes. An answer to an ask no longer pending is ignored.
func (b *Broker) answered(from *peer, a answerMsg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ask, ok := b.asks[a.ID]
	if !ok {
		return
	}
	delete(b.asks, a.ID)
	ask.answered <- elicit.Response{Action: a.Action, Content: a.Content}
	b.withdrawLocked(a.ID, "answered in another inbox", from)
}

// withdrawLocked queues a withdrawal of id to every peer but except.
func (b *Broker) withdrawLocked(id uint64, reason string, except *peer) {
	line, err := encode(withdrawMsg{Type: typeWithdraw, ID: id, Reason: reason})
	if err != nil {
		return
	}
	for p := range b.peers {
		if p != except {
			p.send(line)
		}
	}
}

// Answer implements elicit.Answerer: it sends req to every attached inbox and returns
// the first answer. With no inbox attached it notifies (BrokerOptions.Notify) and
// waits for one; an inbox that attaches later gets the ask. When ctx is done first the
// ask is withdrawn from every inbox, with ctx's cause as the reason when it has one
// (context.WithCancelCause), and ctx's error returned. Sampling requests are not taken.
func (b *Broker) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	if req.Mode == elicit.ModeSampling {
		return elicit.Response{}, fmt.Errorf("the inbox answers elicitations only, not sampling: %w", elicit.ErrUnanswered)
	}
	deadline, _ := ctx.Deadline()
	mode := req.Mode
	if mode == "" {
		mode = elicit.ModeForm
	}
	// No message text in the log: the question may quote what the user works on.
	who := fmt.Sprintf("%s (%s mode)", label(req.Host, req.ServerLabel()), mode)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return elicit.Response{}, ErrClosed
	}
	if b.opts.Host == "" && req.Host != "" {
		b.opts.Host = req.Host // the host named itself after Listen: later hellos say it
	}
	b.next++
	id := b.next
	line, err := encode(askMsg{Type: typeAsk, ID: id, Request: toWire(req, deadline)})
	if err != nil {
		b.mu.Unlock()
		return elicit.Response{}, err
	}
	ask := &pendingAsk{line: line, who: who, answered: make(chan elicit.Response, 1)}
	b.asks[id] = ask
	for p := range b.peers {
		p.send(line)
	}
	attached := len(b.peers)
	b.mu.Unlock()

	if attached == 0 {
		b.logf("#%d: %s asks; no inbox attached: run `elicitty inbox` in a terminal to answer", id, who)
		if b.opts.Notify != nil {
			b.opts.Notify("elicitty: "+label(req.Host, req.ServerLabel())+" asks for input", firstLine(req.Message))
		}
	} else {
		b.logf("#%d: %s asks; sent to %d inbox(es)", id, who, attached)
	}
	select {
	case r := <-ask.answered:
		b.logf("#%d answered: %s", id, r.Action)
		return r, nil
	case <-ctx.Done():
	case <-b.done:
	}
	b.mu.Lock()
	if _, ok := b.asks[id]; !ok {
		b.mu.Unlock()
		r := <-ask.answered // answered just now
		b.logf("#%d answered: %s", id, r.Action)
		return r, nil
	}
	delete(b.asks, id)
	reason := "cancelled by the server"
	err = ctx.Err()
	switch {
	case err == nil:
		reason, err = "the proxy stopped", ErrClosed
	case errors.Is(err, context.DeadlineExceeded):
		reason = "no answer in time"
	case context.Cause(ctx) != err:
		reason = context.Cause(ctx).Error() // why the proxy stopped asking
	}
	b.withdrawLocked(id, reason, nil)
	b.mu.Unlock()
	b.logf("#%d withdrawn: %s", id, reason)
	return elicit.Response{}, err
}

// label is how an ask names its asker: "host › server", or the server alone.
func label(host, server string) string {
	if host == "" {
		return safe.Line(server)
	}
	return safe.Line(host) + " › " + safe.Line(server)
}

// firstLine is s up to its first newline, at most 200 bytes.
func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	return safe.Cut(s, 200)
}

// send queues line for p without blocking; a peer whose queue is full is dropped.
// The caller holds the broker's lock, which orders the lines of every peer.
func (p *peer) send(line []byte) {
	select {
	case <-p.gone:
	case p.out <- line:
	default:
		p.drop()
	}
}

// write writes p's queued lines until it goes.
func (p *peer) write() {
	for {
		select {
		case <-p.gone:
			return
		case line := <-p.out:
			_ = p.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := p.conn.Write(line); err != nil {
				p.drop()
				return
			}
		}
	}
}

// drop closes p's connection once.
func (p *peer) drop() {
	p.once.Do(func() {
		close(p.gone)
		p.conn.Close()
	})
}

var _ elicit.Answerer = (*Broker)(nil)
