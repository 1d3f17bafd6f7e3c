package tui

import (
	"encoding/json"

	"github.com/elicitty/elicitty/elicit"
)

// fileSession is a session that may have file inputs on (transport.Session).
type fileSession interface {
	FileInputs() bool
	ToolInputFiles(tool string) json.RawMessage
}

// argParseOptions are the options a call's argument form is parsed with: file fields
// (x-mcp-file, and a tool's inputFiles of the earlier SEP-2356 draft) when the server's
// session has file inputs on (--experimental file-inputs); nil otherwise.
func argParseOptions(s session, kind catKind, name string) *elicit.ParseOptions {
	fs, ok := s.(fileSession)
	if !ok || !fs.FileInputs() {
		return nil
	}
	o := &elicit.ParseOptions{FileInputs: true}
	if kind == catTools {
		o.Files = elicit.SidecarFiles(fs.ToolInputFiles(name))
	}
	return o
}
