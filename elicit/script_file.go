package elicit

import (
	"fmt"
	"path/filepath"
)

// readFiles replaces the file: PATH values of file fields in content by the files' data
// URIs, PATH relative to the answers file, and returns what was read by field. A data URI
// written in the file is kept as it is (README, "How elicitations are answered").
func (s *Script) readFiles(content map[string]any, form *Form) (map[string][]FileInfo, error) {
	if form == nil {
		return nil, nil
	}
	var out map[string][]FileInfo
	dir := filepath.Dir(s.name)
	for _, fld := range form.Fields {
		v, ok := content[fld.Name]
		if fld.Kind != KindFile || !ok {
			continue
		}
		paths, ok := filePaths(v)
		if !ok {
			continue // a data URI as written, or a value validation will refuse
		}
		var uris []any
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			single := fld
			single.File = &FileSpec{}
			if fld.File != nil {
				spec := *fld.File
				spec.Multi = false
				single.File = &spec
			}
			uri, infos, err := single.ReadFiles(p, "")
			if err != nil {
				return nil, fmt.Errorf("content.%s: %w", fld.Name, err)
			}
			infos[0].Path = p
			uris = append(uris, uri)
			if out == nil {
				out = map[string][]FileInfo{}
			}
			out[fld.Name] = append(out[fld.Name], infos...)
		}
		if fld.File != nil && fld.File.Multi {
			content[fld.Name] = uris
		} else if len(uris) == 1 {
			content[fld.Name] = uris[0]
		} else {
			return nil, fmt.Errorf("content.%s: one file, not %d", fld.Name, len(uris))
		}
	}
	return out, nil
}

// filePaths reads {file: PATH} or a list of them; ok is false for anything else.
func filePaths(v any) ([]string, bool) {
	one := func(x any) (string, bool) {
		m, ok := x.(map[string]any)
		if !ok || len(m) != 1 {
			return "", false
		}
		p, ok := m["file"].(string)
		return p, ok && p != ""
	}
	if p, ok := one(v); ok {
		return []string{p}, true
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	var out []string
	for _, it := range list {
		p, ok := one(it)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}
