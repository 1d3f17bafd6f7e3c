package transport

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerProblem returns why a tool's x-mcp-header annotations are invalid (SEP-2243),
// or "" when they are valid or absent. A client must not call such a tool: the
// annotation must be a non-empty token (no spaces, colons, non-ASCII or control
// characters), on a string, integer or boolean property, and unique among the tool's
// properties regardless of case.
func headerProblem(schema any) string {
	raw, ok := schema.(json.RawMessage)
	if ok && !mayHaveHeader(raw) {
		return ""
	}
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil {
			return ""
		}
		raw = b
	}
	var s struct {
		Properties map[string]struct {
			Type   any             `json:"type"`
			Header json.RawMessage `json:"x-mcp-header"`
		} `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	seen := map[string]string{}
	for prop, p := range s.Properties {
		if p.Header == nil {
			continue
		}
		var name string
		if json.Unmarshal(p.Header, &name) != nil {
			return fmt.Sprintf("property %q: x-mcp-header is not a string", prop)
		}
		if name == "" {
			return fmt.Sprintf("property %q: x-mcp-header is empty", prop)
		}
		if !validHeaderName(name) {
			return fmt.Sprintf("property %q: x-mcp-header is not a valid header name", prop)
		}
		if t, _ := p.Type.(string); t != "string" && t != "integer" && t != "boolean" {
			return fmt.Sprintf("property %q: x-mcp-header on a property that is not a string, integer or boolean", prop)
		}
		key := strings.ToLower(name)
		if other, dup := seen[key]; dup {
			return fmt.Sprintf("properties %q and %q: the same x-mcp-header", other, prop)
		}
		seen[key] = prop
	}
	return ""
}

// ToolHeaderError reports a call refused because the tool's x-mcp-header annotations
// are invalid (SEP-2243): the tool is listed but never called.
type ToolHeaderError struct {
	Tool, Problem string
}

// Error implements error.
func (e *ToolHeaderError) Error() string {
	return fmt.Sprintf("tool %q is not called: its input schema has an invalid x-mcp-header annotation (%s)", e.Tool, e.Problem)
}

// noteHeaderProblems records which listed tools have invalid x-mcp-header annotations.
func (s *Session) noteHeaderProblems(tools []*mcp.Tool) {
	bad := map[string]string{}
	for _, t := range tools {
		if p := headerProblem(t.InputSchema); p != "" {
			bad[t.Name] = p
			s.tap.log.Notef(s.server.Name, "tool %q: %s; it will not be called", t.Name, p)
		}
	}
	s.mu.Lock()
	s.badHeaders = bad
	s.mu.Unlock()
}

// headerRefusal returns the error for calling a tool with invalid annotations, or nil.
func (s *Session) headerRefusal(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.badHeaders[name]; ok {
		return &ToolHeaderError{Tool: name, Problem: p}
	}
	return nil
}
