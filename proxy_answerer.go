package main

import (
	"context"
	"io"

	"github.com/elicitty/elicitty/elicit"
)

// proxyAnswerer chooses who answers the questions `elicitty proxy` takes on for host
// (its clientInfo.name, "" before its initialize) and server (the configured name):
// the answers file of --answers, else an answerer that says nobody can answer yet and
// cancels. It returns the answerer and a func that releases it. The proxy wraps the
// answerer in the Engine (defaults, validation) and bounds each call by --wait.
func (a *app) proxyAnswerer(ctx context.Context, host, server string) (elicit.Answerer, func() error, error) {
	_, _ = ctx, host
	if a.answersPath != "" {
		// The script's own line quotes the server's message: the proxy logs the
		// answer's action itself.
		s, err := a.loadScript(a.proxy.server, io.Discard)
		if err != nil {
			return nil, nil, err
		}
		return s, func() error { return nil }, nil
	}
	return elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
		a.proxyLogf("%s asks (%s mode): no answers file; the inbox is not built yet: answering cancel", req.ServerLabel(), modeOf(req))
		return elicit.Response{Action: elicit.Cancel}, nil
	}), func() error { return nil }, nil
}
