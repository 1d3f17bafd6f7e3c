package oauth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Step names a stage of the sign-in flow.
type Step string

// The steps of a sign-in.
const (
	StepDiscovery     Step = "discovery"
	StepRegistration  Step = "registration"
	StepAuthorization Step = "authorization"
	StepTokenExchange Step = "token exchange"
	StepRefresh       Step = "refresh"
	StepStepUp        Step = "step-up"
	StepStore         Step = "token storage"
)

// ErrNoWait reports that a sign-in was needed but the caller asked not to wait for one.
var ErrNoWait = errors.New("sign-in required")

// ErrCancelled reports that the user declined to open the sign-in page.
var ErrCancelled = errors.New("sign-in cancelled")

// Error reports a failed sign-in. Its text names the server, the step and the
// authorization server's error code; tokens, codes and client secrets are never in it.
type Error struct {
	Server      string
	Step        Step
	Code        string // the server's OAuth error code ("invalid_client"), if any
	Description string // the server's error_description, scrubbed
	Err         error  // the cause, for errors.Is; its text is scrubbed in Error()
	Hint        string // what the user might do, if known
	secrets     []string
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sign-in to %s failed at %s", e.Server, e.Step)
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
		if e.Description != "" {
			fmt.Fprintf(&b, " (%s)", scrub(e.Description, e.secrets))
		}
	} else if e.Err != nil {
		fmt.Fprintf(&b, ": %s", strings.TrimRight(scrub(e.Err.Error(), e.secrets), ": "))
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, " (%s)", e.Hint)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// scrub replaces every secret in s by "<redacted>".
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "<redacted>")
		}
	}
	return s
}

// classify turns an error of go-sdk's handler into an *Error naming its step.
func classify(server string, err error, secrets []string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	out := &Error{Server: server, Err: err, secrets: secrets}
	var re *oauth2.RetrieveError
	var ce *oauthex.ClientRegistrationError
	msg := err.Error()
	switch {
	case errors.As(err, &ce):
		out.Step, out.Code, out.Description = StepRegistration, ce.ErrorCode, ce.ErrorDescription
	case strings.Contains(msg, "register client"), strings.Contains(msg, "client registration"):
		out.Step = StepRegistration
	case strings.Contains(msg, "token exchange"):
		out.Step = StepTokenExchange
	case strings.Contains(msg, "metadata"), strings.Contains(msg, "WWW-Authenticate"), strings.Contains(msg, "MCP server URL"):
		out.Step = StepDiscovery
	default:
		out.Step = StepAuthorization
	}
	if errors.As(err, &re) {
		out.Code, out.Description = re.ErrorCode, re.ErrorDescription
		if out.Code == "" && re.Response != nil {
			out.Code = fmt.Sprintf("HTTP %d", re.Response.StatusCode)
		}
	}
	return out
}
