package transport

import (
	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// ForServer returns the session options a server's config entry asks for: URL mode
// unless its URL policy disables it, its protocol and MRTR round limit, its roots
// (declared unless NoRoots) and log level, and answerer
// wrapped in an elicit.Engine that validates accepted content unless the entry says
// validation: false (the Engine puts that switch on each request it hands answerer).
// Apply command-line flags to srv first. Callers add what only they know: the client's
// identity, the wire log, events, OAuth.
func ForServer(srv config.Server, answerer elicit.Answerer) Options {
	o := Options{
		Answerer:  elicit.NewEngine(answerer, &elicit.EngineOptions{NoValidate: !srv.ValidationEnabled()}),
		URLMode:   !srv.URLPolicy.Disabled,
		Protocol:  srv.Protocol,
		MaxRounds: srv.MaxRounds,
		LogLevel:  srv.LogLevel,
		// Draft SEP-2356 file inputs: file fields and the fileInputs capability.
		FileInputs: srv.Experiment(config.ExperimentFileInputs),
	}
	if !srv.NoRoots {
		o.Roots = append([]string{}, srv.Roots...)
	}
	return o
}

// URLPolicy is a server's configured URL policy as the URL analyser takes it, the one
// conversion every front end uses. Plain http to a remote host is warned, not refused,
// unless the policy is https-only (docs/protocol.md, "Request checks"); loopback http is
// always allowed.
func URLPolicy(p config.URLPolicy) urlsafe.Policy {
	return urlsafe.Policy{AllowedHosts: p.AllowedHosts, HTTPSOnly: p.HTTPSOnly, AllowHTTPRemote: !p.HTTPSOnly}
}
