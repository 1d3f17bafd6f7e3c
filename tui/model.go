package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/keymap"
)

// tab is one of the main area's tabs.
type tab int

const (
	tabTools tab = iota
	tabPrompts
	tabResources
	tabLog
	tabInbox
	numTabs
)

var tabNames = [numTabs]string{"Tools", "Prompts", "Resources", "Log", "Inbox"}

// argForm is an open argument form for a tool, prompt or resource.
type argForm struct {
	kind   catKind
	item   catItem
	screen FormScreen
}

// Model is the root model. It routes messages to its panes and owns the inbox. Create
// it with New; it is not safe for use outside the program's goroutine.
type Model struct {
	ctx  context.Context
	stop context.CancelFunc // ends ctx: every call and connection attempt
	// inflight counts the calls running, so that quitting lets each tell its server
	// it is cancelled before the sessions close.
	inflight *sync.WaitGroup
	opts     Options
	bridge   *Bridge
	keys     programKeys
	st       styles
	help     help.Model

	servers serversPane
	cats    [3]catalogPane
	calls   callsPane
	log     logPane
	inbox   inbox
	tasks   tasksPane // the Tasks view (key t), shown over the tab when open
	tab     tab

	// screens is the stack of screens open over the tabs, bottom first (screens.go);
	// the top one gets the keys and the main area.
	screens []screen
	// active and args are the request being answered and the argument form being
	// filled when they are on the stack, or nil (restack keeps them).
	active *pending
	args   *argForm
	unseen int // requests that arrived while something else was open
	// copied holds the proxies' links the user consented to without opening them
	// (copiedKey; noteCopied), for the waits that follow.
	copied map[string]bool
	rang   time.Time // when the bell last rang (ring)

	// cancels stops the calls in flight (the originating call of a URL flow).
	cancels map[callID]context.CancelFunc
	// cancelled marks the calls the user cancelled, for their result.
	cancelled map[callID]bool
	// specs remembers what each call in flight asked, to re-send it after a restart.
	specs map[callID]callSpec
	// lastArgs are the arguments each tool or prompt was last called with, by
	// argsKey, to pre-fill its next form (for the session only).
	lastArgs map[string]map[string]any
	// confirm asks before a key throws work away (a typed form, pending requests);
	// nil when nothing is being asked.
	confirm *confirmPrompt
	// quitting is set when the last key closed a screen or set it aside: the next q
	// or ctrl+c is the program's quit key, never typed into the screen that opened
	// meanwhile (with many questions queued, each close opens the next).
	quitting bool
	// live is what the TUI keeps of change notifications: subscriptions, refreshes,
	// log levels and the roots screen (live.go).
	live liveState

	status     string
	statusOpen bool // the status message is shown in full (keymap.Map.Status)
	now        time.Time
	w, h       int
	ticks      bool // tests turn periodic commands off
	// logWake is the wire log's subscription: waitLog waits on it (nil until then).
	logWake <-chan struct{}
	// connecting are the first connection attempts, begun by startConnects and
	// handed to the program by Init (or by beginConnectsMsg); begun says they began.
	connecting []tea.Cmd
	begun      bool
}

// New returns the root model for opts; b is the bridge the sessions answer through.
func New(ctx context.Context, b *Bridge, opts Options) *Model {
	opts.defaults()
	m := &Model{opts: opts, bridge: b, keys: programKeys{keymap.Default()}, st: newStyles(opts.NoColor), help: help.New(), ticks: true}
	m.ctx, m.stop = context.WithCancel(ctx)
	m.inflight = &sync.WaitGroup{}
	m.servers = newServersPane(opts.Servers, &m.st)
	if ts := newTrustScreen(opts); ts != nil {
		m.push(ts)
	}
	for i := range m.cats {
		m.cats[i] = catalogPane{kind: catKind(i), st: &m.st, f: newFilterBox()}
	}
	m.calls = newCallsPane(&m.st)
	m.calls.linked = m.inbox.waitsFor
	m.log = newLogPane(opts.LogKeep, &m.st)
	m.inbox = inbox{st: &m.st, f: newFilterBox()}
	m.tasks = tasksPane{st: &m.st, f: newFilterBox()}
	m.cancels = map[callID]context.CancelFunc{}
	m.cancelled = map[callID]bool{}
	m.specs = map[callID]callSpec{}
	m.lastArgs = map[string]map[string]any{}
	m.live = newLiveState()
	m.now = opts.Now()
	m.status = fmt.Sprintf("connecting to %d server(s)", len(opts.Servers))
	if opts.InboxOnly {
		m.tab = tabInbox
		m.servers.proxies = []Proxy{}
		m.status = "waiting for elicitty proxies to ask"
	}
	m.SetSize(80, 24)
	return m
}

// Init connects every server (unless startConnects already began) and starts the
// clocks. A crowd of servers (crowded) is connected a moment later, after the first
// frame.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.crowded() {
		cmds = append(cmds, tea.Tick(crowdWait, func(time.Time) tea.Msg { return beginConnectsMsg{} }))
	} else {
		cmds = m.takeConnects()
	}
	if m.ticks {
		cmds = append(cmds, m.clockTick())
		if m.opts.Log != nil {
			cmds = append(cmds, m.waitLog())
		}
	}
	return tea.Batch(cmds...)
}

// Update routes msg.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case beginConnectsMsg:
		return m, tea.Batch(m.takeConnects()...)
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case elicitRequestMsg:
		return m, m.onElicit(msg)
	case elicitGoneMsg:
		return m, m.onGone(msg)
	case restartMsg:
		return m, m.onRestart(msg)
	case connectedMsg:
		return m, m.onConnected(msg)
	case trustedMsg:
		return m, m.onTrusted(msg)
	case catalogMsg:
		return m, m.onCatalog(msg)
	case callDoneMsg:
		return m, m.onCallDone(msg)
	case eventMsg:
		return m, m.onEvent(msg)
	case tasksMsg:
		return m, m.onTasks(msg)
	case openedMsg:
		return m, m.onOpened(msg)
	case logEntriesMsg:
		m.log.add(msg)
		return m, m.waitLog()
	case refreshMsg, liveDoneMsg:
		return m, m.onLive(msg)
	case proxiesMsg:
		m.onProxies(msg)
		return m, nil
	case noteMsg:
		m.status = oneLine(string(msg))
		return m, nil
	case clockMsg:
		m.now = time.Time(msg)
		return m, m.clockTick()
	}
	return m, m.toScreen(msg)
}

// setNoColor sets whether the program draws without colour, before it starts.
func (m *Model) setNoColor(noColor bool) {
	m.opts.NoColor = noColor
	m.st = newStyles(noColor) // the panes point at m.st
}

// SetSize lays the panes out for a w×h terminal.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = max(w, 20), max(h, 6)
	m.help.SetWidth(m.w)
	bodyH := m.bodyHeight()
	m.servers.SetSize(min(24, m.w/4), bodyH)
	mw := m.listWidth()
	listH := max(bodyH*2/5, 2)
	for i := range m.cats {
		m.cats[i].SetSize(mw, listH)
	}
	m.calls.SetSize(mw, bodyH-listH)
	m.log.SetSize(mw, bodyH)
	m.inbox.SetSize(mw, bodyH)
	m.tasks.SetSize(mw, bodyH)
	if hs, ok := findScreen[*helpScreen](m); ok && m.helpAsScreen() {
		// The full help no longer fits the help bar: it fills the main area, over
		// what opened since (under a form, which keeps the keyboard).
		m.pushUnderForm(hs)
	}
	so := m.screenSize()
	if m.active != nil {
		m.active.setSize(so.Width, so.Height)
	}
	if m.args != nil {
		m.args.screen.SetSize(so.Width, so.Height)
	}
}

// bodyHeight is the height between the tab bar and the status and help bars.
func (m *Model) bodyHeight() int {
	return max(m.h-2-m.helpHeight(), 2)
}

// helpHeight is the help bar's height: one line, or the full help's columns.
func (m *Model) helpHeight() int {
	if !m.help.ShowAll || m.helpAsScreen() {
		return 1
	}
	return min(len(strings.Split(m.help.View(m.keys), "\n")), max(m.h/3, 1))
}

func (m *Model) screenSize() ScreenOptions {
	return ScreenOptions{Width: m.screenWidth(), Height: m.bodyHeight() - 1, Accessible: m.opts.Accessible, NoColor: m.opts.NoColor}
}

func (p *pending) setSize(w, h int) {
	if p.fs != nil {
		p.fs.SetSize(w, h)
	}
	if p.cs != nil {
		p.cs.SetSize(w, h)
	}
}

// closeBudget bounds closeAll: the user quit, and elicitty must be gone within 2 s of
// that, servers stopped included.
const closeBudget = 800 * time.Millisecond

// closeAll runs after the program has ended: it answers every pending request with
// cancel, cancels every call in flight (each server gets notifications/cancelled), and
// closes the sessions, all at once and within closeBudget; a server still running
// after that is left to the caller's process set (process.Procs) to stop. The
// answers go first: a call cancelled first can make its server withdraw the request,
// and then the server never hears the user's cancel.
func (m *Model) closeAll() {
	for _, p := range m.inbox.items {
		p.answer(elicit.Response{Action: elicit.Cancel})
	}
	m.inbox.items = nil
	var answers sync.WaitGroup // written before any call is cancelled
	for _, r := range m.servers.rows {
		if a, ok := r.sess.(interface{ AwaitAnswered(time.Duration) }); ok {
			answers.Add(1)
			go func() {
				defer answers.Done()
				a.AwaitAnswered(closeBudget / 4)
			}()
		}
	}
	answers.Wait()
	m.stop()
	m.bridge.Detach()
	deadline := time.Now().Add(closeBudget)
	waitUntil(m.inflight, deadline.Add(-closeBudget/2))
	var wg sync.WaitGroup
	for _, r := range m.servers.rows {
		if r.sess != nil {
			wg.Add(1)
			go func(s session) {
				defer wg.Done()
				_ = s.Close()
			}(r.sess)
		}
	}
	waitUntil(&wg, deadline)
}

// waitUntil waits for wg, or until the deadline.
func waitUntil(wg *sync.WaitGroup, deadline time.Time) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// crowdWait is how long a crowd of servers waits to be started: a few frames, enough
// for the program's first frame to reach the terminal.
const crowdWait = 60 * time.Millisecond

// crowded reports more servers than CPUs. Their processes, all starting at once, would
// take the CPUs the first frame needs (measured: 30 servers on 2 CPUs held it back by
// 0.3 s), so they start after it; fewer start before the program does (Run).
func (m *Model) crowded() bool { return len(m.servers.rows) > runtime.NumCPU() }

// takeConnects begins the first connection attempts (startConnects) and hands them over:
// commands that wait for each attempt's end.
func (m *Model) takeConnects() []tea.Cmd {
	m.startConnects()
	cmds := m.connecting
	m.connecting = nil
	return cmds
}

// startConnects begins connecting every server at once, each on a goroutine of its own,
// unless it already did; Init's commands wait for them. Run calls it before the
// program starts, so that the servers start while the terminal is being set up, not
// after the program's first frames and command hops.
func (m *Model) startConnects() {
	if m.begun {
		return
	}
	m.begun = true
	m.connecting = make([]tea.Cmd, 0, len(m.servers.rows)+2)
	for i := range m.servers.rows {
		m.connecting = append(m.connecting, begin(m.connect(i, m.servers.rows[i].gen)))
	}
}

// begin runs cmd now, on a goroutine; the returned command waits for its message.
func begin(cmd tea.Cmd) tea.Cmd {
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	return func() tea.Msg { return <-ch }
}

// ---- commands (all I/O happens inside these functions, off the UI goroutine) ----

func (m *Model) connect(idx, gen int) tea.Cmd {
	ctx, srv, connect, b := m.ctx, m.servers.rows[idx].srv, m.opts.dial, m.bridge
	return func() tea.Msg {
		s, err := connect(ctx, srv, b, b.event)
		if err != nil {
			return connectedMsg{idx: idx, gen: gen, err: err}
		}
		caps := capNames(s.Capabilities())
		var info string
		if si, ok := s.(interface{ ServerInfo() *mcp.Implementation }); ok {
			info = implName(si.ServerInfo())
		}
		// The listing starts at once; onConnected shows it if this attempt is current.
		return connectedMsg{idx: idx, gen: gen, sess: s, protocol: s.Protocol(), era: s.Era().Reason, caps: caps,
			info: info, catalog: begin(listCatalog(ctx, s, caps))}
	}
}

func listCatalog(ctx context.Context, s session, caps []string) tea.Cmd {
	return func() tea.Msg {
		msg := catalogMsg{server: s.Name()}
		has := func(c string) bool {
			for _, x := range caps {
				if x == c {
					return true
				}
			}
			return len(caps) == 0
		}
		var errs []string
		if has("tools") {
			t, err := s.Tools(ctx)
			msg.tools = t
			if rs, ok := s.(interface {
				InputSchemas() map[string]json.RawMessage
			}); ok {
				msg.schemas = rs.InputSchemas()
			}
			if err != nil {
				errs = append(errs, "tools: "+err.Error())
			}
		}
		if has("prompts") {
			p, err := s.Prompts(ctx)
			msg.prompts = p
			if err != nil {
				errs = append(errs, "prompts: "+err.Error())
			}
		}
		if has("resources") {
			r, t, err := s.Resources(ctx)
			msg.resources, msg.templates = r, t
			if err != nil {
				errs = append(errs, "resources: "+err.Error())
			}
		}
		if len(errs) > 0 {
			msg.err = fmt.Errorf("list %s: %s", s.Name(), strings.Join(errs, "; "))
		}
		return msg
	}
}

func (m *Model) clockTick() tea.Cmd {
	if !m.ticks {
		return nil
	}
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return clockMsg(t) })
}

// waitLog waits for the wire log's next entries and reads them: a LogEvery pause
// first, so that a burst is read as one batch, then until something is appended. An
// idle session sends no message, and so costs no frame.
func (m *Model) waitLog() tea.Cmd {
	if !m.ticks || m.opts.Log == nil {
		return nil
	}
	if m.logWake == nil {
		var stop func()
		m.logWake, stop = m.opts.Log.Subscribe()
		context.AfterFunc(m.ctx, stop)
	}
	ctx, src, seq, every, wake := m.ctx, m.opts.Log, m.log.lastSeq, m.opts.LogEvery, m.logWake
	return func() tea.Msg {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil
		}
		for {
			if es := src.Since(seq); len(es) > 0 {
				return logEntriesMsg(es)
			}
			select {
			case <-wake:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

func runCall(ctx context.Context, s session, id callID, kind catKind, item catItem, content map[string]any) tea.Cmd {
	ctx = withCall(ctx, id)
	return func() tea.Msg {
		var (
			text   string
			rounds []transport.Round
			err    error
			isErr  bool
		)
		switch kind {
		case catTools:
			var r *mcp.CallToolResult
			r, rounds, err = s.CallTool(ctx, item.name, content)
			if err == nil {
				text, isErr = renderToolResult(r), r != nil && r.IsError
			}
		case catPrompts:
			args := map[string]string{}
			for k, v := range content {
				args[k] = fmt.Sprint(v)
			}
			var r *mcp.GetPromptResult
			r, rounds, err = s.GetPrompt(ctx, item.name, args)
			text = renderPromptResult(r)
		case catResources:
			var r *mcp.ReadResourceResult
			r, rounds, err = s.ReadResource(ctx, item.name)
			text = renderResourceResult(r)
		}
		var ee *process.ExitError
		if err != nil {
			text, isErr = safe.Block(err.Error()), true // errors may quote the server
		}
		return callDoneMsg{id: id, text: text, isErr: isErr, rounds: len(rounds), lost: errors.As(err, &ee),
			ended: err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())}
	}
}

// bellEvery is the least time between two bells: a burst of questions (many proxies
// asking at once) rings once.
const bellEvery = time.Second

// ring rings the bell and raises an OSC 9 notification saying text, unless it rang
// less than bellEvery ago.
func (m *Model) ring(text string) tea.Cmd {
	now := m.opts.Now()
	if !m.rang.IsZero() && now.Sub(m.rang) < bellEvery {
		return nil
	}
	m.rang = now
	return notify(text)
}

// notify rings the bell and raises an OSC 9 notification.
func notify(text string) tea.Cmd {
	return tea.Sequence(tea.Raw("\a"), tea.Raw(ansi.Notify(text)))
}
