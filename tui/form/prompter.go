package form

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tui/sampling"
)

// PrompterOptions configures a Prompter; nil means defaults (interactive, colour, URL
// requests cancelled).
type PrompterOptions struct {
	// Accessible runs forms in huh's accessible mode: plain numbered prompts, one line
	// at a time, for screen readers and terminals that cannot run the interactive form.
	Accessible bool
	// NoColor draws without colour.
	NoColor bool
	// URL answers URL-mode requests. When nil they are cancelled, with a note.
	URL elicit.Answerer
}

// Prompter is the inline Answerer of the headless commands (call, prompt, read, render):
// it runs each request's form on the terminal, one request at a time, with its UI on out.
// It is safe for concurrent use: concurrent requests wait their turn. Create it with
// NewPrompter; the zero value is not usable.
type Prompter struct {
	in   io.Reader
	out  io.Writer
	opts PrompterOptions
	// turn holds a token while a request is on screen.
	turn chan struct{}
}

var _ elicit.Answerer = (*Prompter)(nil)

// NewPrompter returns a Prompter reading keys (or, in accessible mode, lines) from in and
// drawing on out, normally the terminal's stdin and stderr.
func NewPrompter(in io.Reader, out io.Writer, opts *PrompterOptions) *Prompter {
	p := &Prompter{in: in, out: out, turn: make(chan struct{}, 1)}
	if opts != nil {
		p.opts = *opts
	}
	return p
}

// Answer implements elicit.Answerer. It waits for the requests before it to be answered,
// then shows req and returns what the user chose. When ctx is done it closes the form and
// returns ctx.Err().
func (p *Prompter) Answer(ctx context.Context, req *elicit.Request) (elicit.Response, error) {
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return elicit.Response{}, ctx.Err()
	}
	defer func() { <-p.turn }()

	if req.Mode == elicit.ModeSampling {
		return sampling.AnswerLines(ctx, p.in, p.out, req, 0)
	}
	if req.Mode == elicit.ModeURL {
		if p.opts.URL != nil {
			return p.opts.URL.Answer(ctx, req)
		}
		fmt.Fprintf(p.out, "%s asks you to open a URL, which this prompt cannot do: cancelled\n",
			headerServer(req))
		return elicit.Response{Action: elicit.Cancel}, nil
	}
	if w, ok := p.opts.URL.(interface{ StopWaiting() }); ok {
		w.StopWaiting() // a URL flow's inline wait gives the terminal back to the form
	}
	f := req.ParsedForm()
	if p.opts.Accessible {
		return p.answerAccessible(ctx, req, f)
	}
	return p.answerInline(ctx, req, f)
}

// answerInline runs the Model as an inline bubbletea program on the terminal.
func (p *Prompter) answerInline(ctx context.Context, req *elicit.Request, f *elicit.Form) (elicit.Response, error) {
	m := NewModel(req, f, Options{NoColor: p.opts.NoColor})
	opts := []tea.ProgramOption{tea.WithInput(p.in), tea.WithOutput(p.out), tea.WithContext(ctx)}
	if p.opts.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err := tea.NewProgram(inlineModel{m: m}, opts...).Run()
	if ctx.Err() != nil {
		return elicit.Response{}, ctx.Err()
	}
	if resp, ok := m.Done(); ok {
		return resp, nil
	}
	if err != nil && !errors.Is(err, tea.ErrInterrupted) {
		return elicit.Response{}, fmt.Errorf("ui: run form: %w", err)
	}
	// The program ended without an answer (interrupted): that is a dismissal.
	return elicit.Response{Action: elicit.Cancel}, nil
}

// inlineModel runs a Model as a whole program: it sizes it from the terminal and
// quits once it is answered.
type inlineModel struct{ m *Model }

func (w inlineModel) Init() tea.Cmd { return w.m.Init() }

func (w inlineModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		w.m.SetSize(ws.Width, ws.Height)
		return w, nil
	}
	cmd := w.m.Update(msg)
	if _, done := w.m.Done(); done {
		return w, tea.Quit
	}
	return w, cmd
}

func (w inlineModel) View() tea.View {
	if resp, done := w.m.Done(); done {
		return tea.NewView(fmt.Sprintf("%s: %s\n", headerServer(w.m.req), resp.Action))
	}
	return tea.NewView(w.m.View())
}

// headerServer names the asking server for one-line notes.
func headerServer(req *elicit.Request) string {
	if req == nil || req.Server == "" {
		return "the server"
	}
	return fmt.Sprintf("%q", oneLine(safe.Block(req.Server)))
}
