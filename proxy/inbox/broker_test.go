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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// peerEnv selects the helper mode of the test binary: connect to the socket it names,
// print what the proxy said, and exit.
const peerEnv = "ELICITTY_INBOX_TEST_PEER"

func TestMain(m *testing.M) {
	if path := os.Getenv(peerEnv); path != "" {
		os.Exit(peerHelper(path))
	}
	os.Exit(m.Run())
}

// peerHelper connects to path and prints "hello" when the proxy greets it, else why not.
func peerHelper(path string) int {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		fmt.Println("dial:", err)
		return 0
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fmt.Println("read:", err)
		return 0
	}
	if strings.Contains(line, `"type":"hello"`) {
		fmt.Println("hello")
	}
	return 0
}

// privateDir returns a new directory of mode 0700 (t.TempDir's are 0755).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newBroker(t *testing.T, opts BrokerOptions) (*Broker, string, *testkit.LockedBuffer) {
	t.Helper()
	dir := privateDir(t)
	log := &testkit.LockedBuffer{}
	if opts.Log == nil {
		opts.Log = log
	}
	if opts.Host == "" {
		opts.Host, opts.Server = "Claude Desktop", "github"
	}
	b, err := Listen(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, dir, log
}

// watch runs Watch on dir until the test ends.
func watch(t *testing.T, dir string, h Handler, opts *WatchOptions) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if opts == nil {
		opts = &WatchOptions{}
	}
	opts.Poll = 20 * time.Millisecond
	go func() { done <- Watch(ctx, dir, h, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
}

var formReq = &elicit.Request{Server: "github", ServerInfo: "github-mcp", Host: "Claude Desktop", Origin: elicit.OriginPush,
	Call: "tools/call deploy", Tool: "deploy", Protocol: "2025-11-25", Mode: elicit.ModeForm, Message: "Which branch?",
	Schema: json.RawMessage(`{"type":"object","properties":{"branch":{"type":"string"}}}`)}

// asked is one ask a test inbox received.
type asked struct {
	ctx context.Context
	ask Ask
}

// collect returns a Handler that hands every ask to the channel and waits for its end.
func collect() (Handler, chan asked) {
	ch := make(chan asked, 8)
	return func(ctx context.Context, a Ask) {
		ch <- asked{ctx, a}
		<-ctx.Done()
	}, ch
}

func recv(t *testing.T, ch chan asked) asked {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no ask arrived")
	}
	return asked{}
}

func answerAsync(b *Broker, ctx context.Context, req *elicit.Request) chan error {
	done := make(chan error, 1)
	go func() {
		r, err := b.Answer(ctx, req)
		if err == nil && r.Action != elicit.Accept {
			err = fmt.Errorf("action %s", r.Action)
		}
		done <- err
	}()
	return done
}

func TestFirstAnswerWinsOthersWithdrawn(t *testing.T) {
	b, dir, log := newBroker(t, BrokerOptions{})
	h1, ch1 := collect()
	h2, ch2 := collect()
	attached := make(chan []Proxy, 16)
	watch(t, dir, h1, &WatchOptions{OnChange: func(ps []Proxy) { attached <- ps }})
	watch(t, dir, h2, nil)
	testkit.WaitFor(t, "two inboxes", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.peers) == 2 })

	var got elicit.Response
	done := make(chan error, 1)
	go func() {
		var err error
		got, err = b.Answer(context.Background(), formReq)
		done <- err
	}()
	a1, a2 := recv(t, ch1), recv(t, ch2)
	if a1.ask.Request.Message != "Which branch?" || a1.ask.Request.Host != "Claude Desktop" || a1.ask.Request.Server != "github" ||
		a1.ask.Request.Tool != "deploy" || a1.ask.Request.Origin != elicit.OriginPush || string(a1.ask.Request.Schema) != string(formReq.Schema) {
		t.Errorf("the inbox got %+v", a1.ask.Request)
	}
	if a1.ask.Proxy.Label() != "Claude Desktop › github" || a1.ask.Proxy.PID != os.Getpid() {
		t.Errorf("proxy = %+v", a1.ask.Proxy)
	}
	if err := a2.ask.Reply(elicit.Response{Action: elicit.Accept, Content: map[string]any{"branch": "main"}}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Action != elicit.Accept || got.Content["branch"] != "main" {
		t.Errorf("Answer = %+v", got)
	}
	select {
	case <-a1.ctx.Done():
		var w *Withdrawn
		if cause := context.Cause(a1.ctx); !errors.As(cause, &w) || w.Reason != "withdrawn: answered in another inbox" {
			t.Errorf("cause = %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other inbox's ask was not withdrawn")
	}
	// A second answer to the same ask changes nothing.
	if err := a1.ask.Reply(elicit.Response{Action: elicit.Decline}); err == nil {
		t.Error("a reply after the withdrawal was sent")
	}
	if !strings.Contains(log.String(), `#1 answered: accept`) {
		t.Errorf("log:\n%s", log)
	}
}

func TestDeadlineWithdrawsTheAsk(t *testing.T) {
	b, dir, log := newBroker(t, BrokerOptions{})
	h, ch := collect()
	watch(t, dir, h, nil)
	testkit.WaitFor(t, "an inbox", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.peers) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := answerAsync(b, ctx, formReq)
	a := recv(t, ch)
	if d := a.ask.Request.Deadline; d.IsZero() || time.Until(d) > time.Second {
		t.Errorf("the ask's deadline %v is not the proxy's bounded wait", d)
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Answer = %v, want the deadline", err)
	}
	select {
	case <-a.ctx.Done():
		if cause := context.Cause(a.ctx); cause == nil || cause.Error() != "withdrawn: no answer in time" {
			t.Errorf("cause = %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not withdrawn")
	}
	if !strings.Contains(log.String(), "#1 withdrawn: no answer in time") || !strings.Contains(log.String(), "#1: Claude Desktop › github (github-mcp) (form mode) asks; sent to 1 inbox(es)") {
		t.Errorf("log:\n%s", log)
	}
}

// TestCauseWithdrawsTheAskEverywhere: a proxy that stops asking (the host gave up and
// did not come back, the call ended) withdraws the ask from every inbox, which shows
// why; an answer sent after that is refused, never "accepted" to nobody.
func TestCauseWithdrawsTheAskEverywhere(t *testing.T) {
	b, dir, log := newBroker(t, BrokerOptions{})
	h1, ch1 := collect()
	h2, ch2 := collect()
	watch(t, dir, h1, nil)
	watch(t, dir, h2, nil)
	testkit.WaitFor(t, "two inboxes", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.peers) == 2 })
	ctx, cancel := context.WithCancelCause(context.Background())
	done := answerAsync(b, ctx, formReq)
	a1, a2 := recv(t, ch1), recv(t, ch2)
	cancel(errors.New("the host gave up on the call and did not call again"))
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Answer = %v, want cancelled", err)
	}
	for _, a := range []asked{a1, a2} {
		select {
		case <-a.ctx.Done():
			if cause := context.Cause(a.ctx); cause == nil || cause.Error() != "withdrawn: the host gave up on the call and did not call again" {
				t.Errorf("cause = %v", cause)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("not withdrawn")
		}
		if err := a.ask.Reply(elicit.Response{Action: elicit.Accept}); err == nil {
			t.Error("an answer to the withdrawn ask was taken")
		}
	}
	if !strings.Contains(log.String(), "#1 withdrawn: the host gave up") {
		t.Errorf("log:\n%s", log)
	}
}

func TestNobodyAttachedNotifiesThenLateInboxAnswers(t *testing.T) {
	script, out := fakeNotify(t)
	b, dir, log := newBroker(t, BrokerOptions{Notify: DefaultNotifier(func(k string) string {
		if k == "ELICITTY_NOTIFY" {
			return script
		}
		return ""
	})})
	done := answerAsync(b, context.Background(), formReq)
	testkit.WaitFor(t, "the notify command", func() bool { _, err := os.Stat(out); return err == nil })
	if got, _ := os.ReadFile(out); string(got) != "elicitty: Claude Desktop › github (github-mcp) asks for input\nWhich branch?\n" {
		t.Errorf("the notify command got %q", got)
	}
	ps, err := List(context.Background(), dir)
	if err != nil || len(ps) != 1 || ps[0].Pending != 1 || ps[0].Host != "Claude Desktop" {
		t.Fatalf("List = %+v, %v", ps, err)
	}
	watch(t, dir, AnswerWith(elicit.AnswererFunc(func(ctx context.Context, r *elicit.Request) (elicit.Response, error) {
		return elicit.Response{Action: elicit.Accept, Content: map[string]any{"branch": "dev"}}, nil
	})), nil)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the late inbox did not get the pending ask")
	}
	if !strings.Contains(log.String(), "no inbox attached: run `elicitty inbox`") {
		t.Errorf("log:\n%s", log)
	}
}

// fakeNotify writes a notify command that writes its arguments, one a line, to out.
func fakeNotify(t *testing.T) (script, out string) {
	t.Helper()
	testkit.External(t, "sh")
	dir := t.TempDir()
	out = filepath.Join(dir, "args")
	script = filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+out+".tmp && mv "+out+".tmp "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, out
}

func TestCommandNotifierSanitizes(t *testing.T) {
	script, out := fakeNotify(t)
	n := DefaultNotifier(func(k string) string {
		if k == "ELICITTY_NOTIFY" {
			return script + " --urgency=low"
		}
		return ""
	})
	n("elicitty: x asks", "Deploy \x1b[31mnow\x1b]0;pwned\x07?\nsecond line")
	testkit.WaitFor(t, "the notify command", func() bool { _, err := os.Stat(out); return err == nil })
	b, _ := os.ReadFile(out)
	if got, want := string(b), "--urgency=low\nelicitty: x asks\nDeploy now? second line\n"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	if DefaultNotifier(func(string) string { return "off" }) != nil {
		t.Error("ELICITTY_NOTIFY=off still notifies")
	}
}

// rawPeer connects to the broker's socket and reads its hello.
func rawPeer(t *testing.T, b *Broker) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", b.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"type":"hello","version":1`) {
		t.Fatalf("hello = %q, %v", line, err)
	}
	return c, r
}

func TestMalformedPeersAreDropped(t *testing.T) {
	for name, send := range map[string]string{
		"not json":        "hello there\n",
		"unknown action":  `{"type":"answer","id":1,"action":"maybe"}` + "\n",
		"decline content": `{"type":"answer","id":1,"action":"decline","content":{"a":1}}` + "\n",
		"oversize line":   strings.Repeat("x", MaxLine+10),
	} {
		t.Run(name, func(t *testing.T) {
			b, _, log := newBroker(t, BrokerOptions{})
			c, r := rawPeer(t, b)
			if _, err := io.WriteString(c, send); err != nil {
				t.Fatal(err)
			}
			if _, err := r.ReadString('\n'); err == nil {
				t.Fatal("the broker kept the peer")
			}
			testkit.WaitFor(t, "the log line", func() bool { return strings.Contains(log.String(), "detached: it sent") })
			// The broker still serves a good inbox.
			c2, r2 := rawPeer(t, b)
			done := answerAsync(b, context.Background(), formReq)
			line, err := r2.ReadString('\n')
			if err != nil || !strings.Contains(line, `"type":"ask","id":1`) {
				t.Fatalf("ask = %q, %v", line, err)
			}
			fmt.Fprintln(c2, `{"type":"ping"}`) // unknown types are ignored
			fmt.Fprintln(c2, `{"type":"answer","id":1,"action":"accept","content":{"branch":"x"}}`)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMalformedProxyIsDropped(t *testing.T) {
	dir := privateDir(t)
	ln, err := net.Listen("unix", filepath.Join(dir, socketName(999999)))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintln(c, `{"type":"hello","version":1,"pid":999999,"host":"h\u001b[2J","server":"s"}`)
		fmt.Fprintln(c, `{"type":"ask","id":1,"request":{"server":"s","origin":"teleport","message":"m"}}`)
		fmt.Fprintln(c, strings.Repeat("y", MaxLine+1))
		time.Sleep(5 * time.Second)
	}()
	log := &testkit.LockedBuffer{}
	var asks atomic.Int32
	watch(t, dir, func(context.Context, Ask) { asks.Add(1) }, &WatchOptions{Log: log})
	testkit.WaitFor(t, "the drop", func() bool {
		// The host's escape sequence is stripped.
		return strings.Contains(log.String(), fmt.Sprintf("h › s (pid 999999): dropped: it sent a line over %d bytes", MaxLine))
	})
	if !strings.Contains(log.String(), `ask #1 ignored: unknown origin "teleport"`) || strings.Contains(log.String(), "\x1b") {
		t.Errorf("log:\n%q", log)
	}
	if n := asks.Load(); n != 0 {
		t.Errorf("%d asks handled", n)
	}
}

func TestProxyGoneWithdrawsItsAsks(t *testing.T) {
	b, dir, _ := newBroker(t, BrokerOptions{})
	h, ch := collect()
	watch(t, dir, h, nil)
	testkit.WaitFor(t, "an inbox", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.peers) == 1 })
	done := answerAsync(b, context.Background(), formReq)
	a := recv(t, ch)
	b.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Answer = %v", err)
	}
	select {
	case <-a.ctx.Done():
		if cause := context.Cause(a.ctx); cause == nil || !strings.Contains(cause.Error(), "the proxy stopped") && !strings.Contains(cause.Error(), "went away") {
			t.Errorf("cause = %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not withdrawn")
	}
	if _, err := os.Stat(b.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
}

func TestModes(t *testing.T) {
	base := t.TempDir()
	runUser, tmp := fakeSystem(t, true)
	dir, err := placesIn(runUser, tmp, hostEnv).RuntimeDir()
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(runUser, strconv.Itoa(os.Getuid()), "elicitty") {
		t.Errorf("dir = %s", dir)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v, %v; want 0700", fi.Mode(), err)
	}
	b, err := Listen(dir, BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fi, err = os.Stat(b.Path())
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("socket mode %v, %v; want a 0600 socket", fi.Mode(), err)
	}
	if filepath.Base(b.Path()) != fmt.Sprintf("proxy-%d.sock", os.Getpid()) {
		t.Errorf("socket %s", b.Path())
	}

	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ELICITTY_RUNTIME_DIR": open}
	if _, err := RuntimeDir(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "mode 0755") {
		t.Errorf("a 0755 directory: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	env = map[string]string{"ELICITTY_RUNTIME_DIR": link}
	if _, err := RuntimeDir(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink: %v", err)
	}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		env = map[string]string{"ELICITTY_RUNTIME_DIR": other}
		if _, err := RuntimeDir(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Errorf("another user's directory: %v", err)
		}
	}
}

// TestOtherUsersAreRefused runs the test binary as user nobody against the socket:
// the directory and socket modes keep it out, and when they are opened up (as a
// misconfigured system might), the peer-credential check closes the connection at once.
func TestOtherUsersAreRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching to another user for the child process needs root (CI runs as root)")
	}
	// The child binary must be readable by nobody, and the directory's parents
	// searchable (t.TempDir's are not).
	exeDir, err := os.MkdirTemp("", "inbox-peer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(exeDir)
	if err := os.Chmod(exeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(exeDir, "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	log := &testkit.LockedBuffer{}
	b, err := Listen(dir, BrokerOptions{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(exeDir, "peer")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	asNobody := func() string {
		t.Helper()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), peerEnv+"="+b.Path())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("peer: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out := asNobody(); !strings.Contains(out, "permission denied") {
		t.Errorf("through the 0700 directory, nobody got: %q", out)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(b.Path(), 0o666); err != nil {
		t.Fatal(err)
	}
	if out := asNobody(); out == "hello" || !strings.HasPrefix(out, "read:") {
		t.Errorf("with the modes opened, nobody got: %q", out)
	}
	if !strings.Contains(log.String(), "refused a connection from uid 65534") {
		t.Errorf("log:\n%s", log)
	}
	b.mu.Lock()
	n := len(b.peers)
	b.mu.Unlock()
	if n != 0 {
		t.Errorf("%d peers attached", n)
	}
}

// TestHostNamedAfterListen: the proxy opens its socket before the host's initialize;
// the host's name reaches the inboxes already attached and later ones, whether the
// proxy sets it (SetHost, on initialize) or it comes with an ask.
func TestHostNamedAfterListen(t *testing.T) {
	for _, how := range []string{"SetHost", "ask"} {
		t.Run(how, func(t *testing.T) {
			dir := privateDir(t)
			b, err := Listen(dir, BrokerOptions{Server: "github"})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var mu sync.Mutex
			var last []Proxy
			h, ch := collect()
			watch(t, dir, h, &WatchOptions{OnChange: func(ps []Proxy) { mu.Lock(); defer mu.Unlock(); last = ps }})
			testkit.WaitFor(t, "the attach", func() bool { mu.Lock(); defer mu.Unlock(); return len(last) == 1 })
			mu.Lock()
			if last[0].Host != "" || last[0].Label() != "github" {
				t.Errorf("before the host's name: %+v", last[0])
			}
			mu.Unlock()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pending := 0
			if how == "SetHost" {
				b.SetHost("Zed")
			} else {
				req := *formReq
				req.Host = "Zed"
				done := answerAsync(b, ctx, &req)
				defer func() { cancel(); <-done }()
				if a := recv(t, ch); a.ask.Request.Host != "Zed" {
					t.Errorf("ask host %q", a.ask.Request.Host)
				}
				pending = 1
			}
			testkit.WaitFor(t, "the host's name", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(last) == 1 && last[0].Label() == "Zed › github"
			})
			ps, err := List(context.Background(), dir)
			if err != nil || len(ps) != 1 || ps[0].Host != "Zed" || ps[0].Pending != pending {
				t.Errorf("List = %+v, %v", ps, err)
			}
		})
	}
}

// TestStaleSocketRemoved: the socket of a proxy that died without removing it is
// cleaned up by the next inbox; a live proxy's socket is kept.
func TestStaleSocketRemoved(t *testing.T) {
	dir := privateDir(t)
	dead := exec.Command(os.Args[0], "-test.run=^$") // this test binary, running no test
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, socketName(dead.Process.Pid))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // as a crash leaves it
	b, err := Listen(dir, BrokerOptions{Server: "live"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ps, err := List(context.Background(), dir)
	if err != nil || len(ps) != 1 || ps[0].Server != "live" {
		t.Errorf("List = %+v, %v", ps, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there: %v", err)
	}
	if _, err := os.Stat(b.Path()); err != nil {
		t.Errorf("the live socket went: %v", err)
	}
}
