package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// DefaultWait bounds each question the proxy asks (Options.Wait).
const DefaultWait = 10 * time.Minute

// DefaultProgress is how often a host request waiting for a person gets a progress
// notification (Options.Progress): well within the 60 s request timeout of the
// TypeScript SDK, whose hosts may reset it on progress.
const DefaultProgress = 10 * time.Second

// Limits of what the proxy keeps and retries.
const (
	// maxRounds caps the input_required rounds the proxy answers for one host request.
	maxRounds = 16
	// maxURLRounds caps the -32042 errors the proxy answers for one host request.
	maxURLRounds = 8
	// maxKept bounds the tables of server requests and URL elicitations, and the
	// entries of one -32042 error or input_required round the proxy answers.
	maxKept = 256
	// maxPushBytes bounds the params of the server's questions open at once (two
	// messages of the largest size): 256 questions of 16 MiB would hold 4 GiB.
	maxPushBytes = 2 * jsonrpcio.MaxFrame
	// maxHeldBytes bounds the responses kept for the host's next identical call.
	maxHeldBytes = 2 * jsonrpcio.MaxFrame
	// maxKeptID bounds an elicitationId the proxy keeps after its question ended.
	maxKeptID = 1024
	// closeGrace is how long the server may take to end after the host left.
	closeGrace = 2 * time.Second
	// hostQueue is how many host messages wait, read, for the server to take them: the
	// host's end of input is seen even while a server that does not read holds a send.
	hostQueue = 16
	// maxLogLine bounds one log line.
	maxLogLine = 2000
)

// Options configure a Proxy. The zero value answers nothing (every question is
// cancelled) and logs nothing.
type Options struct {
	// Server is the configured name of the server, as questions name it.
	Server string
	// Answerer answers the questions the proxy takes on; New wraps it in an
	// elicit.Engine (defaults merged, content validated). Nil cancels every question.
	Answerer elicit.Answerer
	// NoValidate sends accepted content without validating it (--no-validate).
	NoValidate bool
	// AnswerHere makes the proxy answer every elicitation even when the host declared
	// the mode itself (--answer-here).
	AnswerHere bool
	// Wait bounds each Answer call and each wait for a URL completion; zero means
	// DefaultWait. Past it the question is cancelled (a -32042 error is passed on).
	Wait time.Duration
	// RetryNow reports whether a -32042 entry's retry may go out without waiting for
	// its completion notification (an answers file's "retry: now"); nil never.
	RetryNow func(*elicit.Request) bool
	// Waits, when set, is asked while a -32042 call waits for the URL elicitations the
	// user accepted to complete (an inbox's waiting screen, proxy/wait.go); nil leaves
	// the wait to the completions and Wait.
	Waits elicit.Answerer
	// MaxLine bounds one message from the host; zero means jsonrpcio.MaxFrame.
	MaxLine int
	// Logf receives the proxy's log lines (no message contents but method and tool
	// names, sanitized); nil keeps none.
	Logf func(format string, args ...any)
	// Keep is how long a call the host gave up on while a person was asked stays
	// alive after its questions ended, for the host's next identical call to get its
	// response (a question itself lasts until its Wait deadline); zero means Wait.
	Keep time.Duration
	// Progress is how often a host request waiting for a person's answer gets
	// notifications/progress (when it carried a progressToken); zero means
	// DefaultProgress, negative never.
	Progress time.Duration
	// OnHost, when set, gets the host's name (clientInfo.name, as sent) once the host
	// names itself: in its initialize, or in a 2026-07-28 request's _meta.
	OnHost func(name string)
}

// Proxy relays one host's MCP session to one server and answers the questions the host
// cannot (doc.go). Use New, then Run once. It is safe for concurrent use.
type Proxy struct {
	opts     Options
	answerer elicit.Answerer
	up       Upstream

	outMu  sync.Mutex // guards out
	out    *bufio.Writer
	sendMu sync.Mutex // orders writes to the server

	ctx context.Context // Run's context

	nSig atomic.Int32 // len(bySig), read without the lock on the hot path

	mu             sync.Mutex
	caps           modes                              // the host's elicitation modes from initialize
	legacy         bool                               // the session is 2025-06-18 (no URL mode)
	hostName       string                             // the host's clientInfo.name
	protocol       string                             // negotiated protocol version
	serverInfo     string                             // the server's serverInfo.name
	pending        map[string]*call                   // host requests in flight, by id
	pushes         map[string]context.CancelCauseFunc // server elicitations the proxy answers, by id
	pushBytes      int                                // the params bytes of those in pushes
	waits          map[string]*urlWait                // URL elicitations awaited, by elicitationId
	answeredURL    map[string]bool                    // elicitationIds of pushed URL requests answered here
	bySig          map[string]*call                   // calls a person is asked about, by signature (keep.go)
	joinedIDs      map[string]*call                   // host requests joined to such a call, by host id
	answered       map[string]bool                    // ids of server requests the proxy answered
	answeredOrder  []string                           // the same, oldest first
	heldBytes      int                                // the bytes of the responses kept in calls (keep.go)
	serverProgress map[string]float64                 // the server's latest progress value per token
	wg             sync.WaitGroup                     // answering goroutines
	closing        bool                               // Run is ending: no more answering goroutines
}

// call is a host request in flight.
type call struct {
	id     jsonrpc.ID
	idRaw  []byte
	method string
	name   string // tool or prompt name, resource URI
	line   []byte // the message as sent upstream (edited when the proxy added a mode)
	modes  modes  // declared in the request itself (2026-07-28), else none
	meta   bool   // the request carried its own capabilities (2026-07-28)
	proto  string // the request's own protocol version (2026-07-28)
	// cancel stops the proxy's work on the call (answering, waiting, retrying); nil
	// while the call is simply in flight.
	cancel    context.CancelCauseFunc
	rounds    int // input_required rounds answered
	urlRounds int // -32042 errors answered
	cancelled bool

	// What keeps a call a person is asked about alive past the host's patience
	// (keep.go); all guarded by Proxy.mu.
	asked     bool                      // a person was asked for it
	sig       string                    // its signature, "" when it has none
	asking    int                       // its questions open now
	gone      bool                      // the host cancelled the original request
	joined    []hostReq                 // identical host requests joined to it
	keepUntil time.Time                 // when it may be dropped, once nobody waits
	timer     *time.Timer               // its expiry
	done      bool                      // the server's final response came
	held      []byte                    // that response, kept for the next identical call
	sentTo    []string                  // the host ids it was sent to, not cancelled since
	stops     []context.CancelCauseFunc // the server's questions asked for it
	token     json.RawMessage           // the original request's progressToken
	tokenRead bool                      // token was read
	prog      float64                   // the last progress value sent for it
}

// New returns a proxy relaying to up.
func New(up Upstream, opts Options) *Proxy {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.Keep <= 0 {
		opts.Keep = opts.Wait
	}
	if opts.Progress == 0 {
		opts.Progress = DefaultProgress
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = jsonrpcio.MaxFrame
	}
	var ans elicit.Answerer
	if opts.Answerer != nil {
		ans = elicit.NewEngine(opts.Answerer, &elicit.EngineOptions{NoValidate: opts.NoValidate})
	}
	p := &Proxy{
		opts:           opts,
		answerer:       ans,
		up:             up,
		pending:        map[string]*call{},
		pushes:         map[string]context.CancelCauseFunc{},
		waits:          map[string]*urlWait{},
		answeredURL:    map[string]bool{},
		bySig:          map[string]*call{},
		joinedIDs:      map[string]*call{},
		answered:       map[string]bool{},
		serverProgress: map[string]float64{},
	}
	if d, ok := up.(interface{ onDropped(func([]byte)) }); ok {
		d.onDropped(p.serverDropped)
	}
	return p
}

// serverDropped fails the host request whose response the upstream dropped for its
// size, so the host does not wait for it; a server request dropped for its size is
// answered with an error, so the server does not wait for it either.
func (p *Proxy) serverDropped(prefix []byte) {
	id, isReq, ok := jsonrpcio.FrameID(prefix)
	if !ok {
		return
	}
	if isReq {
		p.logf("refused a server request over the size limit (id %v)", id.Raw())
		b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest, Message: "elicitty proxy: the request was over the size limit and was dropped unread"}})
		if err == nil {
			_ = p.toServer(b) // a server gone ends Run on its own
		}
		return
	}
	p.mu.Lock()
	c := p.pending[idKey(id)]
	busy := c != nil && c.cancel != nil // a second response, dropped as fromServer does
	p.mu.Unlock()
	if c != nil && !busy {
		p.failCall(c, "elicitty proxy: the server's response was over the size limit and was dropped")
	}
}

// ErrServerExited reports that the server ended the session before the host did.
var ErrServerExited = errors.New("the server ended the session")

// Run relays between the host (messages read from hostIn, written to hostOut, one
// JSON-RPC message a line) and the server until one of them ends or ctx is done. When
// the host's input ends, its requests in flight get a grace period to finish, then the
// server is told (its stdin closed), given a grace period and stopped, and Run returns
// nil. When the server ends first, Run returns an
// error wrapping ErrServerExited. Run is called once.
func (p *Proxy) Run(ctx context.Context, hostIn io.Reader, hostOut io.Writer) error {
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(errStopped) }
	defer cancel()
	p.ctx = ctx
	p.out = bufio.NewWriterSize(hostOut, 64<<10)
	hostDone := make(chan error, 1)
	relayed := make(chan struct{}) // closed once every host message read was handled
	go p.readHost(hostIn, hostDone, relayed)
	serverDone := make(chan error, 1)
	go func() { serverDone <- p.up.Receive(ctx, p.fromServer) }()
	var err error
	select {
	case herr := <-hostDone:
		if herr != nil {
			p.logf("reading the host: %v", herr)
		}
		p.drain(relayed, closeGrace)
		p.logf("the host closed its input; stopping the server")
		cancel()         // questions still open are abandoned
		_ = p.up.Close() // a send the server never took fails now
		waitBounded(serverDone, closeGrace)
		waitBounded(relayed, closeGrace)
	case serr := <-serverDone:
		if ctx.Err() == nil {
			if serr == nil {
				serr = errors.New("its output ended")
			}
			p.logf("the server ended the session: %v", serr)
			err = fmt.Errorf("%w: %w", ErrServerExited, serr)
		}
		cancel()
		_ = p.up.Close()
	case <-ctx.Done():
		p.logf("interrupted; stopping the server")
		_ = p.up.Close()
		waitBounded(serverDone, closeGrace)
		err = ctx.Err()
	}
	p.mu.Lock()
	p.closing = true // no wg.Add may race the Wait below
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// spawn runs f on a goroutine Run waits for; once Run is ending, f is not run.
func (p *Proxy) spawn(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f()
	}()
}

// drain gives the host's messages still queued (until relayed is closed) and its
// requests in flight up to d to finish (a host that wrote its requests and closed its
// input, as a script does, still gets their results).
func (p *Proxy) drain(relayed <-chan struct{}, d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		n := 0
		for _, c := range p.pending {
			if c.hasLive() { // not a call kept for a host that gave up
				n++
			}
		}
		p.mu.Unlock()
		select {
		case <-relayed:
		default:
			n++
		}
		if n == 0 || time.Now().After(deadline) || p.ctx.Err() != nil {
			return
		}
		time.Sleep(10 * time.Millisecond) // no event marks the last response; polling is bounded
	}
}

// waitBounded waits for ch up to d.
func waitBounded[T any](ch <-chan T, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// logf writes one log line (LogLine).
func (p *Proxy) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf("%s", LogLine(format, args...))
	}
}

// LogLine formats one line of the proxy's log: without control characters or line
// breaks, and of at most 2000 bytes (server-controlled text in it, a serverInfo name,
// an elicitationId or a stderr line, can be of any length).
func LogLine(format string, args ...any) string {
	return safe.Cut(safe.Line(fmt.Sprintf(format, args...)), maxLogLine)
}

// readHost relays the host's messages until its input ends, then sends the reader's
// error (nil at the end of input) on done; relayed is closed once every message read
// was handled.
//
// Each message is relayed by the goroutine that read it: no hand-off between
// goroutines on the way to the server. When relaying one takes longer than
// stuckSend (a server that does not read its stdin holds the send), a new goroutine
// takes over reading, queueing what it reads (hostQueue), so that the host's end of
// input is still seen; the reading goroutine then relays the queue, for the rest of
// the session.
func (p *Proxy) readHost(r io.Reader, done chan<- error, relayed chan<- struct{}) {
	lr := jsonrpcio.NewLineReader(r, p.opts.MaxLine)
	queue := make(chan []byte, hostQueue)
	// A ticker, not a timer armed per message: arming one wakes the runtime's poller
	// (a system call and a thread woken per message).
	var mu sync.Mutex
	var busy time.Time // when the message being relayed was read; zero when none is
	queued := false
	watch := time.NewTicker(stuckSend)
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		defer watch.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case now := <-watch.C:
				mu.Lock()
				stuck := !queued && !busy.IsZero() && now.Sub(busy) > stuckSend
				if stuck {
					queued = true
				}
				mu.Unlock()
				if stuck {
					p.logf("the server is slow to take the host's messages; queueing them")
					go func() { done <- p.readLines(lr, func(msg []byte) { queue <- msg }, queue, nil) }()
					return
				}
			}
		}
	}()
	takenOver := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return queued
	}
	err := p.readLines(lr, func(msg []byte) {
		mu.Lock()
		busy = time.Now()
		mu.Unlock()
		p.fromHost(msg)
		mu.Lock()
		busy = time.Time{}
		mu.Unlock()
	}, nil, takenOver)
	if !takenOver() {
		close(relayed)
		done <- err
		return
	}
	// Taken over while relaying: the reader feeds queue, this goroutine relays it.
	for msg := range queue {
		p.fromHost(msg)
	}
	close(relayed)
}

// stuckSend is how long relaying one host message may take before another goroutine
// takes over reading the host (readHost).
const stuckSend = 100 * time.Millisecond

// readLines reads the host's messages from lr and hands each to relay until the input
// ends, or until stopped reports true after a relay (nil: never); queue, when set, is
// closed at the end.
func (p *Proxy) readLines(lr *jsonrpcio.LineReader, relay func([]byte), queue chan []byte, stopped func() bool) error {
	if queue != nil {
		defer close(queue)
	}
	for {
		line, tooLong, err := lr.Next()
		switch {
		case tooLong:
			p.tooLong(line)
		default:
			if msg := bytes.TrimSpace(line); len(msg) > 0 {
				relay(bytes.Clone(msg))
				if stopped != nil && stopped() {
					return nil // another goroutine reads now
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// tooLong drops a host message over the bound; a request among them is answered with
// an error so the host does not wait for it.
func (p *Proxy) tooLong(prefix []byte) {
	id, isReq, ok := jsonrpcio.FrameID(prefix)
	p.logf("dropped a host message longer than %d bytes", p.opts.MaxLine)
	if !ok || !isReq {
		return
	}
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("elicitty proxy: message longer than %d bytes dropped", p.opts.MaxLine)}})
	p.toHost(b)
}

// toHost writes one message to the host.
func (p *Proxy) toHost(msg []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	_, _ = p.out.Write(msg)
	_ = p.out.WriteByte('\n')
	if err := p.out.Flush(); err != nil {
		p.out.Reset(io.Discard) // the host is gone; Run ends on its input
	}
}

// toServer sends one message to the server.
func (p *Proxy) toServer(msg []byte) error {
	if cu, ok := p.up.(concurrentCalls); !ok || !cu.concurrentCalls() {
		p.sendMu.Lock()
		defer p.sendMu.Unlock()
	}
	return p.up.Send(p.ctx, msg)
}

// idKey is the lookup key of a JSON-RPC id: numbers and strings never collide.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return "s" + v
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	}
	return ""
}

// fromHost relays one message from the host, taking note of what the proxy needs.
func (p *Proxy) fromHost(msg []byte) {
	env, err := jsonrpcio.ParseEnvelope(msg)
	if err != nil {
		// Not ours to judge: the server answers it as it would the host.
		p.logf("passing on a host message that is not valid JSON-RPC: %v", err)
		p.sendOrFail(msg, nil)
		return
	}
	if !env.IsRequest() {
		if p.ownsServerRequest(env.ID) {
			// The person answers the questions the proxy took on, never the host.
			p.logf("refused a response of the host to server request %s, which elicitty answers: not passed on", safe.Block(string(env.IDRaw)))
			return
		}
		p.sendOrFail(msg, nil) // the host's answer to a server request (sampling, roots, ping)
		return
	}
	method := env.Method
	switch {
	case method == "notifications/cancelled":
		if msg = p.hostCancelled(&env, msg); msg == nil {
			return
		}
	case method == "initialize":
		msg = p.hostInitialize(&env, msg)
	default:
		msg = p.requestModes(&env, msg)
	}
	if !env.IsCall() {
		p.sendOrFail(msg, nil)
		return
	}
	c := &call{id: env.ID, idRaw: append([]byte(nil), env.IDRaw...), method: method, line: msg}
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		c.name = callName(env.Params)
	}
	if c.name != "" && p.nSig.Load() > 0 && p.join(c, msg) {
		return // the same call as one a person is asked about: it runs once
	}
	c.modes, c.meta, c.proto = requestCaps(env.Params)
	key := idKey(c.id)
	p.mu.Lock()
	if old := p.pending[key]; old != nil && old.asked {
		p.mu.Unlock()
		p.logf("refused a host request under the id of a call still kept for it")
		b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "elicitty proxy: this id is still in use by an earlier call a person is answering; send the request under a new id"}})
		p.toHost(b)
		return
	}
	p.pending[key] = c
	p.mu.Unlock()
	p.sendOrFail(msg, c)
}

// sendOrFail sends msg upstream; when that fails for a host request c, the host gets
// an error for it instead of waiting.
func (p *Proxy) sendOrFail(msg []byte, c *call) {
	if c != nil {
		if cu, ok := p.up.(concurrentCalls); ok && cu.concurrentCalls() {
			// Each HTTP request is its own POST: one slow call must not hold the
			// host's later messages (its cancellations above all).
			go p.send(msg, c)
			return
		}
	}
	p.send(msg, c)
}

// send is sendOrFail's sending, on the caller's goroutine.
func (p *Proxy) send(msg []byte, c *call) {
	if err := p.toServer(msg); err != nil {
		p.logf("sending to the server: %v", err)
		if c != nil {
			p.failCall(c, fmt.Sprintf("elicitty proxy: the server is unreachable: %v", err))
		}
	}
}

// failCall answers the host's request c (and those joined to it) with an internal
// error.
func (p *Proxy) failCall(c *call, text string) {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: safe.Block(text)}})
	p.deliver(c, b)
}

// decodeID reads a raw JSON-RPC id.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// callName reads params.name (or params.uri) of a tools/call, prompts/get or
// resources/read, as encoding/json would (keys matched without regard to case, the
// last of a repeated key kept, a value that is not a string ignored) but in one pass
// over the params without decoding them: it runs for every call the host makes.
// params is valid JSON (the envelope was checked).
func callName(params []byte) string {
	s := jsonrpcio.Scanner{B: params}
	s.Space()
	if !s.Eat('{') {
		return ""
	}
	var name, uri []byte
	for {
		s.Space()
		if s.Pos >= len(params) || s.Eat('}') {
			break
		}
		key := params[s.Pos:s.SkipString()]
		s.Space()
		s.Eat(':')
		s.Space()
		start := s.Pos
		s.SkipValue()
		if value := params[start:s.Pos]; len(value) > 0 && value[0] == '"' {
			switch {
			case keyIs(key, "name"):
				name = value
			case keyIs(key, "uri"):
				uri = value
			}
		}
		s.Space()
		s.Eat(',')
	}
	if n := jsonrpcio.JSONString(name); n != "" {
		return n
	}
	return jsonrpcio.JSONString(uri)
}

// keyIs reports whether the raw JSON string key names want, without regard to case as
// encoding/json matches struct fields.
func keyIs(key []byte, want string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return len(key) == len(want)+2 && bytes.EqualFold(key[1:len(key)-1], []byte(want))
	}
	return strings.EqualFold(jsonrpcio.JSONString(key), want)
}

// fromServer handles one message from the server.
func (p *Proxy) fromServer(msg []byte) {
	if !utf8.Valid(msg) {
		// JSON between systems is UTF-8; a strict host decoder would stop on these bytes.
		msg = bytes.ToValidUTF8(msg, []byte("\uFFFD"))
	}
	env, err := jsonrpcio.ParseEnvelope(msg)
	if err != nil {
		if isBatch(msg) {
			p.toHost(msg) // a batch: the host's to read
			return
		}
		p.logf("dropped a server message that is not valid JSON-RPC: %v", err)
		return
	}
	if env.IsRequest() {
		switch env.Method {
		case "elicitation/create":
			if env.IsCall() && p.takePush(&env) {
				return
			}
		case "notifications/cancelled":
			if p.serverCancelled(&env) {
				return
			}
		case "notifications/elicitation/complete":
			if p.completed(&env) {
				return
			}
		case "notifications/progress":
			if k, v, ok := progressOf(&env); ok {
				p.noteProgress(k, v)
				if p.nSig.Load() > 0 && p.fanOutProgress(&env, k, v) {
					return
				}
			}
		}
		if env.IsCall() {
			p.mu.Lock()
			if len(p.answered) > 0 {
				delete(p.answered, idKey(env.ID)) // the id is the host's to answer now
			}
			p.mu.Unlock()
		}
		p.toHost(msg)
		return
	}
	key := idKey(env.ID)
	p.mu.Lock()
	c := p.pending[key]
	busy := c != nil && c.cancel != nil
	asked := c != nil && c.asked
	p.mu.Unlock()
	if c == nil {
		p.toHost(msg) // not a request in flight (a late reply): the host decides
		return
	}
	if busy {
		// The proxy is answering this request's previous response; the host gets one
		// response for its id, the retry's (or that previous one).
		p.logf("dropped another response of the server to %s %s while answering for it", c.method, safe.Block(c.name))
		return
	}
	if c.method == "initialize" && !env.IsError() {
		p.noteInitialized(env.Result)
	} else if c.meta && !env.IsError() {
		p.noteServerMeta(env.Result)
	}
	if env.IsError() && p.takeURLRequired(c, &env, msg) {
		return
	}
	if !env.IsError() && p.takeInputRequired(c, &env, msg) {
		return
	}
	if asked {
		p.deliver(c, msg)
		return
	}
	p.mu.Lock()
	if p.pending[key] == c {
		delete(p.pending, key)
	}
	p.mu.Unlock()
	p.toHost(msg)
}

// isBatch reports a JSON array of objects: a JSON-RPC batch, not a log line that
// starts with '[' ("[INFO] ..."), which must never reach the host's stdout.
func isBatch(msg []byte) bool {
	if len(msg) == 0 || msg[0] != '[' {
		return false
	}
	var items []json.RawMessage
	if json.Unmarshal(msg, &items) != nil || len(items) == 0 {
		return false
	}
	for _, it := range items {
		if it[0] != '{' {
			return false
		}
	}
	return true
}

// inFlight returns the host's tools/call, prompts/get and resources/read in flight:
// the calls a pushed question may belong to.
func (p *Proxy) inFlight() []*call {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found []*call
	for _, c := range p.pending {
		if c.name != "" && !c.done {
			found = append(found, c)
		}
	}
	return found
}

// source is who asks, for the requests built now.
func (p *Proxy) source(proto string) transport.RequestSource {
	p.mu.Lock()
	defer p.mu.Unlock()
	if proto == "" {
		proto = p.protocol
	}
	return transport.RequestSource{Server: p.opts.Server, ServerInfo: p.serverInfo, Host: p.hostName, Protocol: proto, URLDeclared: !p.legacy}
}
