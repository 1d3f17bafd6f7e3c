package elicit

import (
	"encoding/json"
	"strings"

	"github.com/elicitty/elicitty/internal/safe"
)

// AppView returns the MCP App a form request offers to render it (SEP-3118, draft:
// params._meta.ui.resourceUri, a ui:// resource of the asking server), sanitized and
// shortened for one line; "" when it names none. elicitty renders no MCP Apps: the core
// form is the fallback the SEP requires, and the UI says an app view was offered.
func (r *Request) AppView() string {
	if r.Mode == ModeURL || len(r.Params) == 0 {
		return ""
	}
	var p struct {
		Meta struct {
			UI struct {
				ResourceURI any `json:"resourceUri"`
			} `json:"ui"`
		} `json:"_meta"`
	}
	if json.Unmarshal(r.Params, &p) != nil {
		return ""
	}
	s, ok := p.Meta.UI.ResourceURI.(string)
	if !ok {
		return ""
	}
	s = strings.TrimSpace(safe.Block(s))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
