package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// TestUserMessageHasNoGoWords: the errors the layers below end a command with, built
// as they build them, read as sentences about the user's action.
func TestUserMessageHasNoGoWords(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 18765}, Err: &net.OpError{Op: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"cancelled", fmt.Errorf("tools/call slow: %w", context.Canceled), "tools/call slow: the call was cancelled"},
		{"deadline", fmt.Errorf("tools/list: %w", context.DeadlineExceeded), "tools/list: it timed out"},
		{"terminated", fmt.Errorf("tools/call slow: %w", fmt.Errorf("calling %q: %w", "tools/call", errors.New("request terminated without response"))),
			"tools/call slow: the server closed the connection before answering"},
		{"closed", fmt.Errorf("tools/call slow: %w", fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, "tools/call", fmt.Errorf("client is closing: %w", io.EOF))),
			"tools/call slow: the server closed the connection"},
		{"rejected", errors.New(`tools/call slow: calling "tools/call": sending "tools/call": rejected by transport: Post "http://127.0.0.1:37649/mcp": EOF`),
			"tools/call slow: the server closed the connection"},
		{"reset", fmt.Errorf("tools/call slow: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), "tools/call slow: the server reset the connection"},
		{"closed net", fmt.Errorf("read: %w", &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{Port: 1}, Addr: &net.TCPAddr{Port: 2}, Err: net.ErrClosed}), "the connection was closed"},
		{"refused", &transport.ConnError{Server: "127.0.0.1:18765", Err: fmt.Errorf("cannot reach http://127.0.0.1:18765/mcp: %w", dial)},
			`server "127.0.0.1:18765": cannot reach http://127.0.0.1:18765/mcp: nothing is listening there (is the server running?)`},
		{"handshake", &transport.ConnError{Server: "e", Err: &transport.HandshakeTimeoutError{After: 2 * time.Minute, Runner: "npx"}},
			`server "e": did not answer initialize within 2m0s (npx may still have been downloading it); allow it longer with --handshake-timeout`},
		{"unanswered", safe.Errorf("tools/call deploy: %w (server said: %v)", fmt.Errorf("%s: %w", "127.0.0.1:18765", elicit.ErrUnanswered), errors.New("elicitation not answered: 127.0.0.1:18765: elicitation could not be answered")),
			"tools/call deploy: the question was not answered"},
		{"unanswered input", fmt.Errorf(`tools/call mrtr_one: input "color": %w`, fmt.Errorf("%s: %w", "demo", elicit.ErrUnanswered)),
			`tools/call mrtr_one: input "color": demo: the question was not answered`},
		{"timeout", fmt.Errorf("tools/call slow: %w after 300ms", transport.ErrTimeout), "tools/call slow: request timed out after 300ms; allow it longer with --timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := userMessage(tc.err)
			if got != tc.want {
				t.Errorf("userMessage(%q)\n got %q\nwant %q", tc.err, got, tc.want)
			}
			for _, w := range []string{"context canceled", "deadline exceeded", "use of closed", "calling \"", "sending \"", "transport", "dial tcp", "EOF", "could not be answered"} {
				if strings.Contains(got, w) {
					t.Errorf("%q still says %q", got, w)
				}
			}
		})
	}
}
