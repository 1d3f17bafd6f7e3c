package form

import "github.com/elicitty/elicitty/elicit"

// appViewLine is the header line of a form request that offers an MCP App to render it
// (SEP-3118): this client shows the core form instead. "" when none is offered.
func appViewLine(req *elicit.Request) string {
	if req == nil {
		return ""
	}
	u := req.AppView()
	if u == "" {
		return ""
	}
	return "ⓘ the server offers an app view (" + oneLine(u) + ") that elicitty does not render; this is the same request as a form"
}
