package elicit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/elicitty/elicitty/internal/safe"
)

// Draft command bounds.
const (
	// DefaultDraftTimeout bounds one run of the sampling command.
	DefaultDraftTimeout = 2 * time.Minute
	// maxDraft bounds what the command may print.
	maxDraft = 1 << 20
)

// Drafter is an Answerer that asks a command (config sampling.command) for a draft
// reply to each sampling request before its inner Answerer sees the request: the
// command gets the request's params (JSON) on stdin, and what it prints becomes
// Sampling.Draft, which a person approves or edits (or an answers entry with approve:
// auto sends). A failing command leaves the draft empty and says why in DraftErr; the
// request is asked all the same. Other requests pass through. It is safe for
// concurrent use when inner is.
type Drafter struct {
	inner   Answerer
	argv    []string
	timeout time.Duration
}

// NewDrafter wraps inner; argv is the command and its arguments; timeout <= 0 means
// DefaultDraftTimeout.
func NewDrafter(inner Answerer, argv []string, timeout time.Duration) *Drafter {
	if timeout <= 0 {
		timeout = DefaultDraftTimeout
	}
	return &Drafter{inner: inner, argv: append([]string(nil), argv...), timeout: timeout}
}

// Answer implements Answerer.
func (d *Drafter) Answer(ctx context.Context, req *Request) (Response, error) {
	if req.Mode != ModeSampling || req.Sampling == nil || len(d.argv) == 0 {
		return d.inner.Answer(ctx, req)
	}
	s := *req.Sampling
	draft, err := d.draft(ctx, req.Params)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		s.DraftErr = oneLine(err.Error(), 300)
	} else {
		s.Draft = draft
	}
	asked := *req
	asked.Sampling = &s
	return d.inner.Answer(ctx, &asked)
}

// draft runs the command with params on stdin and returns what it printed, sanitized,
// without trailing newlines.
func (d *Drafter) draft(ctx context.Context, params []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.argv[0], d.argv[1:]...)
	cmd.WaitDelay = time.Second
	cmd.Stdin = bytes.NewReader(params)
	var out, errb limitedBuffer
	out.max, errb.max = maxDraft, 4096
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	name := d.argv[0]
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("sampling command %q: no draft within %s", name, d.timeout)
	case err != nil:
		msg := fmt.Sprintf("sampling command %q: %v", name, err)
		if tail := strings.TrimSpace(errb.String()); tail != "" {
			msg += ": " + tail
		}
		return "", errors.New(msg)
	case out.over:
		return "", fmt.Errorf("sampling command %q printed more than %d bytes", name, maxDraft)
	}
	draft := strings.TrimRight(safe.Block(out.String()), "\n")
	if strings.TrimSpace(draft) == "" {
		return "", fmt.Errorf("sampling command %q printed nothing", name)
	}
	return draft, nil
}

// limitedBuffer keeps the first max bytes written and notes whether more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

// Write implements io.Writer; it never fails, so the command is not killed by a pipe.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

var _ io.Writer = (*limitedBuffer)(nil)
