package form

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"charm.land/huh/v2"
	"github.com/charmbracelet/x/term"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// answerAccessible runs the accessible flow. huh's accessible prompts cannot be
// interrupted, so when ctx is done first the flow is abandoned: its output is cut off
// at once, and its goroutine ends at the next line or end of input.
func (p *Prompter) answerAccessible(ctx context.Context, req *elicit.Request, f *elicit.Form) (elicit.Response, error) {
	if err := ctx.Err(); err != nil {
		return elicit.Response{}, err
	}
	type result struct {
		resp elicit.Response
		err  error
	}
	out := &gatedWriter{w: p.out}
	done := make(chan result, 1)
	go func() {
		r, err := p.accessibleFlow(req, f, out)
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
		out.close()
		fmt.Fprintln(p.out, "\nrequest withdrawn: "+context.Cause(ctx).Error())
		return elicit.Response{}, ctx.Err()
	}
}

// gatedWriter writes to w until it is closed, then drops writes.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gatedWriter) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(b), nil
	}
	return g.w.Write(b)
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// accessibleFlow prints the header note, asks whether to answer, runs the fields in
// accessible mode, shows the JSON that would be sent and asks for the action. End of
// input at a question cancels.
func (p *Prompter) accessibleFlow(req *elicit.Request, f *elicit.Form, out io.Writer) (elicit.Response, error) {
	theme := newCachedTheme(noColorTheme)
	head := strings.SplitN(headerText(req, f), "\n", 2)
	note := huh.NewNote().Title(head[0])
	if len(head) > 1 {
		note = note.Description(head[1])
	}
	note.WithTheme(theme)
	if err := note.RunAccessible(out, p.in); err != nil {
		return elicit.Response{}, fmt.Errorf("ui: show request: %w", err)
	}

	a := newAnswers(f)
	if len(f.Fields) > 0 {
		choice, err := p.choose(out, "Answer this request? [A]nswer, [d]ecline, [c]ancel: ", "a", "adc")
		if err != nil {
			return endOfInput(err)
		}
		switch choice {
		case "d":
			return elicit.Response{Action: elicit.Decline}, nil
		case "c":
			return elicit.Response{Action: elicit.Cancel}, nil
		}
	}
	mask := isTerminal(p.in)
	for {
		if len(f.Fields) > 0 {
			fields := a.fields(buildOptions{accessible: true, mask: mask, width: defaultWidth, theme: theme, noValidate: req.NoValidate})
			form := huh.NewForm(huh.NewGroup(fields...)).
				WithAccessible(true).WithInput(p.in).WithOutput(out).WithTheme(theme)
			if err := form.Run(); err != nil {
				return elicit.Response{}, fmt.Errorf("ui: run form: %w", err)
			}
		}
		content, problems := reviewContent(f, a, req.NoValidate)
		b, err := reviewJSON(f, content)
		if err != nil {
			return elicit.Response{}, fmt.Errorf("ui: encode response: %w", err)
		}
		fmt.Fprintf(out, "Review: Accept sends this response:\n%s\n", b)
		for _, pr := range problems {
			fmt.Fprintln(out, pr)
		}
		question, def, valid := "[A]ccept, [e]dit, [d]ecline, [c]ancel: ", "a", "aedc"
		switch {
		case len(problems) > 0:
			question, def, valid = "Fix the errors: [E]dit, [d]ecline, [c]ancel: ", "e", "edc"
		case len(f.Fields) == 0:
			question, valid = "[A]ccept, [d]ecline, [c]ancel: ", "adc"
		}
		choice, err := p.choose(out, question, def, valid)
		if err != nil {
			return endOfInput(err)
		}
		switch choice {
		case "a":
			return elicit.Response{Action: elicit.Accept, Content: content, Files: a.files(content)}, nil
		case "d":
			return elicit.Response{Action: elicit.Decline}, nil
		case "c":
			return elicit.Response{Action: elicit.Cancel}, nil
		}
	}
}

// endOfInput turns the end of input at a question into a cancel.
func endOfInput(err error) (elicit.Response, error) {
	if errors.Is(err, io.EOF) {
		return elicit.Response{Action: elicit.Cancel}, nil
	}
	return elicit.Response{}, err
}

// reviewContent is the merged content Accept would send and what is wrong with it.
func reviewContent(f *elicit.Form, a *answers, noValidate bool) (map[string]any, []string) {
	var problems []string
	content, err := a.content()
	if err != nil {
		problems = append(problems, "✗ "+safe.Block(err.Error()))
	}
	if len(content) == 0 {
		content = nil // an accept without answers carries no content
	}
	merged := f.Merge(content)
	if !noValidate {
		for _, v := range f.Check(merged) {
			problems = append(problems, "✗ "+safe.Block(v.Path+": "+v.Message))
		}
	}
	return merged, problems
}

// choose asks question until the answer's first letter is one of valid; an empty
// answer is def. It reads one byte at a time so that huh's prompts, which make a new
// scanner each, see the rest of the input.
func (p *Prompter) choose(out io.Writer, question, def, valid string) (string, error) {
	for {
		fmt.Fprint(out, question)
		line, err := readLine(p.in)
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			fmt.Fprintln(out)
			return "", err
		}
		s := strings.ToLower(strings.TrimSpace(line))
		if s == "" {
			return def, nil
		}
		if strings.ContainsAny(s[:1], valid) {
			return s[:1], nil
		}
		fmt.Fprintf(out, "please answer one of %s\n", strings.Join(strings.Split(valid, ""), ", "))
	}
}

// readLine reads up to a newline, one byte at a time.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}

// isTerminal reports whether r is a terminal, where secrets can be read unechoed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
