package elicit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
)

// EngineOptions configures an Engine; nil means defaults (validation on, no log).
type EngineOptions struct {
	// NoValidate sends what the answerer produced (after the defaults merge), skipping
	// validation (--no-validate, or validation: false for a server).
	NoValidate bool
	// Log, when set, receives one line per lint finding of each form request (dropped
	// defaults are server defects worth seeing in a CI log).
	Log io.Writer
}

// Engine is the Answerer the transport calls: it checks the request, parses its schema,
// asks the inner Answerer, and on accept merges defaults and validates. The zero value
// is not usable; build one with NewEngine. It is safe for concurrent use when the inner
// Answerer is.
//
// Errors: a malformed or disallowed request returns a *ProtocolError without asking;
// an accepted content that fails the schema returns a *ViolationsError (never wrapped);
// the inner Answerer's errors are returned as they are.
type Engine struct {
	inner Answerer
	opts  EngineOptions
}

// NewEngine wraps inner.
func NewEngine(inner Answerer, opts *EngineOptions) *Engine {
	e := &Engine{inner: inner}
	if opts != nil {
		e.opts = *opts
	}
	return e
}

// Answer implements Answerer.
func (e *Engine) Answer(ctx context.Context, req *Request) (Response, error) {
	if req.Mode == ModeSampling {
		return e.answerSampling(ctx, req)
	}
	if req.Message == "" {
		return Response{}, &ProtocolError{Reason: "missing message"}
	}
	switch req.Mode {
	case ModeURL:
		return e.answerURL(ctx, req)
	case "", ModeForm:
		return e.answerForm(ctx, req)
	}
	return Response{}, &ProtocolError{Reason: fmt.Sprintf("unknown elicitation mode %q", req.Mode)}
}

func (e *Engine) answerForm(ctx context.Context, req *Request) (Response, error) {
	if s := bytes.TrimSpace(req.Schema); len(s) == 0 || string(s) == "null" {
		return Response{}, &ProtocolError{Reason: "missing requestedSchema"}
	}
	form := req.ParsedForm() // the caller's parse, when it made one
	if e.opts.Log != nil {
		for _, f := range form.Findings {
			fmt.Fprintf(e.opts.Log, "elicitty: %s: schema %s: %s\n", safe.Block(req.Server), f.Code, safe.Block(f.Message))
		}
	}
	// The inner Answerer gets a copy that carries the parse and the validation switch:
	// a Request is never modified once handed out.
	asked := *req
	asked.Form, asked.NoValidate = form, e.opts.NoValidate
	resp, err := e.inner.Answer(ctx, &asked)
	if err != nil {
		return Response{}, err
	}
	switch resp.Action {
	case Decline, Cancel:
		return Response{Action: resp.Action}, nil
	case Accept:
	default:
		return Response{}, fmt.Errorf("elicit: answerer returned unknown action %q", resp.Action)
	}
	content := form.Merge(resp.Content)
	if !e.opts.NoValidate {
		if vs := form.Check(content); len(vs) > 0 {
			return Response{}, &ViolationsError{Violations: vs}
		}
	}
	return Response{Action: Accept, Content: content}, nil
}

func (e *Engine) answerURL(ctx context.Context, req *Request) (Response, error) {
	if err := checkURLRequest(req); err != nil {
		return Response{}, err
	}
	resp, err := e.inner.Answer(ctx, req)
	if err != nil {
		return Response{}, err
	}
	switch resp.Action {
	case Accept, Decline, Cancel:
		return Response{Action: resp.Action}, nil
	}
	return Response{}, fmt.Errorf("elicit: answerer returned unknown action %q", resp.Action)
}

// checkURLRequest applies the URL-mode request checks of docs/protocol.md, "Request checks".
func checkURLRequest(req *Request) *ProtocolError {
	if !req.URLDeclared {
		return &ProtocolError{Reason: "client does not support URL-mode elicitation"}
	}
	if len(req.Schema) > 0 && strings.TrimSpace(string(req.Schema)) != "null" {
		return &ProtocolError{Reason: "URL-mode elicitation must not carry a requestedSchema"}
	}
	if req.URL == "" {
		return &ProtocolError{Reason: "missing url"}
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return &ProtocolError{Reason: fmt.Sprintf("malformed url: %v", err)}
	}
	if s := strings.ToLower(u.Scheme); u.IsAbs() && s != "https" && s != "http" {
		return &ProtocolError{Reason: fmt.Sprintf("url scheme %q is not https", u.Scheme)}
	}
	if !u.IsAbs() || u.Host == "" {
		return &ProtocolError{Reason: fmt.Sprintf("url %q is not absolute", req.URL)}
	}
	if req.Protocol == protocol.Version20251125 && req.Origin != OriginInputRequest && req.ElicitationID == "" {
		return &ProtocolError{Reason: "missing elicitationId"}
	}
	return nil
}
