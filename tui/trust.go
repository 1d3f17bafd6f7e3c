package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
)

// TrustAsk is a project folder whose servers wait for the user's trust (Options.Trust):
// the servers of Options.Servers whose Project is Dir. Their connections are refused
// (the command layer's ConnectFunc does that) until the user trusts the folder on the
// trust screen the TUI opens at start.
type TrustAsk struct {
	// Dir is the project folder; Files names its project files (".mcp.json").
	Dir   string
	Files []string
	// Grant trusts the folder (the command layer stores that) and returns its servers
	// as they now resolve, their ${VAR} references expanded. It runs off the UI
	// goroutine.
	Grant func() ([]config.Server, error)
}

// trustedMsg is the end of TrustAsk.Grant.
type trustedMsg struct {
	servers []config.Server
	err     error
}

// trustScreen is the trust screen, on the stack of screens from the start until
// answered.
type trustScreen struct {
	ask     TrustAsk
	servers []config.Server // the folder's servers, as written
	asking  bool            // Grant is running
}

// newTrustScreen returns the trust screen for opts, or nil when nothing waits for trust.
func newTrustScreen(opts Options) *trustScreen {
	if opts.Trust == nil || opts.Trust.Grant == nil || opts.Trust.Dir == "" {
		return nil
	}
	ts := &trustScreen{ask: *opts.Trust}
	for _, s := range opts.Servers {
		if s.Project == opts.Trust.Dir {
			ts.servers = append(ts.servers, s)
		}
	}
	if len(ts.servers) == 0 {
		return nil
	}
	return ts
}

// key handles a key on the trust screen: y trusts the folder and starts its
// servers, n or esc leaves them stopped; other keys but quit do nothing. ok is false
// for a key the screen leaves to the rest of the model (quit).
func (ts *trustScreen) key(m *Model, msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, m.keys.Yes):
		if ts.asking {
			return nil, true
		}
		ts.asking = true
		grant := ts.ask.Grant
		m.status = "trusting " + oneLine(safe.Block(ts.ask.Dir))
		return func() tea.Msg {
			servers, err := grant()
			return trustedMsg{servers: servers, err: err}
		}, true
	case key.Matches(msg, m.keys.No, m.keys.Cancel):
		m.drop(ts)
		m.status = "not trusted; elicitty trust starts them"
		return nil, true
	}
	if key.Matches(msg, m.keys.Quit) {
		return nil, false
	}
	return nil, true
}

// onTrusted starts the folder's servers once trusted, with their entries as they now
// resolve.
func (m *Model) onTrusted(msg trustedMsg) tea.Cmd {
	ts, ok := findScreen[*trustScreen](m)
	if !ok {
		return nil
	}
	m.drop(ts)
	if msg.err != nil {
		m.status = "trust failed: " + oneLine(safe.Block(msg.err.Error()))
		return nil
	}
	byName := map[string]config.Server{}
	for _, s := range msg.servers {
		byName[s.Name] = s
	}
	var cmds []tea.Cmd
	for i := range m.servers.rows {
		r := &m.servers.rows[i]
		if r.srv.Project != ts.ask.Dir {
			continue
		}
		s, ok := byName[r.srv.Name]
		if !ok {
			continue // gone from the files meanwhile: it stays refused
		}
		r.srv = s
		if i < len(m.opts.Servers) {
			m.opts.Servers[i] = s
		}
		cmds = append(cmds, m.restartRow(i, ""))
	}
	m.status = fmt.Sprintf("trusted %s: starting %d server(s)", oneLine(safe.Block(ts.ask.Dir)), len(cmds))
	return tea.Batch(cmds...)
}

// view is the trust screen: the folder, its files and each server's command line
// or URL as written (sanitized: the files are not ours), and the keys.
func (ts *trustScreen) view(m *Model, w, h int) string {
	lines := []string{m.st.Title.Render(trunc("Trust this project folder?", w)), ""}
	wrap := func(s string) {
		lines = append(lines, wrapWords(oneLine(safe.Block(s)), max(w-1, 1))...)
	}
	wrap(ts.ask.Dir + " has MCP servers in " + strings.Join(ts.ask.Files, ", ") +
		". Trusting it starts them with your environment; they do not start until you do.")
	lines = append(lines, "")
	servers := append([]config.Server(nil), ts.servers...)
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	for _, s := range servers {
		what := "runs " + strings.Join(append([]string{s.Command}, s.Args...), " ")
		if s.EffectiveKind() != config.KindStdio {
			what = "connects to " + s.URL
		}
		wrap(s.Name + ": " + what)
	}
	lines = append(lines, "")
	if ts.asking {
		lines = append(lines, m.st.Dim.Render(trunc("trusting…", w)))
	} else {
		lines = append(lines, m.st.Dim.Render(trunc("y: trust and start them · n: not now · q: quit", w)))
	}
	return fitLines(lines, h)
}

func (ts *trustScreen) name() string        { return "trust" }
func (ts *trustScreen) visible(*Model) bool { return true }
func (ts *trustScreen) wide() bool          { return true }
