package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// fileArgs reads the key=@PATH arguments of a tool's file arguments (x-mcp-file, or the
// earlier draft's inputFiles) into data URIs, when file inputs are on for the server
// (--experimental file-inputs); PATH is from the working directory, several separated
// by commas for an array of files. The file is checked before it is read
// (elicit.ReadFile) and named on log, never shown. Without file inputs, or for any other
// argument, values stay as typed.
func fileArgs(s *transport.Session, tool string, schema any, argv map[string]any, log io.Writer) error {
	if !s.FileInputs() || schema == nil {
		return nil
	}
	raw, ok := schema.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil
		}
		raw = b
	}
	f := elicit.ParseWith(raw, "", &elicit.ParseOptions{FileInputs: true, Files: elicit.SidecarFiles(s.ToolInputFiles(tool))})
	for _, fld := range f.Fields {
		v, ok := argv[fld.Name].(string)
		if fld.Kind != elicit.KindFile || !ok || !strings.HasPrefix(v, "@") {
			continue
		}
		val, infos, err := fld.ReadFiles(v[1:], "")
		if err != nil {
			return usagef("argument %q: %w", fld.Name, err)
		}
		argv[fld.Name] = val
		for _, fi := range infos {
			fmt.Fprintf(log, "elicitty: argument %s: file %s\n", safe.Field(fld.Name), fi)
		}
	}
	return nil
}
