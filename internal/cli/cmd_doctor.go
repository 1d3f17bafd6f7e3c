package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/demo"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/proxy/inbox"
	"github.com/elicitty/elicitty/transport"
)

// doctorCheck is one self-test: a tool call on the demo server.
type doctorCheck struct {
	name string
	tool string
	args map[string]any
	want string // a substring the result text must contain
}

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor [TARGET | -- command args...]",
		Short: "Self-test against the built-in demo server, or check a server; prints what works",
		Long: `Without TARGET: starts the built-in demo server over stdio and over Streamable HTTP on
loopback, talks to it in both protocol eras (2025-11-25 with server-pushed elicitation,
2026-07-28 with multi round-trip input requests), answers its elicitations
automatically, and prints which features work on which transport and era, and where
OAuth tokens are kept (the OS keyring, or the 0600 file where no keyring service runs).

It also prints where an ` + "`elicitty proxy`" + ` of this user listens for inboxes, whatever
environment its host passes, and each place ` + "`elicitty inbox`" + ` looks in, with the proxies
running there or why the place is not read.

With TARGET: connects to that server as the other commands would (config, flags,
OAuth), prints its name, the protocol era and why, its capabilities, and lists each
kind of primitive it declares; nothing is called. Exit 0 when everything passed.

With --json, either form prints its findings as one JSON document on stdout (failures
are also told on stderr).`,
		Example: "  elicitty doctor\n  elicitty doctor demo\n  elicitty doctor -- elicitty serve-demo",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && cmd.ArgsLenAtDash() < 0 {
				return a.runDoctor(cmd.Context())
			}
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("doctor takes one TARGET, got extra arguments %q", rest)
			}
			return a.runDoctorTarget(cmd.Context(), srv)
		},
	}
}

// doctorChecks are the self-tests, in the order of the matrix's rows.
var doctorChecks = []doctorCheck{
	{name: "tools/list", tool: ""},
	{name: "plain tool call", tool: "add", args: map[string]any{"a": 2, "b": 3}, want: "5"},
	{name: "form, every field kind", tool: "form_all_kinds", want: "accept"},
	{name: "chained forms", tool: "deploy", args: map[string]any{"service": "api"}},
	{name: "confirm-only form", tool: "confirm_only", want: "confirmed"},
	{name: "multi round-trip (3 rounds)", tool: "mrtr_multi"},
	{name: "two inputs in one round", tool: "mrtr_parallel"},
	{name: "URL mode: consent page approved", tool: "link_account", want: "linked"},
	{name: "URL required (-32042) then retry", tool: "needs_link", want: "linked"},
}

// doctorColumn is one transport and protocol era of the matrix.
type doctorColumn struct {
	label string
	srv   config.Server
	proto string
}

// doctorReport is what `elicitty doctor` found: printed as text, or with --json as one
// JSON document on stdout.
type doctorReport struct {
	// DefaultEras is the era each transport gets without --protocol, and why.
	DefaultEras []doctorEra `json:"defaultEras"`
	// Columns are the matrix's columns: a transport and era, with each check's result.
	Columns    []doctorColumnResult `json:"columns"`
	TokenStore doctorTokenStore     `json:"tokenStore"`
	Inbox      doctorInbox          `json:"inbox"`
	Failed     int                  `json:"failed"`
	OK         bool                 `json:"ok"`
}

// doctorEra is the era one transport of the demo server gets without --protocol.
type doctorEra struct {
	Transport string `json:"transport"`
	Protocol  string `json:"protocol,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Error     string `json:"error,omitempty"`
}

// doctorColumnResult is one column of the matrix; Error is set when the session did
// not start (every check then failed).
type doctorColumnResult struct {
	Transport string              `json:"transport"`
	Protocol  string              `json:"protocol"`
	Error     string              `json:"error,omitempty"`
	Checks    []doctorCheckResult `json:"checks"`
	label     string
}

// doctorCheckResult is one check of one column.
type doctorCheckResult struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// doctorTokenStore is where OAuth tokens are kept and why, or why no store is usable.
type doctorTokenStore struct {
	Where  string `json:"where,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// doctorInbox is where a proxy listens for inboxes and each place an inbox looks in.
type doctorInbox struct {
	ProxyDir string        `json:"proxyDir"`
	Places   []doctorPlace `json:"places"`
}

// doctorPlace is one place an inbox looks in: the proxies running there, or why it is
// not read.
type doctorPlace struct {
	inbox.Place
	Proxies int `json:"proxies"`
}

func (a *app) runDoctor(ctx context.Context) error {
	cols, stop, err := startDoctorServers()
	if err != nil {
		return err
	}
	defer stop()
	var r doctorReport
	for _, c := range cols {
		col := a.runDoctorColumn(ctx, c)
		r.Columns = append(r.Columns, col)
		for _, chk := range col.Checks {
			if !chk.OK {
				r.Failed++
			}
		}
	}
	r.DefaultEras = a.defaultEras(ctx, []config.Server{cols[0].srv, cols[2].srv})
	for _, e := range r.DefaultEras {
		if e.Error != "" {
			r.Failed++
		}
	}
	r.TokenStore = a.tokenStoreReport()
	r.Inbox = inboxReport(ctx, inbox.SystemPlaces(os.Getenv))
	r.OK = r.Failed == 0
	if a.jsonOut {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else if err := a.printDoctorReport(r); err != nil {
		return err
	}
	if !r.OK {
		return &silentError{code: ExitConn}
	}
	return nil
}

// printDoctorReport prints r as text: the default eras, the matrix, the token store,
// the inbox places and the verdict.
func (a *app) printDoctorReport(r doctorReport) error {
	for _, e := range r.DefaultEras {
		if e.Error != "" {
			fmt.Fprintf(a.stdout, "protocol without --protocol (%s): FAIL %s\n", e.Transport, e.Error)
		} else {
			fmt.Fprintf(a.stdout, "protocol without --protocol (%s): %s (%s)\n", e.Transport, e.Protocol, e.Reason)
		}
	}
	if err := a.printDoctorMatrix(r.Columns); err != nil {
		return err
	}
	a.printTokenStore(r.TokenStore)
	a.printInbox(r.Inbox)
	if r.Failed > 0 {
		fmt.Fprintf(a.stdout, "%d check(s) failed\n", r.Failed)
	} else {
		fmt.Fprintln(a.stdout, "all checks passed")
	}
	return nil
}

// doctorConnect opens a session to one of doctor's built-in servers with the options
// transport.ForServer gives its entry, as runDoctorColumn does: doctor ignores the
// common flags (it tests the client itself), and nothing is asked here.
func (a *app) doctorConnect(ctx context.Context, srv config.Server) (*transport.Session, error) {
	opts := transport.ForServer(srv, elicit.AnswererFunc(declineAll))
	opts.ClientName, opts.ClientVersion, opts.Procs = "elicitty-doctor", currentVersion().Version, a.procs
	return transport.Connect(ctx, srv, opts)
}

// defaultEras finds the era a user gets from each server without --protocol, and why.
func (a *app) defaultEras(ctx context.Context, servers []config.Server) []doctorEra {
	var eras []doctorEra
	for _, srv := range servers {
		e := doctorEra{Transport: string(srv.EffectiveKind())}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		s, err := a.doctorConnect(cctx, srv)
		if err != nil {
			e.Error = safe.Line(err.Error())
		} else {
			era := s.Era()
			e.Protocol, e.Reason = era.Version, safe.Line(era.Reason)
			s.Close()
		}
		cancel()
		eras = append(eras, e)
	}
	return eras
}

// startDoctorServers starts the demo server over Streamable HTTP on loopback (the
// stdio one is started per session) and returns the matrix's columns; stop shuts the
// HTTP server down.
func startDoctorServers() (cols []doctorColumn, stop func(), err error) {
	stdio, err := demoServer()
	if err != nil {
		return nil, nil, err
	}
	d, err := demo.New(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("start demo server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("listen on loopback: %w", err)
	}
	hs := &http.Server{Handler: d.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	httpSrv := config.Server{Name: "demo-http", Kind: config.KindHTTP, URL: "http://" + ln.Addr().String() + "/mcp"}
	cols = []doctorColumn{
		{"stdio 2025-11-25", stdio, protocol.Version20251125},
		{"stdio 2026-07-28", stdio, protocol.Version20260728},
		{"http 2025-11-25", httpSrv, protocol.Version20251125},
		{"http 2026-07-28", httpSrv, protocol.Version20260728},
	}
	return cols, func() { hs.Close(); d.Close() }, nil
}

// doctorAnswer accepts every elicitation the way the demo expects; for URL mode it
// stands in for the user's browser and approves the demo's own consent page.
func doctorAnswer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	if req.Mode == elicit.ModeURL {
		// The request's context ends with this answer; the approval outlives it.
		go approveDemoConsent(context.WithoutCancel(ctx), req.URL)
	}
	return elicit.AutoAccept(req), nil
}

// runDoctorColumn runs every check on one column, reporting each failure on stderr.
// The doctor ignores the common flags: it tests the client itself, in both eras.
func (a *app) runDoctorColumn(ctx context.Context, c doctorColumn) doctorColumnResult {
	col := doctorColumnResult{Transport: string(c.srv.EffectiveKind()), Protocol: c.proto, label: c.label}
	srv := c.srv
	srv.Protocol = c.proto
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	opts := transport.ForServer(srv, elicit.AnswererFunc(doctorAnswer))
	opts.ClientName, opts.ClientVersion, opts.Procs = "elicitty-doctor", currentVersion().Version, a.procs
	s, err := transport.Connect(cctx, srv, opts)
	if err != nil {
		col.Error = safe.Line(err.Error())
		for _, chk := range doctorChecks {
			col.Checks = append(col.Checks, doctorCheckResult{Name: chk.name, Error: "connect: " + col.Error})
		}
		fmt.Fprintf(a.stderr, "doctor: %s: %s\n", c.label, col.Error)
		return col
	}
	defer s.Close()
	for _, chk := range doctorChecks {
		res := doctorCheckResult{Name: chk.name, OK: true}
		if err := runCheck(cctx, s, chk); err != nil {
			res.OK, res.Error = false, safe.Line(err.Error())
			fmt.Fprintf(a.stderr, "doctor: %s: %s: %s\n", c.label, chk.name, res.Error)
		}
		col.Checks = append(col.Checks, res)
	}
	return col
}

// printDoctorMatrix prints the checks by columns as a table: "ok", "FAIL", or "FAIL
// connect" when the column's session did not start. The header takes two lines, the
// transport over the era, so that the table fits 80 columns.
func (a *app) printDoctorMatrix(cols []doctorColumnResult) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "")
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c.Transport)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "check")
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c.Protocol)
	}
	fmt.Fprintln(tw)
	for i, chk := range doctorChecks {
		fmt.Fprint(tw, chk.name)
		for _, c := range cols {
			cell := "ok"
			switch {
			case c.Error != "":
				cell = "FAIL connect"
			case i >= len(c.Checks) || !c.Checks[i].OK:
				cell = "FAIL"
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func runCheck(ctx context.Context, s *transport.Session, chk doctorCheck) error {
	if chk.tool == "" {
		tools, err := s.Tools(ctx)
		if err != nil {
			return err
		}
		if len(tools) == 0 {
			return errors.New("no tools listed")
		}
		return nil
	}
	args := chk.args
	if args == nil {
		args = map[string]any{}
	}
	res, _, err := s.CallTool(ctx, chk.tool, args)
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New("tool returned an error result")
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if chk.want != "" && !strings.Contains(text.String(), chk.want) {
		return fmt.Errorf("result %q lacks %q", text.String(), chk.want)
	}
	return nil
}

// approveDemoConsent presses the Approve button of a demo consent page, as a user's
// browser would. Only loopback URLs of the demo server are ever posted to.
func approveDemoConsent(ctx context.Context, pageURL string) {
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(pageURL, "/")+"/approve", nil)
	if err != nil {
		return
	}
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// tokenStoreReport tells where OAuth tokens are kept and why.
func (a *app) tokenStoreReport() doctorTokenStore {
	c, err := a.tokenChoice()
	if err != nil {
		return doctorTokenStore{Error: err.Error()}
	}
	return doctorTokenStore{Where: c.Store.Where(), Reason: c.Reason}
}

// printTokenStore prints where OAuth tokens are kept and why.
func (a *app) printTokenStore(t doctorTokenStore) {
	if t.Error != "" {
		fmt.Fprintf(a.stdout, "token store: unusable: %s\n", t.Error)
		return
	}
	fmt.Fprintf(a.stdout, "token store: %s (%s)\n", t.Where, t.Reason)
}

// inboxReport finds where a proxy listens for inboxes and, for each place an inbox
// looks in, the proxies running there or why it is not read.
func inboxReport(ctx context.Context, places inbox.Places) doctorInbox {
	r := doctorInbox{ProxyDir: places.ProxyDir(), Places: []doctorPlace{}}
	for _, pl := range places.Inspect() {
		p := doctorPlace{Place: pl}
		if !pl.Missing && pl.Problem == "" {
			p.Proxies = len(inbox.ListDirs(ctx, []string{pl.Dir}))
		}
		r.Places = append(r.Places, p)
	}
	return r
}

// printInboxPlaces prints where a proxy listens and where an inbox looks, with the
// proxies running in each place or why it is not read.
func (a *app) printInboxPlaces(ctx context.Context, places inbox.Places) {
	a.printInbox(inboxReport(ctx, places))
}

// printInbox prints an inboxReport.
func (a *app) printInbox(r doctorInbox) {
	fmt.Fprintf(a.stdout, "proxy inbox: a proxy listens in %s\n", r.ProxyDir)
	fmt.Fprintln(a.stdout, "proxy inbox: `elicitty inbox` looks in:")
	for _, pl := range r.Places {
		state := pl.Problem
		if pl.Missing {
			state = "not there yet (no proxy has listened there)"
		} else if state == "" {
			state = fmt.Sprintf("%d proxy(ies) running", pl.Proxies)
		}
		fmt.Fprintf(a.stdout, "  %s: %s\n", pl.Dir, state)
	}
}
