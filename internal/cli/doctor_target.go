package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
)

// runDoctorTarget checks one server the way the other commands would use it (config,
// common flags, OAuth): it connects, prints the server's name, the protocol era and
// why, the capabilities it declares, and lists each declared kind of primitive. Exit 0
// when every check passed, else 4. Nothing is called: the checks have no side effects.
func (a *app) runDoctorTarget(ctx context.Context, srv config.Server) error {
	log, closeLog, err := a.openLog()
	if err != nil {
		return err
	}
	defer closeLog()
	name := safe.Field(srv.Name)
	s, err := a.connect(ctx, srv, log)
	if err != nil {
		fmt.Fprintf(a.stdout, "connect %s: FAIL %s\n", name, safe.Line(err.Error()))
		return &silentError{code: ExitConn}
	}
	defer s.Close()
	info := s.ServerInfo()
	fmt.Fprintf(a.stdout, "connect %s (%s): ok\n", name, s.Kind())
	if info != nil {
		fmt.Fprintf(a.stdout, "server: %s %s\n", serverInfoLine(info.Name), serverInfoLine(info.Version))
	}
	era := s.Era()
	fmt.Fprintf(a.stdout, "protocol: %s (%s)\n", era.Version, safe.Line(era.Reason))
	caps := s.Capabilities()
	fmt.Fprintf(a.stdout, "capabilities: %s\n", capabilityNames(caps))

	failed := 0
	check := func(what string, declared bool, list func() (int, error)) {
		if !declared {
			fmt.Fprintf(a.stdout, "%s: skipped (not declared)\n", what)
			return
		}
		n, err := list()
		if err != nil {
			failed++
			fmt.Fprintf(a.stdout, "%s: FAIL %s\n", what, safe.Line(err.Error()))
			return
		}
		fmt.Fprintf(a.stdout, "%s: ok (%d)\n", what, n)
	}
	check("tools/list", caps != nil && caps.Tools != nil, func() (int, error) {
		t, err := s.Tools(ctx)
		return len(t), err
	})
	check("prompts/list", caps != nil && caps.Prompts != nil, func() (int, error) {
		p, err := s.Prompts(ctx)
		return len(p), err
	})
	check("resources/list", caps != nil && caps.Resources != nil, func() (int, error) {
		r, tm, err := s.Resources(ctx)
		return len(r) + len(tm), err
	})
	if failed > 0 {
		fmt.Fprintf(a.stdout, "%d check(s) failed\n", failed)
		return &silentError{code: ExitConn}
	}
	fmt.Fprintln(a.stdout, "all checks passed")
	return nil
}

// serverInfoLine is a server-controlled name or version, sanitized, on one line and cut.
func serverInfoLine(s string) string {
	s = strings.Join(strings.Fields(safe.Block(s)), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// capabilityNames lists the capabilities a server declares, "none" when it declares none.
func capabilityNames(c *mcp.ServerCapabilities) string {
	if c == nil {
		return "none"
	}
	var names []string
	add := func(ok bool, name string) {
		if ok {
			names = append(names, name)
		}
	}
	add(c.Tools != nil, "tools")
	add(c.Prompts != nil, "prompts")
	add(c.Resources != nil, "resources")
	add(c.Completions != nil, "completions")
	//lint:ignore SA1019 servers of the legacy era still declare logging.
	add(c.Logging != nil, "logging")
	var ext []string
	for k := range c.Extensions {
		ext = append(ext, serverInfoLine(k))
	}
	sort.Strings(ext)
	names = append(names, ext...)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
