package sampling

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// maxReplyBytes bounds a reply typed at the line prompt.
const maxReplyBytes = 1 << 20

// AnswerLines asks a sampling request at a line prompt: it prints the request, reads
// the reply (lines up to one holding only "."), the model name, and asks before
// sending. "/decline" or "/cancel" as the first line of a reply answer so; the end of
// input cancels. It reads in one byte at a time, so that nothing after the answer is
// consumed. width wraps the request (zero means 80).
func AnswerLines(ctx context.Context, in io.Reader, out io.Writer, req *elicit.Request, width int) (elicit.Response, error) {
	if width <= 0 {
		width = 80
	}
	lr := &lineReader{r: in}
	var b strings.Builder
	head := fmt.Sprintf("%s asks for a model reply (sampling)", oneLine(req.ServerLabel()))
	if req.Tool != "" {
		head += " for " + oneLine(req.Tool)
	}
	b.WriteString(head + "\n")
	for _, l := range RequestLines(req.Sampling, width, func(s ...string) string { return strings.Join(s, " ") + ":" }) {
		b.WriteString(l + "\n")
	}
	fmt.Fprint(out, b.String())

	text := ""
	if req.Sampling != nil {
		text = req.Sampling.Draft
	}
	for {
		if err := ctx.Err(); err != nil {
			return elicit.Response{}, err
		}
		if text == "" {
			fmt.Fprintln(out, `Write the assistant's reply; end it with a line holding only ".". A first line "/decline" declines, "/cancel" cancels.`)
			t, action, err := readReply(lr)
			if err != nil || action != "" {
				return elicit.Response{Action: cmpAction(action)}, ignoreEOF(err)
			}
			if strings.TrimSpace(t) == "" {
				fmt.Fprintln(out, "The reply is empty.")
				continue
			}
			text = t
		}
		fmt.Fprintf(out, "Model name [%s]: ", elicit.DefaultModel)
		model, err := lr.line()
		if err != nil {
			return elicit.Response{Action: elicit.Cancel}, ignoreEOF(err)
		}
		reply := elicit.SampleReply{Text: text, Model: strings.TrimSpace(model)}.Complete()
		fmt.Fprintf(out, "Reply to send to %s as model %q (stop reason %s):\n", oneLine(req.ServerLabel()), oneLine(reply.Model), reply.StopReason)
		for _, l := range strings.Split(reply.Text, "\n") {
			fmt.Fprintln(out, "  "+safe.Block(l))
		}
		fmt.Fprint(out, "Send it? [y]es, [e]dit, [d]ecline, [c]ancel: ")
		choice, err := lr.line()
		if err != nil {
			return elicit.Response{Action: elicit.Cancel}, ignoreEOF(err)
		}
		switch strings.ToLower(strings.TrimSpace(choice)) {
		case "y", "yes":
			return elicit.Response{Action: elicit.Accept, Sample: &reply}, nil
		case "d", "decline":
			return elicit.Response{Action: elicit.Decline}, nil
		case "c", "cancel":
			return elicit.Response{Action: elicit.Cancel}, nil
		}
		text = "" // edit: write it again
	}
}

func cmpAction(a elicit.Action) elicit.Action {
	if a == "" {
		return elicit.Cancel
	}
	return a
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// readReply reads reply lines up to a "." line; a first line "/decline" or "/cancel"
// returns that action instead.
func readReply(lr *lineReader) (string, elicit.Action, error) {
	var lines []string
	size := 0
	for {
		l, err := lr.line()
		if err != nil {
			return "", elicit.Cancel, err
		}
		if len(lines) == 0 {
			switch strings.TrimSpace(l) {
			case "/decline":
				return "", elicit.Decline, nil
			case "/cancel":
				return "", elicit.Cancel, nil
			}
		}
		if l == "." {
			return strings.Join(lines, "\n"), "", nil
		}
		size += len(l) + 1
		if size > maxReplyBytes {
			return "", elicit.Cancel, fmt.Errorf("reply longer than %d bytes", maxReplyBytes)
		}
		lines = append(lines, l)
	}
}

// lineReader reads lines one byte at a time.
type lineReader struct{ r io.Reader }

// line returns the next line without its end (\n or \r\n); io.EOF at the end of input
// with nothing read.
func (lr *lineReader) line() (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) <= maxReplyBytes {
		n, err := lr.r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			b = append(b, one[0])
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				return string(b), nil
			}
			return "", err
		}
	}
	return "", fmt.Errorf("line longer than %d bytes", maxReplyBytes)
}
