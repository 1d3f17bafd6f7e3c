package demo

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fileMaxSize is the largest file upload_file takes (its x-mcp-file maxSize).
const fileMaxSize = 1 << 20

// fileSchema asks for one file (SEP-2356, draft: a uri string with x-mcp-file).
var fileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file": {"type": "string", "format": "uri", "title": "File",
      "description": "Any file up to 1 MiB; it is hashed, not kept.",
      "x-mcp-file": {"maxSize": 1048576}}
  },
  "required": ["file"]
}`)

// uploadArgs has the optional file argument of upload_file (the tool surface of SEP-2356:
// a host fills it from a file the user picks).
var uploadArgs = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file": {"type": "string", "format": "uri", "description": "The file, as a data URI; asked for when absent.",
      "x-mcp-file": {"maxSize": 1048576}}
  }
}`)

// addFileTools registers the file-input tool.
func (s *Server) addFileTools() {
	s.addFlowTool(&mcp.Tool{
		Name:  "upload_file",
		Title: "Upload a file (file input, SEP-2356 draft)",
		Description: "Hashes a file: the optional file argument (format uri with x-mcp-file, maxSize 1 MiB), " +
			"or, when absent, the answer to a form with one such file field; a client with file inputs " +
			"sends an RFC 2397 data URI. Returns the file's name, type, size and sha256, as text and as " +
			"structuredContent {name, type, size, sha256}; a value that is not a base64 data URI, or over " +
			"1 MiB, is a tool error. Clients without file inputs see a uri text field.",
		InputSchema: uploadArgs,
		Annotations: readOnly(),
	}, false, s.uploadFileTool)
}

// uploadFileTool runs upload_file.
func (s *Server) uploadFileTool(ctx context.Context, a *asker, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args struct {
		File *string `json:"file"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	v := ""
	if args.File != nil {
		v = *args.File
	} else {
		r, err := a.ask(ctx, "file", form("Choose a file to hash", fileSchema))
		if err != nil {
			return nil, err
		}
		if res, ok := refused(r); ok {
			return res, nil
		}
		v, _ = r.Content["file"].(string)
	}
	f, err := decodeDataURI(v)
	if err != nil {
		return toolError(fmt.Errorf("file: %w", err)), nil
	}
	if len(f.data) > fileMaxSize {
		return toolError(fmt.Errorf("file: %d bytes, over the maxSize of %d", len(f.data), fileMaxSize)), nil
	}
	sum := sha256.Sum256(f.data)
	digest := hex.EncodeToString(sum[:])
	name := f.name
	if name == "" {
		name = "(unnamed)"
	}
	return textResult(fmt.Sprintf("received %s (%s, %d bytes), sha256 %s", name, f.typ, len(f.data), digest),
		map[string]any{"name": f.name, "type": f.typ, "size": len(f.data), "sha256": digest}), nil
}

// dataFile is a decoded data URI.
type dataFile struct {
	typ, name string
	data      []byte
}

// decodeDataURI reads data:<type>[;name=<name>][;...];base64,<data> (RFC 2397, the
// name parameter of SEP-2356's drafts). Only the base64 form is taken.
func decodeDataURI(s string) (dataFile, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return dataFile{}, fmt.Errorf("not a data: URI")
	}
	head, body, ok := strings.Cut(rest, ",")
	if !ok {
		return dataFile{}, fmt.Errorf("data URI without a comma")
	}
	parts := strings.Split(head, ";")
	f := dataFile{typ: parts[0]}
	if f.typ == "" {
		f.typ = "text/plain"
	}
	b64 := false
	for _, p := range parts[1:] {
		switch {
		case p == "base64":
			b64 = true
		case strings.HasPrefix(p, "name="):
			n, err := url.PathUnescape(strings.TrimPrefix(p, "name="))
			if err != nil {
				return dataFile{}, fmt.Errorf("bad name parameter: %w", err)
			}
			f.name = n
		}
	}
	if !b64 {
		return dataFile{}, fmt.Errorf("data URI is not base64")
	}
	if base64.StdEncoding.DecodedLen(len(body)) > fileMaxSize+3 {
		return dataFile{}, fmt.Errorf("over the maxSize of %d bytes", fileMaxSize)
	}
	data, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		return dataFile{}, fmt.Errorf("bad base64: %w", err)
	}
	f.data = data
	return f, nil
}
