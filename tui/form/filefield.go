package form

import (
	"mime"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
)

// A file field (elicit.KindFile, SEP-2356, --experimental file-inputs) is answered with
// huh's file picker, starting in the working directory; in accessible mode, and for a
// field of several files, the path is typed instead (several separated by commas). The
// answer's text is the path either way: the engine checks and reads the file
// (elicit.ReadFile) and the review shows its name, type and size, never its bytes.

// filePicker builds the picker of a single-file field, bound to a.text.
func (a *answer) filePicker(title, desc string, o buildOptions) huh.Field {
	check := a.validateText
	if o.noValidate {
		check = a.parseText
	}
	p := huh.NewFilePicker()
	p.WithTheme(o.theme)
	p = p.Key(a.fld.Name).Title(title).Description(desc).
		CurrentDirectory(".").FileAllowed(true).DirAllowed(false).ShowSize(true).
		AllowedTypes(pickerTypes(a.fld.File)).Height(pickerHeight).
		Value(&a.text).Validate(check)
	// Listing from the start makes the form as tall as the list: huh sizes a group
	// from its fields' height when it is laid out, and shows a picker opened later
	// in that height (one row).
	return pickerField{p.Picking(true)}
}

// pickerHeight is the height of a file picker field: its title and description, the
// list, and its help line.
const pickerHeight = 12

// pickerField is huh's file picker at a fixed height: the window size the form passes
// on, and the height its group gives it, would shrink the list to the form's leftover
// height; the field keeps pickerHeight.
type pickerField struct{ *huh.FilePicker }

// Update implements huh.Model.
func (p pickerField) Update(msg tea.Msg) (huh.Model, tea.Cmd) {
	if _, ok := msg.(tea.WindowSizeMsg); ok {
		return p, nil
	}
	_, cmd := p.FilePicker.Update(msg)
	return p, cmd
}

// WithHeight implements huh.Field: the picker keeps its own height.
func (p pickerField) WithHeight(int) huh.Field { return p }

// pickerTypes are the name suffixes the picker lists: the accept list's extensions and
// those of its exact MIME types; none (every file) when it has a wildcard or is empty.
// The picker only narrows the list: the engine checks the type of what is chosen.
func pickerTypes(spec *elicit.FileSpec) []string {
	if spec == nil {
		return nil
	}
	var out []string
	for _, a := range spec.Accept {
		switch {
		case strings.HasPrefix(a, "."):
			out = append(out, a)
		case strings.Contains(a, "*"):
			return nil
		default:
			exts, _ := mime.ExtensionsByType(a)
			if len(exts) == 0 {
				return nil // a type we cannot name files of: list everything
			}
			out = append(out, exts...)
		}
	}
	return out
}

// fileHint describes what a file field takes, e.g. "file: image/*, at most 2.0 MiB".
func fileHint(fld elicit.Field) string {
	h := "file"
	if fld.File != nil && fld.File.Multi {
		h = "files (paths separated by commas)"
	}
	if fld.File == nil {
		return h
	}
	if len(fld.File.Accept) > 0 {
		h += ": " + oneLine(safe.Block(strings.Join(fld.File.Accept, ", ")))
	}
	if fld.File.MaxSize > 0 {
		h += ", at most " + elicit.FormatSize(fld.File.MaxSize)
	}
	return h
}

// describeFiles replaces the data URIs of file fields in content (a copy) by what the
// review shows of them: name, type and size.
func describeFiles(f *elicit.Form, content map[string]any) map[string]any {
	var out map[string]any
	for _, fld := range f.Fields {
		if fld.Kind != elicit.KindFile {
			continue
		}
		s, ok := elicit.DescribeFileValue(content[fld.Name])
		if !ok {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(content))
			for k, v := range content {
				out[k] = v
			}
		}
		out[fld.Name] = "file " + s
	}
	if out == nil {
		return content
	}
	return out
}

// files are the files chosen for file fields, by field name, with the paths as typed
// or picked (what --record writes); content is the reviewed content.
func (a *answers) files(content map[string]any) map[string][]elicit.FileInfo {
	var out map[string][]elicit.FileInfo
	for _, an := range a.list {
		if an.fld.Kind != elicit.KindFile {
			continue
		}
		v, ok := content[an.fld.Name]
		if !ok {
			continue
		}
		paths := []string{strings.TrimSpace(an.text)}
		if an.fld.File != nil && an.fld.File.Multi {
			paths = paths[:0]
			for _, p := range strings.Split(an.text, ",") {
				if p = strings.TrimSpace(p); p != "" {
					paths = append(paths, p)
				}
			}
		}
		var uris []string
		switch x := v.(type) {
		case string:
			uris = []string{x}
		case []string:
			uris = x
		}
		if len(uris) != len(paths) {
			continue
		}
		for i, u := range uris {
			fi, ok := elicit.DescribeDataURI(u)
			if !ok {
				continue
			}
			fi.Path = filepath.Clean(paths[i])
			if out == nil {
				out = map[string][]elicit.FileInfo{}
			}
			out[an.fld.Name] = append(out[an.fld.Name], fi)
		}
	}
	return out
}
