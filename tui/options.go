package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/wire"
	"github.com/elicitty/elicitty/tui/consent"
	"github.com/elicitty/elicitty/tui/form"
)

// session is what the TUI needs of a live server connection: the methods of
// *transport.Session it uses.
type session interface {
	Name() string
	Protocol() string
	Era() transport.Era
	Capabilities() *mcp.ServerCapabilities
	Tools(ctx context.Context) ([]*mcp.Tool, error)
	Prompts(ctx context.Context) ([]*mcp.Prompt, error)
	Resources(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error)
	CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, []transport.Round, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, []transport.Round, error)
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, []transport.Round, error)
	RetryNow()
	Close() error
}

var _ session = (*transport.Session)(nil)

// ConnectFunc reaches one server. a is the answerer the session must use for every
// elicitation (the TUI's Bridge, to be wrapped in elicit.NewEngine); onEvent receives
// the session's notifications and must be passed to transport.Options.OnEvent. a also
// implements oauth.Browser: pass it as transport.Options.OAuth's Browser so that
// sign-ins go through the TUI (the servers pane's "sign in").
type ConnectFunc func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (*transport.Session, error)

// dialFunc is ConnectFunc over the session interface; tests dial fake sessions.
type dialFunc func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (session, error)

// LogSource is the read side of the wire log: Since returns the entries with a sequence
// number greater than seq, oldest first; Subscribe returns a channel that receives a
// value after entries are appended (coalesced) and a function that ends it. It must be
// safe for concurrent use. *wire.Log is one.
type LogSource interface {
	Since(seq uint64) []wire.Entry
	Subscribe() (<-chan struct{}, func())
}

// ScreenOptions sizes and styles an embedded answer screen.
type ScreenOptions struct {
	Width, Height int
	Accessible    bool
	NoColor       bool
	// Call is set for an argument form: the call whose arguments it collects ("tool
	// echo"); Values pre-fill it (the last arguments).
	Call   string
	Values map[string]any
}

// FormScreen is an embedded form: an elicitation form or a tool's argument form. It
// never quits the program; Done reports the answer once the user has given one.
// tui/form's Model is one.
type FormScreen interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Done() (elicit.Response, bool)
}

// ConsentScreen is an embedded URL consent screen: tui/consent's Model, or its Waiting
// screen for a URL that came back in a later round.
type ConsentScreen interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Done() (consent.Choice, bool)
}

// Options configures Run and New. Nil function fields mean defaults.
type Options struct {
	// Servers are connected at start, in order.
	Servers []config.Server
	// Connect reaches a server; nil uses transport.Connect with the Bridge wrapped in
	// elicit.NewEngine, URL mode declared unless the server's policy disables it, and
	// Log when it is a *wire.Log.
	Connect ConnectFunc
	// dial, when set (tests), replaces Connect.
	dial dialFunc
	// Log is the wire log shown in the Log tab; nil hides the entries.
	Log LogSource
	// LogKeep bounds the entries the Log tab keeps; zero means 5000.
	LogKeep int
	// LogEvery is the least time between two reads of the wire log for the Log tab (a
	// quiet log is not read at all); zero means 250 ms.
	LogEvery time.Duration
	// NewForm builds a form screen; nil uses tui/form's Model.
	NewForm func(req *elicit.Request, f *elicit.Form, o ScreenOptions) FormScreen
	// NewConsent builds a URL consent screen; nil uses tui/consent's Model under the
	// asking server's URL policy.
	NewConsent func(req *elicit.Request, o ScreenOptions) ConsentScreen
	// Opener opens a URL in the browser after consent (consent.NewBrowserOpener); nil
	// copies it (OSC 52) instead.
	Opener consent.Opener
	// NoColor drops colour (NO_COLOR). Accessible replaces the full-screen program by a
	// line mode for screen readers (commands on In, prompts and results on Out).
	NoColor, Accessible bool
	// Profile, when set, is the colour profile colorprofile.Detect found for Out (the
	// program's renderer uses it); nil has the program detect it.
	Profile *colorprofile.Profile
	// Colors, when set, replaces NoColor and Profile: Run calls it once the first
	// connections have begun, so that a slow colour detection (in tmux it runs `tmux
	// info`) does not hold the servers back. Accessible mode does not call it.
	Colors func() (noColor bool, profile *colorprofile.Profile)
	// In and Out are the terminal; nil means stdin and stdout.
	In  io.Reader
	Out io.Writer
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// Remote, when set, brings the questions of running elicitty proxies into the
	// inbox. Run calls it on a goroutine of its own with the program's answerer and
	// ends its ctx when the user quits, before the program's own requests are
	// cancelled: a proxy's ask left unanswered stays pending for another inbox. It
	// answers each ask with a.Answer on a goroutine of its own, reports the proxies it
	// is attached to with proxies after each change, and passes its log lines
	// (refusals, drops) to note.
	Remote func(ctx context.Context, a elicit.Answerer, proxies func([]Proxy), note func(string))
	// InboxOnly is `elicitty inbox`: no servers of its own, the Inbox tab first, and
	// the servers pane lists the proxies.
	InboxOnly bool
	// Trust, when set, is a project folder whose servers in Servers wait for the
	// user's trust: the TUI opens a screen at start that shows each of them and, on y,
	// calls Trust.Grant and starts them. Accessible mode does not ask.
	Trust *TrustAsk
}

// Proxy is a running elicitty proxy the program answers for (Options.Remote).
type Proxy struct {
	// Host is the host's name ("Claude Desktop") and Server the server's, as the
	// proxy announced them; "" when unknown. Sanitized before display.
	Host, Server string
	PID          int
}

// label is how p is named on one line: "host › server".
func (p Proxy) label() string {
	return (&elicit.Request{Host: p.Host, Server: p.Server}).Asker()
}

func (o *Options) defaults() {
	if o.LogKeep <= 0 {
		o.LogKeep = 5000
	}
	if o.LogEvery <= 0 {
		o.LogEvery = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewForm == nil {
		o.NewForm = newForm
	}
	if o.NewConsent == nil {
		policies := map[string]config.URLPolicy{}
		for _, s := range o.Servers {
			policies[s.Name] = s.URLPolicy
		}
		o.NewConsent = func(req *elicit.Request, so ScreenOptions) ConsentScreen {
			pol := policies[req.Server]
			if req.Call == oauth.SignInCall {
				// The authorization server is usually another host than the MCP
				// server: its allowedHosts do not apply; https-only does.
				pol.AllowedHosts = nil
			}
			return newConsentScreen(req, pol, so)
		}
	}
	if o.Connect == nil {
		wl, _ := o.Log.(*wire.Log)
		o.Connect = func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (*transport.Session, error) {
			return defaultConnect(ctx, srv, a, onEvent, wl)
		}
	}
	if o.dial == nil {
		connect := o.Connect
		o.dial = func(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event)) (session, error) {
			s, err := connect(ctx, srv, a, onEvent)
			if err != nil || s == nil {
				if err == nil {
					err = errors.New("connect returned no session")
				}
				return nil, err // a nil *transport.Session must not become a non-nil session
			}
			return s, nil
		}
	}
}

// newForm is the default NewForm: tui/form's Model.
func newForm(req *elicit.Request, f *elicit.Form, o ScreenOptions) FormScreen {
	return form.NewModel(req, f, form.Options{Width: o.Width, Height: o.Height, Accessible: o.Accessible, NoColor: o.NoColor,
		Call: o.Call, Values: o.Values})
}

// newConsentScreen builds tui/consent's screen for req under its server's URL policy.
func newConsentScreen(req *elicit.Request, pol config.URLPolicy, o ScreenOptions) ConsentScreen {
	a := urlsafe.Analyze(req.URL, transport.URLPolicy(pol))
	return consent.New(req, a, consent.Options{Width: o.Width, Height: o.Height, NoColor: o.NoColor,
		OpenAllowed: pol.Open != config.URLCopyOnly})
}

func defaultConnect(ctx context.Context, srv config.Server, a elicit.Answerer, onEvent func(transport.Event), wl *wire.Log) (*transport.Session, error) {
	opts := transport.ForServer(srv, a)
	opts.ClientName, opts.Log, opts.OnEvent = "elicitty", wl, onEvent
	opts.Sampling = true // a person answers in the inbox
	return transport.Connect(ctx, srv, opts)
}

// Run starts the program and blocks until the user quits or ctx is done. The wire log
// passed to transport.Connect should be the same log as opts.Log; with a custom Connect
// the caller wires it.
func Run(ctx context.Context, opts Options) error {
	if opts.Accessible {
		in, out := opts.In, opts.Out
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		opts.defaults()
		return runAccessible(ctx, opts, in, out)
	}
	b := NewBridge()
	m := New(ctx, b, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	if opts.Profile != nil {
		popts = append(popts, tea.WithColorProfile(*opts.Profile))
	}
	p := tea.NewProgram(m, popts...)
	b.Attach(p)
	defer b.Detach()
	if !m.crowded() {
		m.startConnects()
	}
	if opts.Colors != nil {
		noColor, profile := opts.Colors()
		m.setNoColor(noColor)
		if profile != nil {
			tea.WithColorProfile(*profile)(p)
		}
	}
	stopRemote := startRemote(ctx, b, opts.Remote)
	_, err := p.Run()
	stopRemote()
	m.closeAll()
	return err
}

// startRemote runs remote, when set, until the returned func is called; that func
// waits for it to end, at most closeBudget.
func startRemote(ctx context.Context, b *Bridge, remote func(context.Context, elicit.Answerer, func([]Proxy), func(string))) func() {
	if remote == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		remote(ctx, b,
			func(ps []Proxy) { b.notice(proxiesMsg(ps)) },
			func(s string) { b.notice(noteMsg(s)) })
	}()
	return func() {
		cancel()
		t := time.NewTimer(closeBudget)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
}
