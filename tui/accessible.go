package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/consent"
	"github.com/elicitty/elicitty/tui/form"
)

// lineMode is the --accessible fallback of the TUI: plain lines for screen readers. It
// reads one command per line, runs it to the end, and answers elicitations with
// tui/form's Prompter in accessible mode (URL requests with consent's line prompt).
type lineMode struct {
	ctx  context.Context
	opts Options
	in   io.Reader
	mu   sync.Mutex // serializes writes to out from event callbacks
	out  io.Writer
	sess map[string]session
}

// runAccessible runs the line mode until "quit", end of input or ctx is done.
func runAccessible(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	lm := &lineMode{ctx: ctx, opts: opts, in: in, out: out, sess: map[string]session{}}
	var ans elicit.Answerer = form.NewPrompter(in, out, &form.PrompterOptions{Accessible: true, NoColor: true,
		URL: consent.NewAnswerer(in, out, consent.AnswererOptions{Accessible: true, NoColor: true, Opener: opts.Opener,
			PolicyFor: func(server string) (consent.ServerPolicy, bool) {
				for _, s := range opts.Servers {
					if s.Name == server {
						return consent.ServerPolicy{Policy: transport.URLPolicy(s.URLPolicy),
							CopyOnly: s.URLPolicy.Open == config.URLCopyOnly}, true
					}
				}
				return consent.ServerPolicy{}, false
			}})})
	for _, srv := range opts.Servers {
		lm.printf("connecting to %s…\n", srv.Name)
		s, err := opts.dial(ctx, srv, ans, lm.event)
		if err != nil {
			lm.printf("%s failed: %v\n", srv.Name, err)
			continue
		}
		lm.sess[srv.Name] = s
		lm.printf("%s ready, protocol %s, offers %s\n", srv.Name, s.Protocol(), strings.Join(capNames(s.Capabilities()), ", "))
	}
	defer func() {
		for _, s := range lm.sess {
			_ = s.Close()
		}
	}()
	lm.printf("type help for the commands\n")
	for {
		lm.printf("> ")
		line, err := readLine(in)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read command: %w", err)
		}
		if quit := lm.do(strings.TrimSpace(line)); quit {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (lm *lineMode) printf(format string, args ...any) {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	fmt.Fprintf(lm.out, format, args...)
}

func (lm *lineMode) event(ev transport.Event) {
	lm.printf("[%s %s] %s\n", ev.Server, ev.Kind, ev.Text.Line())
}

// do runs one command; it reports whether the user quit.
func (lm *lineMode) do(line string) (quit bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "quit", "exit", "q":
		return true
	case "help":
		lm.printf("commands: servers · tools · prompts · call SERVER TOOL [JSON] · get SERVER PROMPT [JSON] · read SERVER URI · quit\n")
	case "servers":
		for _, srv := range lm.opts.Servers {
			state := "failed"
			if _, ok := lm.sess[srv.Name]; ok {
				state = "ready"
			}
			lm.printf("%s: %s\n", srv.Name, state)
		}
	case "tools", "prompts":
		for _, srv := range lm.opts.Servers {
			s, ok := lm.sess[srv.Name]
			if !ok {
				continue
			}
			msg := listCatalog(lm.ctx, s, nil)().(catalogMsg)
			tools, prompts, _ := catalogItems(msg)
			items := tools
			if f[0] == "prompts" {
				items = prompts
			}
			for _, it := range items {
				lm.printf("%s %s: %s\n", it.server, safe.Line(it.name), firstLine(safe.Block(it.desc)))
			}
		}
	case "call", "get", "read":
		lm.call(f[0], line, f)
	default:
		lm.printf("unknown command %q; type help\n", f[0])
	}
	return false
}

func (lm *lineMode) call(verb, line string, f []string) {
	if len(f) < 3 {
		lm.printf("usage: %s SERVER NAME [JSON]\n", verb)
		return
	}
	s, ok := lm.sess[f[1]]
	if !ok {
		lm.printf("%s is not connected\n", f[1])
		return
	}
	var args map[string]any
	if rest := strings.TrimSpace(strings.SplitN(line, f[2], 2)[1]); rest != "" {
		if err := json.Unmarshal([]byte(rest), &args); err != nil {
			lm.printf("arguments must be a JSON object: %v\n", err)
			return
		}
	}
	kind := map[string]catKind{"call": catTools, "get": catPrompts, "read": catResources}[verb]
	name := f[2]
	if kind == catResources && transport.IsTemplate(name) {
		// A resource template: the JSON object fills its variables.
		uri, err := expandWith(name, args)
		if err != nil {
			lm.printf("%s\n", err)
			return
		}
		name, args = uri, nil
	}
	done := runCall(lm.ctx, s, 0, kind, catItem{server: f[1], name: name}, args)().(callDoneMsg)
	if done.isErr {
		lm.printf("error:\n%s\n", done.text)
		return
	}
	lm.printf("%s\n", done.text)
}

// readLine reads one line a byte at a time, so that nothing after it is consumed: the
// prompter reads the same input for its answers.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				return string(b), nil
			}
			return "", err
		}
	}
}
