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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// Proxy describes one running proxy an inbox is attached to.
type Proxy struct {
	PID     int    `json:"pid"`
	Host    string `json:"host"`   // the host's clientInfo.name, sanitized
	Server  string `json:"server"` // the server's name, sanitized
	Pending int    `json:"pending"`
	Socket  string `json:"socket"`
}

// Label is how the proxy is shown: "host › server", or the server alone.
func (p Proxy) Label() string { return label(p.Host, p.Server) }

// Ask is one question of a proxy for the user. Reply sends the answer; the Handler's
// context ends when the proxy withdraws the ask (answered elsewhere, expired,
// cancelled by the server) or goes away, with the reason as its cause.
type Ask struct {
	Proxy   Proxy
	Request *elicit.Request
	Reply   func(elicit.Response) error
}

// Handler answers one Ask; Watch calls it on a goroutine of its own per ask.
type Handler func(ctx context.Context, a Ask)

// WatchOptions configures Watch; the zero value is usable.
type WatchOptions struct {
	// Log receives one sanitized line per proxy attached, gone or refused; nil
	// discards them.
	Log io.Writer
	// Poll is how often the directory is read for new proxies; zero means 500 ms.
	Poll time.Duration
	// OnChange, when set, gets the attached proxies (by pid) after each change.
	OnChange func([]Proxy)
}

// dialTimeout bounds connecting to a proxy and reading its hello.
const dialTimeout = 2 * time.Second

// Withdrawn is the cause of an Ask's context when the proxy takes it back or goes.
type Withdrawn struct {
	Reason  string
	dropped bool // the inbox dropped the proxy for breaking the protocol
}

// Error implements error.
func (w *Withdrawn) Error() string { return w.Reason }

// watcher is the state of one Watch.
type watcher struct {
	dirs []string
	h    Handler
	opts WatchOptions
	mu   sync.Mutex
	logs sync.Mutex
	// changes orders the OnChange calls: each reports a list taken after the last.
	changes sync.Mutex
	conn    map[string]*proxyConn // by socket path
	bad     map[string]bool       // sockets that failed, logged once
	// banned are the proxies dropped for breaking the protocol: not attached again.
	banned map[string]bool
	// badDir is the problem last logged for each refused directory.
	badDir map[string]string
	wg     sync.WaitGroup
}

// proxyConn is the connection to one proxy.
type proxyConn struct {
	info Proxy
	conn *net.UnixConn
	wmu  sync.Mutex
	mu   sync.Mutex
	asks map[uint64]context.CancelCauseFunc
}

// Watch attaches to every proxy in dir, a RuntimeDir, and to each one that starts
// later, until ctx is done; it calls h for each ask. It refuses a dir another user
// could use. When it returns, every connection is closed and every handler's context
// has ended.
func Watch(ctx context.Context, dir string, h Handler, opts *WatchOptions) error {
	if err := checkDir(dir); err != nil {
		return err
	}
	return WatchDirs(ctx, []string{dir}, h, opts)
}

// WatchDirs is Watch over several directories (Places.Search): a directory that does
// not exist yet is looked at again on each poll, and one refused (another user's, open
// to others) is skipped with one line in the log.
func WatchDirs(ctx context.Context, dirs []string, h Handler, opts *WatchOptions) error {
	w := &watcher{dirs: dirs, h: h, conn: map[string]*proxyConn{}, bad: map[string]bool{}, banned: map[string]bool{},
		badDir: map[string]string{}}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.Log == nil {
		w.opts.Log = io.Discard
	}
	if w.opts.Poll <= 0 {
		w.opts.Poll = 500 * time.Millisecond
	}
	ctx, stop := context.WithCancel(ctx)
	defer func() {
		stop()
		w.wg.Wait()
	}()
	t := time.NewTicker(w.opts.Poll)
	defer t.Stop()
	for {
		w.scan(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (w *watcher) logf(format string, args ...any) {
	w.logs.Lock()
	defer w.logs.Unlock()
	fmt.Fprintln(w.opts.Log, "elicitty: inbox: "+safe.Line(fmt.Sprintf(format, args...)))
}

// sockets lists the proxies' sockets of the watched directories that may be read,
// logging a refused directory once per problem.
func (w *watcher) sockets() []string {
	var paths []string
	var seen []os.FileInfo
	for _, dir := range w.dirs {
		pl := inspect(dir, os.Getuid())
		switch {
		case pl.Missing:
			delete(w.badDir, dir)
			continue
		case pl.Problem != "":
			if w.badDir[dir] != pl.Problem {
				w.badDir[dir] = pl.Problem
				w.logf("not looking in %s: %s", dir, pl.Problem)
			}
			continue
		}
		delete(w.badDir, dir)
		if sameAsOne(dir, &seen) {
			continue // reached by another name (a symlinked parent)
		}
		found, _ := filepath.Glob(filepath.Join(dir, socketPattern))
		paths = append(paths, found...)
	}
	return paths
}

// sameAsOne reports whether dir is one of the directories in seen, and adds it when
// it is not.
func sameAsOne(dir string, seen *[]os.FileInfo) bool {
	fi, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for _, s := range *seen {
		if os.SameFile(s, fi) {
			return true
		}
	}
	*seen = append(*seen, fi)
	return false
}

// scan attaches to the proxies of the directories not attached yet.
func (w *watcher) scan(ctx context.Context) {
	for _, path := range w.sockets() {
		w.mu.Lock()
		_, known := w.conn[path]
		known = known || w.banned[path]
		w.mu.Unlock()
		if known {
			continue
		}
		pc, pending, err := dial(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.mu.Lock()
			logged := w.bad[path]
			w.bad[path] = true
			w.mu.Unlock()
			if removeStale(path, err) {
				w.logf("removed %s: its proxy is gone", filepath.Base(path))
			} else if !logged {
				w.logf("cannot attach to %s: %v", filepath.Base(path), err)
			}
			continue
		}
		w.mu.Lock()
		delete(w.bad, path)
		w.conn[path] = pc
		w.mu.Unlock()
		w.logf("attached to %s (pid %d)", pc.proxy().Label(), pc.info.PID)
		w.changed()
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			why := w.read(ctx, pc, pending)
			pc.conn.Close()
			pc.withdrawAll(why)
			w.mu.Lock()
			delete(w.conn, path)
			if why.dropped {
				w.banned[path] = true
			}
			w.mu.Unlock()
			w.logf("%s (pid %d): %s", pc.proxy().Label(), pc.info.PID, why.Reason)
			w.changed()
		}()
	}
}

// changed reports the attached proxies to OnChange.
func (w *watcher) changed() {
	if w.opts.OnChange == nil {
		return
	}
	w.changes.Lock()
	defer w.changes.Unlock()
	w.mu.Lock()
	ps := make([]Proxy, 0, len(w.conn))
	for _, pc := range w.conn {
		ps = append(ps, pc.proxy())
	}
	w.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].PID < ps[j].PID })
	w.opts.OnChange(ps)
}

// dial connects to the proxy at path, checks that it runs as this user, and reads its
// hello. It returns the reader positioned after the hello.
func dial(ctx context.Context, path string) (*proxyConn, *bufio.Scanner, error) {
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, nil, err
	}
	uc := c.(*net.UnixConn)
	uid, _, err := peerCred(uc)
	if err == nil && uid != os.Getuid() {
		err = fmt.Errorf("it runs as uid %d, not as this user (uid %d)", uid, os.Getuid())
	}
	if err != nil {
		uc.Close()
		return nil, nil, err
	}
	_ = uc.SetReadDeadline(time.Now().Add(dialTimeout))
	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	sc := bufio.NewScanner(uc)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var hello helloMsg
	switch {
	case !sc.Scan():
		err = fmt.Errorf("no hello: %w", errors.Join(sc.Err(), io.ErrUnexpectedEOF))
	default:
		if jerr := json.Unmarshal(sc.Bytes(), &hello); jerr != nil || hello.Type != typeHello {
			err = errors.New("the first line is not a hello")
		} else if hello.Version != Version {
			err = fmt.Errorf("it speaks inbox protocol %d, this inbox %d", hello.Version, Version)
		}
	}
	if err != nil {
		uc.Close()
		return nil, nil, err
	}
	_ = uc.SetReadDeadline(time.Time{})
	pc := &proxyConn{conn: uc, asks: map[uint64]context.CancelCauseFunc{},
		info: Proxy{PID: hello.PID, Host: safe.Line(hello.Host), Server: safe.Line(hello.Server), Pending: hello.Pending, Socket: path}}
	return pc, sc, nil
}

// removeStale removes the socket at path when nothing listens on it and the process
// its name names is gone (a proxy that crashed); it reports whether it did.
func removeStale(path string, err error) bool {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	pid, perr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "proxy-"), ".sock"))
	if perr != nil || pid <= 0 || processAlive(pid) {
		return false
	}
	return os.Remove(path) == nil
}

// read handles the proxy's messages until it goes or ctx is done; it returns why.
func (w *watcher) read(ctx context.Context, pc *proxyConn, sc *bufio.Scanner) *Withdrawn {
	stop := context.AfterFunc(ctx, func() { pc.conn.Close() })
	defer stop()
	for sc.Scan() {
		line := sc.Bytes()
		typ, err := decodeType(line)
		if err != nil {
			return &Withdrawn{Reason: "dropped: it sent " + err.Error(), dropped: true}
		}
		switch typ {
		case typeHello:
			// A later hello names the host once the proxy knows it.
			var m helloMsg
			if err := json.Unmarshal(line, &m); err != nil {
				return &Withdrawn{Reason: "dropped: it sent a malformed hello: " + err.Error(), dropped: true}
			}
			if m.Host != "" && pc.learnHost(safe.Line(m.Host)) {
				w.changed()
			}
		case typeAsk:
			var m askMsg
			if err := json.Unmarshal(line, &m); err != nil {
				return &Withdrawn{Reason: "dropped: it sent a malformed ask: " + err.Error(), dropped: true}
			}
			req, err := m.Request.request()
			if err != nil {
				w.logf("%s: ask #%d ignored: %v", pc.proxy().Label(), m.ID, err)
				continue
			}
			if req.Host == "" {
				req.Host = pc.proxy().Host
			} else if pc.learnHost(req.Host) {
				w.changed()
			}
			w.ask(ctx, pc, m.ID, req)
		case typeWithdraw:
			var m withdrawMsg
			if err := json.Unmarshal(line, &m); err != nil {
				return &Withdrawn{Reason: "dropped: it sent a malformed withdrawal: " + err.Error(), dropped: true}
			}
			pc.withdraw(m.ID, &Withdrawn{Reason: "withdrawn: " + safe.Line(m.Reason)})
		}
	}
	if ctx.Err() != nil {
		return &Withdrawn{Reason: "detached"}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return &Withdrawn{Reason: fmt.Sprintf("dropped: it sent a line over %d bytes", MaxLine), dropped: true}
	}
	return &Withdrawn{Reason: "the proxy went away"}
}

// ask starts the handler of ask id.
func (w *watcher) ask(ctx context.Context, pc *proxyConn, id uint64, req *elicit.Request) {
	actx, cancel := context.WithCancelCause(ctx)
	pc.mu.Lock()
	if _, dup := pc.asks[id]; dup {
		pc.mu.Unlock()
		cancel(nil)
		return
	}
	pc.asks[id] = cancel
	pc.mu.Unlock()
	w.changed()
	a := Ask{Proxy: pc.proxy(), Request: req, Reply: func(r elicit.Response) error {
		if !pc.withdraw(id, &Withdrawn{Reason: "answered"}) {
			return errors.New("the ask was withdrawn")
		}
		w.changed()
		return pc.write(answerMsg{Type: typeAnswer, ID: id, Action: r.Action, Content: r.Content})
	}}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel(nil)
		w.h(actx, a)
	}()
}

// proxy returns the proxy's description with its pending count now.
func (pc *proxyConn) proxy() Proxy {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	p := pc.info
	p.Pending = len(pc.asks)
	return p
}

// learnHost takes the host's name from a later hello or an ask when the first hello
// had none (the host named itself after the proxy started); it reports whether it did.
func (pc *proxyConn) learnHost(host string) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.info.Host != "" {
		return false
	}
	pc.info.Host = host
	return true
}

// withdraw ends ask id with cause; it reports whether the ask was still pending.
func (pc *proxyConn) withdraw(id uint64, cause error) bool {
	pc.mu.Lock()
	cancel, ok := pc.asks[id]
	delete(pc.asks, id)
	pc.mu.Unlock()
	if ok {
		cancel(cause)
	}
	return ok
}

// withdrawAll ends every ask with cause.
func (pc *proxyConn) withdrawAll(cause error) {
	pc.mu.Lock()
	asks := pc.asks
	pc.asks = map[uint64]context.CancelCauseFunc{}
	pc.mu.Unlock()
	for _, cancel := range asks {
		cancel(cause)
	}
}

// write sends one message to the proxy.
func (pc *proxyConn) write(m any) error {
	line, err := encode(m)
	if err != nil {
		return err
	}
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	_ = pc.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := pc.conn.Write(line); err != nil {
		return fmt.Errorf("answer the proxy: %w", err)
	}
	return nil
}

// List returns the running proxies of dir, a RuntimeDir, without attaching to them
// for long: it reads each one's hello and disconnects. Sockets it cannot reach are
// left out.
func List(ctx context.Context, dir string) ([]Proxy, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	return ListDirs(ctx, []string{dir}), nil
}

// ListDirs is List over several directories (Places.Search); the directories that do
// not exist or are refused are left out (Places.Inspect says why).
func ListDirs(ctx context.Context, dirs []string) []Proxy {
	var ps []Proxy
	var seen []os.FileInfo
	for _, dir := range dirs {
		if inspect(dir, os.Getuid()).Problem != "" || sameAsOne(dir, &seen) {
			continue
		}
		paths, _ := filepath.Glob(filepath.Join(dir, socketPattern))
		for _, path := range paths {
			pc, _, err := dial(ctx, path)
			if err != nil {
				removeStale(path, err)
				continue
			}
			pc.conn.Close()
			ps = append(ps, pc.info)
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].PID < ps[j].PID })
	return ps
}

// AnswerWith returns a Handler that asks a for each ask and replies with its answer;
// when a fails (the ask withdrawn, the program gone) nothing is sent.
func AnswerWith(a elicit.Answerer) Handler {
	return func(ctx context.Context, ask Ask) {
		r, err := a.Answer(ctx, ask.Request)
		if err != nil || ctx.Err() != nil {
			return
		}
		_ = ask.Reply(r)
	}
}
