package inbox_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/proxy"
	"github.com/elicitty/elicitty/proxy/inbox"
)

// TestURLRequiredThroughTheInbox runs the -32042 path of server-everything's
// trigger-url-elicitation (errorPath: true, no completion ever sent) through a proxy,
// its broker and an inbox: the inbox gets the consent, then the wait for the flow
// (Consented set, elapsed from the consent); "retry now" there (accept) makes the
// proxy send the host's call again at once, and the host gets its result.
func TestURLRequiredThroughTheInbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "scripted-host", Server: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	asks := make(chan *elicit.Request, 4)
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() {
		watched <- inbox.WatchDirs(ctx, []string{dir}, inbox.AnswerWith(elicit.AnswererFunc(
			func(_ context.Context, r *elicit.Request) (elicit.Response, error) {
				asks <- r
				return elicit.Response{Action: elicit.Accept}, nil // consent, then retry now
			})), &inbox.WatchOptions{Poll: 20 * time.Millisecond})
	}()
	defer func() { cancel(); <-watched }()

	hostInR, hostInW := io.Pipe()
	hostOutR, hostOutW := io.Pipe()
	upR, upW := io.Pipe()
	downR, downW := io.Pipe()
	p := proxy.New(proxy.NewPipe(upR, downW, 0, nil), proxy.Options{Server: "everything", Answerer: b, Waits: b})
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, hostInR, hostOutW); hostOutW.Close() }()
	defer func() { hostInW.Close(); upW.Close(); <-ran }()
	host, server := bufio.NewReader(hostOutR), bufio.NewReader(downR)
	line := func(r *bufio.Reader, who string) string {
		t.Helper()
		got := make(chan string, 1)
		go func() { l, _ := r.ReadString('\n'); got <- strings.TrimSpace(l) }()
		select {
		case l := <-got:
			return l
		case <-time.After(5 * time.Second):
			t.Fatalf("%s got nothing", who)
			return ""
		}
	}
	send := func(w io.Writer, s string) {
		t.Helper()
		if _, err := io.WriteString(w, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}

	send(hostInW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scripted-host","version":"1"}}}`)
	line(server, "server")
	send(upW, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"everything","version":"1"}}}`)
	line(host, "host")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"errorPath":true}}}`
	send(hostInW, call)
	line(server, "server")
	send(upW, `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"This request requires more information.","data":{"elicitations":[`+
		`{"mode":"url","message":"Authorization is required to continue.","url":"https://modelcontextprotocol.io","elicitationId":"prereq-1"}]}}}`)

	consent, wait := <-asks, <-asks
	if !consent.Consented.IsZero() || consent.URL != "https://modelcontextprotocol.io" || consent.Origin != elicit.OriginURLRequired {
		t.Errorf("consent = %+v", consent)
	}
	if wait.Consented.IsZero() || time.Since(wait.Consented) > 5*time.Second || wait.URL != consent.URL || wait.ElicitationID != "prereq-1" ||
		wait.Host != "scripted-host" || wait.Tool != "trigger-url-elicitation" {
		t.Errorf("wait = %+v", wait)
	}
	if got := line(server, "server"); got != call {
		t.Fatalf("the retry is %s, want the host's call", got)
	}
	result := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}`
	send(upW, result)
	if got := line(host, "host"); got != result {
		t.Errorf("host got %s", got)
	}
}
