package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// ParseTarget resolves a TARGET argument: an http:// or https:// URL becomes an HTTP server
// named by its host (and port), anything else is a server name looked up in cfg. An
// unknown name is an error listing the known names; a name whose imported entry could not
// be used reports why, and a name from a project folder the user has not trusted is an
// *UntrustedError (errors.Is ErrUntrusted). A stdio command given after -- is built with
// CommandServer instead.
func ParseTarget(arg string, cfg Config) (Server, error) {
	if arg == "" {
		return Server{}, fmt.Errorf("empty server name")
	}
	if scheme, _, ok := strings.Cut(arg, "://"); ok {
		switch strings.ToLower(scheme) {
		case "http", "https":
		default:
			return Server{}, fmt.Errorf("target: unsupported scheme %q (want http or https)", scheme)
		}
		if msg := checkURL(arg); msg != "" {
			return Server{}, fmt.Errorf("target: %s", msg)
		}
		u, _ := url.Parse(arg) // checked above
		return Server{Name: strings.ToLower(u.Host), Kind: KindHTTP, URL: arg}, nil
	}
	if s, ok := cfg.Lookup(arg); ok {
		return s, nil
	}
	if s, ok := cfg.UntrustedServer(arg); ok {
		return Server{}, &UntrustedError{Server: s.Name, Dir: s.Project}
	}
	for _, p := range cfg.Problems {
		if p.Server == arg {
			return Server{}, fmt.Errorf("server %q cannot be used: %w", arg, p.Err)
		}
	}
	if len(cfg.Servers)+len(cfg.Builtin) == 0 {
		return Server{}, fmt.Errorf("unknown server %q: no servers are configured (give an http(s) URL, or a command after --)", arg)
	}
	return Server{}, fmt.Errorf("unknown server %q (known: %s)", arg, strings.Join(cfg.Names(), ", "))
}

// CommandServer returns a stdio server that runs argv, named after the command's base name
// ("npx"; a Windows ".exe" is dropped). An empty argv gives the zero Server, which is not
// valid. Nothing in argv is expanded: the shell already did that.
func CommandServer(argv []string) Server {
	if len(argv) == 0 {
		return Server{}
	}
	base := filepath.Base(argv[0])
	if strings.EqualFold(filepath.Ext(base), ".exe") && len(base) > 4 {
		base = base[:len(base)-4]
	}
	return Server{
		Name:    base,
		Kind:    KindStdio,
		Command: argv[0],
		Args:    append([]string(nil), argv[1:]...),
	}
}
