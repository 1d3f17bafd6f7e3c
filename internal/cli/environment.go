package cli

import (
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// envVar is one environment variable elicitty reads.
type envVar struct {
	name, what string
}

// environment lists every variable elicitty reads, by itself or through the libraries
// it uses, grouped for `elicitty help environment`. A test keeps it complete.
var environment = []struct {
	group string
	vars  []envVar
}{
	{"Configuration and state", []envVar{
		{"ELICITTY_CONFIG", "elicitty's config file when --config is not given"},
		{"XDG_CONFIG_HOME", "where elicitty/config.yaml and other clients' configs are found (default ~/.config)"},
		{"XDG_STATE_HOME", "where the OAuth token file lives (default ~/.local/state)"},
		{"HOME", "the home directory: default config and state directories, imported configs"},
		{"APPDATA", "Windows: where Claude Desktop's and VS Code's user configs are imported from"},
		{"CODEX_HOME", "where Codex's config.toml is imported from (default ~/.codex)"},
		{"ELICITTY_TOKEN_STORE", "auto (default), keyring or file: where OAuth tokens are kept"},
		{"DBUS_SESSION_BUS_ADDRESS", "Linux: the D-Bus session bus of the Secret Service keyring"},
		{"XDG_RUNTIME_DIR", "Linux: its bus socket is used when DBUS_SESSION_BUS_ADDRESS is unset; `elicitty inbox` also looks for proxies in elicitty/ in it"},
		{"ELICITTY_RUNTIME_DIR", "the one directory of the proxies' inbox sockets (default /run/user/UID/elicitty when /run/user/UID is the user's, else /tmp/elicitty-UID; the inbox also looks in $XDG_RUNTIME_DIR/elicitty and $TMPDIR/elicitty-UID)"},
		{"TMPDIR", "`elicitty inbox` also looks for proxies in elicitty-UID in it (a proxy itself uses /tmp, whatever its host passes)"},
		{"GOBIN", "`proxy --install`: an elicitty here that is the running one is named by this path, which `go install` upgrades keep"},
		{"GOPATH", "`proxy --install`: likewise GOPATH/bin (default ~/go/bin)"},
		{"GOCACHE", "`proxy --install`: an elicitty running from here is a `go run` build, never written into a host's config"},
		{"ELICITTY_NOTIFY", "the command a proxy runs for a desktop notification when no inbox is attached (title and body appended; default notify-send; off for none)"},
		{"${VAR}", "any variable a config file references as ${VAR} or ${env:VAR} in a string value"},
		{"ELICITTY_INPUT_<ID>", "the value of ${input:ID} in an imported VS Code config"},
		{"ELICITTY_SECRET_<ID>", "the value of a secret field in an answers file written by --record (${ELICITTY_SECRET_ID} stands for it)"},
	}},
	{"Terminal and colour", []envVar{
		{"NO_COLOR", "when set and not empty, no colour (text styles stay)"},
		{"CLICOLOR", "0 turns colour off; 1 allows it on a terminal"},
		{"CLICOLOR_FORCE", "when not 0, colour even when not on a terminal"},
		{"TERM", "the terminal's colours; TERM=dumb also switches to accessible line prompts"},
		{"COLORTERM", "truecolor or 24bit enables full colour"},
		{"TMUX", "colour detection inside tmux"},
		{"VISUAL", "editor for long text fields (ctrl+e), before EDITOR"},
		{"EDITOR", "editor for long text fields when VISUAL is unset"},
	}},
	{"Opening links", []envVar{
		{"ELICITTY_OPENER", "a command that opens URLs instead of the system browser (URL appended, or in place of %s)"},
		{"BROWSER", "the browser to open URLs with"},

		{"SSH_CONNECTION", "set over SSH: links are copied and shown as QR codes instead of opened"},
		{"SSH_TTY", "same as SSH_CONNECTION"},
		{"DISPLAY", "Linux: without DISPLAY or WAYLAND_DISPLAY no browser can be opened"},
		{"WAYLAND_DISPLAY", "see DISPLAY"},
	}},
	{"Network and processes", []envVar{
		{"HTTPS_PROXY", "proxy for https URLs (also lower case)"},
		{"HTTP_PROXY", "proxy for http URLs (also lower case)"},
		{"NO_PROXY", "hosts reached without the proxy (also lower case)"},
		{"PATH", "where stdio server commands are looked up; stdio servers inherit the whole environment"},
	}},
	{"Conformance and release tooling", []envVar{
		{"MCP_CONFORMANCE_SCENARIO", "elicitty conformance: the scenario the harness runs"},
		{"MCP_CONFORMANCE_CONTEXT", "elicitty conformance: the scenario's JSON context"},
		{"MCP_CONFORMANCE_PROTOCOL_VERSION", "elicitty conformance: the protocol version to pin"},
		{"SOURCE_DATE_EPOCH", "the date printed in generated man pages"},
	}},
}

// environmentHelp is the text of `elicitty help environment`.
func environmentHelp() string {
	var b strings.Builder
	b.WriteString("Environment variables elicitty reads:\n")
	for _, g := range environment {
		width := 0
		for _, v := range g.vars {
			width = max(width, len(v.name))
		}
		b.WriteString("\n" + g.group + ":\n")
		for _, v := range g.vars {
			b.WriteString("  " + v.name + strings.Repeat(" ", width-len(v.name)+2) + v.what + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// environmentTopic is the `elicitty help environment` topic.
func environmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables elicitty reads",
		Long:  environmentHelp(),
	}
}

// applyEnvironment reads the terminal conventions once per run: TERM=dumb means line
// prompts (accessible mode), and the colour profile decides whether colour is used.
func (a *app) applyEnvironment() {
	if os.Getenv("TERM") == "dumb" {
		a.accessible = true
	}
	a.startColor()
}

// startColor begins detecting the colour profile, once per run, on a goroutine of its
// own: in tmux the detection runs `tmux info`, tens of milliseconds that the terminal
// UI spends starting its servers (noColor and uiProfile wait for it).
func (a *app) startColor() {
	a.colorOnce.Do(func() {
		a.colorDone = make(chan struct{})
		go func() {
			defer close(a.colorDone)
			a.detectColor()
		}()
	})
}

// colorSettled waits, at most two seconds, for the colour detection that startColor
// began, so that a command that never asked for colour does not leave its `tmux info`
// running after it exits.
func (a *app) colorSettled() {
	a.startColor()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-a.colorDone:
	case <-t.C:
	}
}

// detectColor detects the colour profile.
func (a *app) detectColor() {
	env := os.Environ()
	a.terminal, a.terminalOut = terminalProfile(a.stdout, a.stderr, env)
	a.profile = colorEnv(a.terminal, env)
}

// noColor reports whether the run draws without colour.
func (a *app) noColor() bool {
	a.startColor()
	<-a.colorDone
	return a.profile < colorprofile.ANSI
}

// uiProfile is the colour profile of the terminal UI drawn on a.stdout as bubbletea
// would detect it, when the run already detected it (colorprofile.Detect depends only
// on the environment and on whether its output is a terminal): handed to the program,
// it is not detected twice (in tmux each detection runs `tmux info`, tens of
// milliseconds before the first frame). Nil when it must be detected again.
func (a *app) uiProfile() *colorprofile.Profile {
	a.startColor()
	<-a.colorDone
	if a.terminalOut != a.stdout && isTerminal(a.terminalOut) != isTerminal(a.stdout) {
		return nil
	}
	p := a.terminal
	return &p
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(term.File)
	return ok && term.IsTerminal(f.Fd())
}

// detectProfile decides the colour profile from the environment and the terminal the
// interactive screens draw on (terminalProfile), under colorEnv's rules.
func detectProfile(stdout, stderr io.Writer, env []string) colorprofile.Profile {
	p, _ := terminalProfile(stdout, stderr, env)
	return colorEnv(p, env)
}

// terminalProfile is colorprofile.Detect's profile of the terminal the interactive
// screens draw on (stderr for forms, else stdout for the terminal UI), and that output.
func terminalProfile(stdout, stderr io.Writer, env []string) (colorprofile.Profile, io.Writer) {
	out := stderr
	if !isTerminal(stderr) {
		out = stdout
	}
	if p, ok := startupProfile(out, env); ok {
		return p, out
	}
	return colorprofile.Detect(out, env), out
}

// startupProfile is the colour profile lipgloss detected for os.Stdout while the
// program was initialized (its package variable lipgloss.Writer; in tmux that ran
// `tmux info`, tens of milliseconds before main), when colorprofile.Detect would find
// the same for out: Detect depends only on the environment and on whether its output
// is a terminal, so it holds when out and os.Stdout are both terminals and env is the
// process's environment, which elicitty never changes. Reusing it spares a second
// `tmux info` before the terminal UI's first frame.
func startupProfile(out io.Writer, env []string) (colorprofile.Profile, bool) {
	if !isTerminal(out) || !isTerminal(os.Stdout) || !slices.Equal(env, os.Environ()) {
		return 0, false
	}
	return lipgloss.Writer.Profile, true
}

// colorEnv applies the colour conventions to a detected profile p: NO_COLOR (any
// non-empty value) and CLICOLOR=0 turn colour off, CLICOLOR_FORCE forces it (TERM and
// COLORTERM, which say how much there is, are in p already).
func colorEnv(p colorprofile.Profile, env []string) colorprofile.Profile {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if name, val, ok := strings.Cut(env[i], "="); ok && name == k {
				return val
			}
		}
		return ""
	}
	forced := get("CLICOLOR_FORCE") != "" && get("CLICOLOR_FORCE") != "0"
	if get("NO_COLOR") != "" || (get("CLICOLOR") == "0" && !forced) {
		p = min(p, colorprofile.ASCII)
	}
	return p
}
