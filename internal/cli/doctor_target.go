package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// doctorTargetReport is what `elicitty doctor TARGET` found: printed as text, or with
// --json as one JSON document on stdout.
type doctorTargetReport struct {
	Server    string `json:"server"`
	Transport string `json:"transport,omitempty"`
	Connected bool   `json:"connected"`
	// Error is why the session did not start.
	Error string `json:"error,omitempty"`
	// ServerInfo is the name and version the server gave, as sent (the JSON output
	// escapes what a terminal must not get raw).
	ServerInfo *doctorServerInfo `json:"serverInfo,omitempty"`
	// Protocol is the era the session got, as in doctor's defaultEras and columns,
	// and ProtocolReason why.
	Protocol       string              `json:"protocol,omitempty"`
	ProtocolReason string              `json:"protocolReason,omitempty"`
	Capabilities   []string            `json:"capabilities,omitempty"`
	Checks         []doctorTargetCheck `json:"checks,omitempty"`
	Failed         int                 `json:"failed"`
	OK             bool                `json:"ok"`
}

// doctorServerInfo is a server's serverInfo.
type doctorServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// doctorTargetCheck is one listing of a declared kind of primitive.
type doctorTargetCheck struct {
	Name     string `json:"name"`
	Declared bool   `json:"declared"`
	OK       bool   `json:"ok"`
	Count    int    `json:"count"`
	Error    string `json:"error,omitempty"`
}

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
	r := a.checkTarget(ctx, srv, log)
	if a.jsonOut {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else {
		a.printTargetReport(r)
	}
	if !r.OK {
		return &silentError{code: ExitConn}
	}
	return nil
}

// checkTarget connects to srv and lists each kind of primitive it declares.
func (a *app) checkTarget(ctx context.Context, srv config.Server, log *wire.Log) doctorTargetReport {
	r := doctorTargetReport{Server: srv.Name}
	s, err := a.connect(ctx, srv, log)
	if err != nil {
		r.Error, r.Failed = safe.Line(err.Error()), 1
		return r
	}
	defer s.Close()
	r.Connected, r.Transport = true, string(s.Kind())
	if info := s.ServerInfo(); info != nil {
		r.ServerInfo = &doctorServerInfo{Name: info.Name, Version: info.Version}
	}
	era := s.Era()
	r.Protocol, r.ProtocolReason = era.Version, safe.Line(era.Reason)
	caps := s.Capabilities()
	r.Capabilities = capabilityList(caps)
	check := func(what string, declared bool, list func() (int, error)) {
		c := doctorTargetCheck{Name: what, Declared: declared}
		if declared {
			n, err := list()
			if err != nil {
				r.Failed++
				c.Error = safe.Line(err.Error())
			} else {
				c.OK, c.Count = true, n
			}
		}
		r.Checks = append(r.Checks, c)
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
	r.OK = r.Failed == 0
	return r
}

// printTargetReport prints r as text, one line a finding.
func (a *app) printTargetReport(r doctorTargetReport) {
	name := safe.Field(r.Server)
	if !r.Connected {
		fmt.Fprintf(a.stdout, "connect %s: FAIL %s\n", name, r.Error)
		return
	}
	fmt.Fprintf(a.stdout, "connect %s (%s): ok\n", name, r.Transport)
	if r.ServerInfo != nil {
		fmt.Fprintf(a.stdout, "server: %s %s\n", serverInfoLine(r.ServerInfo.Name), serverInfoLine(r.ServerInfo.Version))
	}
	fmt.Fprintf(a.stdout, "protocol: %s (%s)\n", r.Protocol, r.ProtocolReason)
	caps := "none"
	if len(r.Capabilities) > 0 {
		caps = strings.Join(r.Capabilities, ", ")
	}
	fmt.Fprintf(a.stdout, "capabilities: %s\n", caps)
	for _, c := range r.Checks {
		switch {
		case !c.Declared:
			fmt.Fprintf(a.stdout, "%s: skipped (not declared)\n", c.Name)
		case !c.OK:
			fmt.Fprintf(a.stdout, "%s: FAIL %s\n", c.Name, c.Error)
		default:
			fmt.Fprintf(a.stdout, "%s: ok (%d)\n", c.Name, c.Count)
		}
	}
	if r.Failed > 0 {
		fmt.Fprintf(a.stdout, "%d check(s) failed\n", r.Failed)
	} else {
		fmt.Fprintln(a.stdout, "all checks passed")
	}
}

// serverInfoLine is a server-controlled name or version, sanitized, on one line and cut.
func serverInfoLine(s string) string {
	s = strings.Join(strings.Fields(safe.Block(s)), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// capabilityList lists the capabilities a server declares; extension names are
// sanitized and cut as serverInfoLine does.
func capabilityList(c *mcp.ServerCapabilities) []string {
	names := []string{}
	if c == nil {
		return names
	}
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
	return append(names, ext...)
}
