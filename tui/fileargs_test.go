package tui

import (
	"encoding/json"
	"testing"

	"github.com/elicitty/elicitty/elicit"
)

type fileFakeSession struct {
	session
	on    bool
	files json.RawMessage
}

func (f fileFakeSession) FileInputs() bool                      { return f.on }
func (f fileFakeSession) ToolInputFiles(string) json.RawMessage { return f.files }

// A tool's argument form has file fields only when the server's session has file
// inputs on; the earlier draft's inputFiles counts for tools.
func TestArgParseOptions(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"image":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/png"]}},"doc":{"type":"string"}}}`)
	files := json.RawMessage(`{"doc":{"accept":["application/pdf"],"maxSize":100}}`)
	kinds := func(o *elicit.ParseOptions) []elicit.Kind {
		var out []elicit.Kind
		for _, f := range elicit.ParseWith(schema, "", o).Fields {
			out = append(out, f.Kind)
		}
		return out
	}
	if got := kinds(argParseOptions(fileFakeSession{on: false, files: files}, catTools, "t")); got[0] != elicit.KindText || got[1] != elicit.KindText {
		t.Errorf("without file inputs: %v", got)
	}
	if got := kinds(argParseOptions(fileFakeSession{on: true, files: files}, catTools, "t")); got[0] != elicit.KindFile || got[1] != elicit.KindFile {
		t.Errorf("with file inputs: %v", got)
	}
	if o := argParseOptions(nil, catTools, "t"); o != nil {
		t.Errorf("no session: %+v", o)
	}
}
