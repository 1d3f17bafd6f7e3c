package cli

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// userMessage is what the user reads for err, the error a command ended with: the
// sanitized error with the words of Go's and go-sdk's layers (context canceled, use of
// closed network connection, calling "tools/call", dial tcp 127.0.0.1:...) replaced by
// what they mean for the user's action, and a hint naming the flag that bounds a wait
// that ran out. It is the one place where those words are translated.
func userMessage(err error) string {
	msg := safe.Block(err.Error())
	if errors.Is(err, elicit.ErrUnanswered) {
		// What the server said is its answer to our not answering: it only repeats it.
		if i := strings.LastIndex(msg, " (server said: "); i >= 0 && strings.HasSuffix(msg, ")") {
			msg = msg[:i]
		}
	}
	for _, r := range lowLevelWords() {
		msg = r.re.ReplaceAllString(msg, r.with)
	}
	var hs *transport.HandshakeTimeoutError
	switch {
	case errors.As(err, &hs):
		msg += "; allow it longer with --handshake-timeout"
	case errors.Is(err, transport.ErrTimeout) && !strings.Contains(msg, "--timeout"):
		msg += "; allow it longer with --timeout"
	}
	return msg
}

// rewrite replaces what re matches by with (regexp.ReplaceAllString's template).
type rewrite struct {
	re   *regexp.Regexp
	with string
}

// lowLevelWords are the rewrites of userMessage, applied in order.
var lowLevelWords = sync.OnceValue(func() []rewrite {
	return []rewrite{
		// go-sdk's frames: `calling "tools/call": `, `connection closed: `.
		{regexp.MustCompile(`(calling|sending) "[^"]*": `), ""},
		{regexp.MustCompile(`rejected by transport: `), ""},
		{regexp.MustCompile(`connection closed: (client|server) is closing(: )?`), ""},
		{regexp.MustCompile(`(client|server) is closing(: )?`), ""},
		// net's frames: `dial tcp 127.0.0.1:18765: `, `read tcp 127.0.0.1:1->127.0.0.1:2: `.
		{regexp.MustCompile(`(dial|read|write) (tcp|tcp4|tcp6|udp|unix)(?: \S+)?: (connect: )?`), ""},
		{regexp.MustCompile(`(Get|Post|Delete|Put) "[^"]*": `), ""},
		{regexp.MustCompile(`connection refused`), "nothing is listening there (is the server running?)"},
		{regexp.MustCompile(`connection reset by peer`), "the server reset the connection"},
		{regexp.MustCompile(`use of closed network connection`), "the connection was closed"},
		{regexp.MustCompile(`request terminated without response`), "the server closed the connection before answering"},
		{regexp.MustCompile(`broken pipe`), "the server stopped reading"},
		{regexp.MustCompile(`\bunexpected EOF\b|(: |^)EOF$`), "${1}the server closed the connection"},
		{regexp.MustCompile(`\b(?:read|write): (the server|the connection)`), "$1"},
		{regexp.MustCompile(`context canceled`), "the call was cancelled"},
		{regexp.MustCompile(`context deadline exceeded`), "it timed out"},
		{regexp.MustCompile(`\bconnection closed\b`), "the server closed the connection"},
		// elicit.ErrUnanswered behind the server's name (say, 127.0.0.1:18765).
		{regexp.MustCompile(`(?:[^\s:]+:\d+: )?elicitation could not be answered`), "the question was not answered"},
	}
})
