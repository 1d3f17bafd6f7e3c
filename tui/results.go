package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/safe"
)

// renderToolResult turns a tool result into display text: text blocks as sent
// (sanitized), structured content as indented JSON, and one-line summaries for
// images, audio and resource links (their MIME types, names and URIs folded onto that
// line: a newline in them cannot print a fake line). It runs off the UI goroutine.
func renderToolResult(r *mcp.CallToolResult) string {
	if r == nil {
		return "(no result)"
	}
	var b strings.Builder
	for _, c := range r.Content {
		writeContent(&b, c)
	}
	if r.StructuredContent != nil {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("structured content:\n")
		b.WriteString(prettyJSON(r.StructuredContent))
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "(empty result)"
	}
	return strings.TrimRight(b.String(), "\n")
}

func renderPromptResult(r *mcp.GetPromptResult) string {
	if r == nil {
		return "(no result)"
	}
	var b strings.Builder
	if r.Description != "" {
		b.WriteString(safe.Block(r.Description) + "\n\n")
	}
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "[%s]\n", safe.Field(string(m.Role)))
		writeContent(&b, m.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}

func renderResourceResult(r *mcp.ReadResourceResult) string {
	if r == nil {
		return "(no result)"
	}
	var b strings.Builder
	for _, c := range r.Contents {
		fmt.Fprintf(&b, "%s (%s)\n", safe.Field(c.URI), safe.Field(c.MIMEType))
		switch {
		case c.Text != "":
			b.WriteString(safe.Block(c.Text) + "\n")
		case c.Blob != nil:
			fmt.Fprintf(&b, "[binary, %d bytes]\n", len(c.Blob))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeContent(b *strings.Builder, c mcp.Content) {
	switch c := c.(type) {
	case *mcp.TextContent:
		b.WriteString(safe.Block(c.Text) + "\n")
	case *mcp.ImageContent:
		fmt.Fprintf(b, "[image %s, %d bytes]\n", safe.Field(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		fmt.Fprintf(b, "[audio %s, %d bytes]\n", safe.Field(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		fmt.Fprintf(b, "[resource link %s %s]\n", safe.Field(c.Name), safe.Field(c.URI))
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			fmt.Fprintf(b, "[embedded resource %s]\n", safe.Field(c.Resource.URI))
			if c.Resource.Text != "" {
				b.WriteString(safe.Block(c.Resource.Text) + "\n")
			}
		}
	case nil:
	default:
		fmt.Fprintf(b, "[%T]\n", c)
	}
}

// prettyJSON indents v as JSON; raw bytes are indented as they are.
func prettyJSON(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		var out strings.Builder
		if err := indentTo(&out, raw); err != nil {
			return safe.Block(string(raw))
		}
		return out.String()
	}
	bs, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("(unprintable: %v)", err)
	}
	return safe.Block(string(bs))
}

func indentTo(b *strings.Builder, raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	bs, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b.WriteString(safe.Block(string(bs)))
	return nil
}
