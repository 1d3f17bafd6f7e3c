package cli

import (
	"context"
	"io"
	"os"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/proxy/inbox"
)

// proxyAnswerer chooses who answers the questions `elicitty proxy` takes on for host
// (its clientInfo.name, "" before its initialize) and server (the configured name):
// the answers file of --answers, else the user in `elicitty inbox` (or the TUI's
// Inbox), through the inbox broker's socket in the runtime directory; with no inbox
// attached the broker raises a desktop notification and waits. When the runtime
// directory cannot be used the proxy still relays and answers cancel, with a line in
// its log. It returns the answerer and a func that releases it. The proxy wraps the
// answerer in the Engine (defaults, validation) and bounds each call by --wait.
func (a *app) proxyAnswerer(_ context.Context, host, server string) (elicit.Answerer, func() error, error) {
	if a.answersPath != "" {
		// The script's own line quotes the server's message: the proxy logs the
		// answer's action itself.
		s, err := a.loadScript(a.proxy.server, io.Discard)
		if err != nil {
			return nil, nil, err
		}
		return s, func() error { return nil }, nil
	}
	b, err := a.inboxBroker(host, server)
	if err != nil {
		a.proxyLogf("no inbox: %v; every question is answered cancel", err)
		return elicit.AnswererFunc(func(_ context.Context, req *elicit.Request) (elicit.Response, error) {
			a.proxyLogf("%s asks (%s mode): no answers file and no inbox: answering cancel", req.ServerLabel(), req.ModeOrForm())
			return elicit.Response{Action: elicit.Cancel}, nil
		}), func() error { return nil }, nil
	}
	a.proxyLogf("questions go to `elicitty inbox` (socket %s)", b.Path())
	return b, b.Close, nil
}

// inboxBroker opens the proxy's inbox socket in the runtime directory; its log lines
// go to the proxy's log.
func (a *app) inboxBroker(host, server string) (*inbox.Broker, error) {
	dir, err := inbox.RuntimeDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	return inbox.Listen(dir, inbox.BrokerOptions{Host: host, Server: server,
		Log: lineWriter(func(s string) { a.proxyLogf("%s", s) }), Notify: inbox.DefaultNotifier(os.Getenv)})
}
