package elicit

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/safe"
)

// File inputs (SEP-2356, draft; docs/protocol.md, "File inputs (SEP-2356, draft)"): a
// string property with format "uri" and an x-mcp-file descriptor, or a flat array of
// such strings, is a file field. It is answered with an RFC 2397 data URI that carries
// the file's name: data:<type>;name=<file>;base64,<data>. The earlier draft's sidecar
// maps (requestedFiles on a form request, inputFiles on a tool) name the same
// descriptors by property.

// FileSpec is the x-mcp-file descriptor of a file field.
type FileSpec struct {
	// Accept are the MIME patterns ("image/png", "image/*") and dot-prefixed extensions
	// (".pdf") the server takes; empty means any file.
	Accept []string
	// MaxSize is the largest file in bytes the server takes; 0 means no limit declared.
	MaxSize int64
	// Multi is true for an array of files.
	Multi bool
}

// ParseOptions are the switches of ParseWith; nil means the defaults (no file inputs).
type ParseOptions struct {
	// FileInputs turns x-mcp-file properties into file fields (--experimental
	// file-inputs). Without it they are the uri strings they are declared as.
	FileInputs bool
	// Files are the earlier draft's sidecar descriptors (requestedFiles, inputFiles) by
	// property name; used only with FileInputs.
	Files map[string]FileSpec
}

// fileDescriptor is the wire shape of x-mcp-file and of a sidecar entry.
type fileDescriptor struct {
	Accept  []string `json:"accept"`
	MaxSize *float64 `json:"maxSize"`
}

func (d fileDescriptor) spec() FileSpec {
	s := FileSpec{Accept: d.Accept}
	if d.MaxSize != nil && *d.MaxSize > 0 && *d.MaxSize < 1<<62 {
		s.MaxSize = int64(*d.MaxSize)
	}
	return s
}

// DefaultMaxFile is the largest file sent to a server that declares no maxSize: the
// whole file travels base64-encoded in one message, which servers read in bounded size
// (SEP-2356 asks clients to warn above a threshold of their own).
const DefaultMaxFile = 16 << 20

// SidecarFiles reads an earlier-draft sidecar map (the value of requestedFiles or
// inputFiles: property name -> {accept, maxSize}); nil when raw is absent or unreadable.
func SidecarFiles(raw json.RawMessage) map[string]FileSpec {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]fileDescriptor
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	out := make(map[string]FileSpec, len(m))
	for k, d := range m {
		out[k] = d.spec()
	}
	return out
}

// fileProperty is what a property schema says about files.
type fileProperty struct {
	Type     any             `json:"type"`
	Format   string          `json:"format"`
	File     json.RawMessage `json:"x-mcp-file"`
	MinItems *int            `json:"minItems"`
	MaxItems *int            `json:"maxItems"`
	Items    *struct {
		Type   any             `json:"type"`
		Format string          `json:"format"`
		File   json.RawMessage `json:"x-mcp-file"`
	} `json:"items"`
}

// fileField turns fld into a file field when its schema (or a sidecar descriptor) marks
// it as one, and reports whether it did. A misplaced x-mcp-file (not on a uri string)
// is ignored, as SEP-2356 says: the field stays what it was.
func (b *builder) fileField(fld *Field, path string) bool {
	var p fileProperty
	if json.Unmarshal(fld.Raw, &p) != nil {
		return false
	}
	side, hasSide := b.opts.Files[fld.Name]
	var spec FileSpec
	switch {
	case p.Type == "string" && (hasSide || (p.Format == "uri" && len(p.File) > 0)):
		spec = side
	case p.Type == "array" && p.Items != nil && p.Items.Type == "string" && (hasSide || (p.Items.Format == "uri" && len(p.Items.File) > 0)):
		spec = side
		p.File = p.Items.File
		spec.Multi = true
	default:
		return false
	}
	if !hasSide {
		var d fileDescriptor
		if err := json.Unmarshal(p.File, &d); err != nil {
			b.warn(path+"/x-mcp-file", CodeUnsupportedShape, "x-mcp-file is not an {accept, maxSize} object; the field is an ordinary input")
			return false
		}
		spec = FileSpec{Accept: d.Accept, MaxSize: d.spec().MaxSize, Multi: spec.Multi}
	}
	for i, a := range spec.Accept {
		spec.Accept[i] = strings.ToLower(strings.TrimSpace(a))
	}
	*fld = Field{Name: fld.Name, Title: fld.Title, Description: fld.Description, Kind: KindFile, Raw: fld.Raw, File: &spec}
	if spec.Multi {
		fld.MinItems, fld.MaxItems = p.MinItems, p.MaxItems
	}
	return true
}

// FileInfo is what the user sees of a chosen file: never its bytes.
type FileInfo struct {
	// Path is the file as chosen (for --record); "" when the value came from the wire.
	Path string
	// Name is the base name sent in the data URI.
	Name string
	// Type is the MIME type sent.
	Type string
	// Size is the size in bytes.
	Size int64
}

// String is "name (type, size)", sanitized, for reviews and logs.
func (fi FileInfo) String() string {
	return fmt.Sprintf("%s (%s, %s)", safe.Block(fi.Name), safe.Block(fi.Type), FormatSize(fi.Size))
}

// FormatSize is a byte count for people: "512 B", "1.5 KiB", "3.0 MiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// ErrFileRefused is wrapped by every refusal of ReadFile: a directory, a special file,
// an unreadable file, a file too large or of a type the server does not take.
var ErrFileRefused = errors.New("file refused")

// ReadFile reads the file at path for a file field and returns its data URI and what
// the user sees of it. The checks come before the contents are read: the path must be a
// regular file (directories, named pipes, devices and sockets are refused by name), its
// size at most spec.MaxSize, and its type (from its extension, else from its first 512
// bytes) one spec.Accept allows.
func ReadFile(path string, spec FileSpec) (string, FileInfo, error) {
	name := filepath.Base(path)
	fi := FileInfo{Path: path, Name: name}
	refuse := func(format string, args ...any) (string, FileInfo, error) {
		return "", fi, fmt.Errorf("%w: %q %s", ErrFileRefused, path, fmt.Sprintf(format, args...))
	}
	st, err := os.Stat(path)
	if err != nil {
		return refuse("cannot be read: %v", unwrapPathError(err))
	}
	if what := boundedfile.Kind(st.Mode()); what != "" {
		return refuse("is %s, not a regular file", what)
	}
	fi.Size = st.Size()
	if spec.MaxSize > 0 && fi.Size > spec.MaxSize {
		return refuse("is %s, over the %s the server takes", FormatSize(fi.Size), FormatSize(spec.MaxSize))
	}
	if spec.MaxSize <= 0 && fi.Size > DefaultMaxFile {
		return refuse("is %s, over the %s elicitty sends when the server names no maxSize", FormatSize(fi.Size), FormatSize(DefaultMaxFile))
	}
	fi.Type = typeByExtension(name)
	if fi.Type != "" && !Accepts(spec.Accept, name, fi.Type) {
		return refuse("is %s; the server takes %s", fi.Type, strings.Join(spec.Accept, ", "))
	}
	f, err := os.Open(path)
	if err != nil {
		return refuse("cannot be read: %v", unwrapPathError(err))
	}
	defer f.Close()
	// The file may have changed since Stat: check what is open, and read no more than
	// the limit allows.
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		return refuse("is not a regular file")
	}
	limit := int64(DefaultMaxFile)
	if spec.MaxSize > 0 {
		limit = spec.MaxSize
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return refuse("cannot be read: %v", unwrapPathError(err))
	}
	if int64(len(data)) > limit {
		return refuse("grew over %s while being read", FormatSize(limit))
	}
	fi.Size = int64(len(data))
	if fi.Type == "" {
		fi.Type, _, _ = strings.Cut(http.DetectContentType(data), ";")
		if !Accepts(spec.Accept, name, fi.Type) {
			return refuse("is %s; the server takes %s", fi.Type, strings.Join(spec.Accept, ", "))
		}
	}
	return DataURI(fi.Type, name, data), fi, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// typeByExtension is the MIME type of a file name's extension, without parameters; ""
// when the extension says nothing.
func typeByExtension(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return ""
	}
	t := mime.TypeByExtension(ext)
	if t == "" {
		return ""
	}
	t, _, _ = strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// Accepts reports whether a file of name and MIME type typ matches the accept list (an
// empty list takes everything): an exact type, a wildcard subtype ("image/*"), "*/*", or
// a dot-prefixed extension.
func Accepts(accept []string, name, typ string) bool {
	if len(accept) == 0 {
		return true
	}
	typ = strings.ToLower(typ)
	major, _, _ := strings.Cut(typ, "/")
	ext := strings.ToLower(filepath.Ext(name))
	for _, a := range accept {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "*/*" || a == "*" || a == typ:
			return true
		case strings.HasSuffix(a, "/*") && strings.TrimSuffix(a, "/*") == major:
			return true
		case strings.HasPrefix(a, ".") && a == ext:
			return true
		}
	}
	return false
}

// DataURI encodes a file as data:<type>;name=<name>;base64,<data>, the name
// percent-encoded. An empty type is application/octet-stream.
func DataURI(typ, name string, data []byte) string {
	if typ == "" {
		typ = "application/octet-stream"
	}
	var b strings.Builder
	b.Grow(len(typ) + len(name) + base64.StdEncoding.EncodedLen(len(data)) + 20)
	b.WriteString("data:")
	b.WriteString(typ)
	if name != "" {
		b.WriteString(";name=")
		b.WriteString(url.PathEscape(name))
	}
	b.WriteString(";base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(data))
	return b.String()
}

// DescribeDataURI tells what a data URI carries without showing its bytes: the name
// (when it has one), the type and the decoded size. ok is false for a value that is not
// a data URI.
func DescribeDataURI(s string) (fi FileInfo, ok bool) {
	rest, found := strings.CutPrefix(s, "data:")
	if !found {
		return fi, false
	}
	head, body, found := strings.Cut(rest, ",")
	if !found {
		return fi, false
	}
	parts := strings.Split(head, ";")
	fi.Type = parts[0]
	if fi.Type == "" {
		fi.Type = "text/plain"
	}
	b64 := false
	for _, p := range parts[1:] {
		switch {
		case p == "base64":
			b64 = true
		case strings.HasPrefix(p, "name="):
			if n, err := url.PathUnescape(strings.TrimPrefix(p, "name=")); err == nil {
				fi.Name = n
			}
		}
	}
	if b64 {
		body = strings.TrimRight(body, "=")
		fi.Size = int64(len(body)) * 3 / 4
	} else if u, err := url.PathUnescape(body); err == nil {
		fi.Size = int64(len(u))
	} else {
		fi.Size = int64(len(body))
	}
	return fi, true
}

// RedactDataURI shortens a data URI to data:<type>;name=<name>;base64,[<n> bytes] for logs
// (SEP-2356, "Logging and telemetry"); other strings are returned unchanged.
func RedactDataURI(s string) string {
	fi, ok := DescribeDataURI(s)
	if !ok {
		return s
	}
	name := ""
	if fi.Name != "" {
		name = ";name=" + url.PathEscape(fi.Name)
	}
	return fmt.Sprintf("data:%s%s;base64,[%d bytes]", fi.Type, name, fi.Size)
}

// checkFile validates a file field's value: a data URI (or a list of them), within
// MaxSize, of an accepted type.
func (fld Field) checkFile(v any) []Violation {
	p := fld.path()
	spec := FileSpec{}
	if fld.File != nil {
		spec = *fld.File
	}
	one := func(ip string, it any) []Violation {
		s, ok := it.(string)
		if !ok {
			return []Violation{{Path: ip, Keyword: "type", Message: fmt.Sprintf("must be a data URI string, not %s", describe(it))}}
		}
		fi, ok := DescribeDataURI(s)
		if !ok {
			return []Violation{{Path: ip, Keyword: "x-mcp-file", Message: "must be a data: URI holding the file"}}
		}
		var out []Violation
		if spec.MaxSize > 0 && fi.Size > spec.MaxSize {
			out = append(out, Violation{Path: ip, Keyword: "x-mcp-file", Message: fmt.Sprintf("file is %s, over the maxSize of %s", FormatSize(fi.Size), FormatSize(spec.MaxSize))})
		}
		if !Accepts(spec.Accept, fi.Name, fi.Type) {
			out = append(out, Violation{Path: ip, Keyword: "x-mcp-file", Message: fmt.Sprintf("type %s is not one of %s", safe.Block(fi.Type), strings.Join(spec.Accept, ", "))})
		}
		return out
	}
	if !spec.Multi {
		return one(p, v)
	}
	if !isList(v) {
		return []Violation{{Path: p, Keyword: "type", Message: fmt.Sprintf("must be an array of data URIs, not %s", describe(v))}}
	}
	items := listItems(v)
	var out []Violation
	for i, it := range items {
		out = append(out, one(p+"/"+strconv.Itoa(i), it)...)
	}
	if fld.MinItems != nil && len(items) < *fld.MinItems {
		out = append(out, Violation{Path: p, Keyword: "minItems", Message: fmt.Sprintf("must have at least %d %s", *fld.MinItems, Plural(*fld.MinItems, "file"))})
	}
	if fld.MaxItems != nil && len(items) > *fld.MaxItems {
		out = append(out, Violation{Path: p, Keyword: "maxItems", Message: fmt.Sprintf("must have at most %d %s", *fld.MaxItems, Plural(*fld.MaxItems, "file"))})
	}
	return out
}

// ReadFiles answers a file field from typed text: one path, or for a multi-file field
// paths separated by commas; relative paths are taken from dir ("" is the working
// directory). It returns the data URI (a []string for several) and what was read.
func (fld Field) ReadFiles(text, dir string) (any, []FileInfo, error) {
	spec := FileSpec{}
	if fld.File != nil {
		spec = *fld.File
	}
	paths := []string{strings.TrimSpace(text)}
	if spec.Multi {
		paths = paths[:0]
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				paths = append(paths, p)
			}
		}
	}
	var uris []string
	var infos []FileInfo
	for _, p := range paths {
		if p == "" {
			return nil, nil, errors.New("a file path is needed")
		}
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		uri, fi, err := ReadFile(p, spec)
		if err != nil {
			return nil, nil, err
		}
		uris = append(uris, uri)
		infos = append(infos, fi)
	}
	if spec.Multi {
		return uris, infos, nil
	}
	return uris[0], infos, nil
}

// DescribeFileValue is a file field's value as the review shows it: "name (type, size)"
// per file, never the bytes; ok is false for a value that holds no data URI.
func DescribeFileValue(v any) (string, bool) {
	var parts []string
	for _, it := range append([]any{}, fileItems(v)...) {
		s, _ := it.(string)
		fi, ok := DescribeDataURI(s)
		if !ok {
			return "", false
		}
		if fi.Name == "" {
			fi.Name = "(unnamed)"
		}
		parts = append(parts, fi.String())
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, ", "), true
}

func fileItems(v any) []any {
	switch x := v.(type) {
	case string:
		return []any{x}
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		return x
	}
	return nil
}

// FileValues returns the data URIs content holds for the form's file fields (for the
// wire log to mask).
func (f *Form) FileValues(content map[string]any) []string {
	var out []string
	for _, fld := range f.Fields {
		if fld.Kind != KindFile {
			continue
		}
		for _, it := range fileItems(content[fld.Name]) {
			if s, ok := it.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// fileKeywordOff rewords the finding about an x-mcp-file keyword on a field that is not
// a file field (file inputs off): it says what the server asks for and how to get it.
// seen is where the field's findings begin.
func (b *builder) fileKeywordOff(seen int, path string) {
	for i := seen; i < len(b.form.Findings); i++ {
		f := &b.form.Findings[i]
		if f.Code == CodeUnsupportedKeyword && f.Path == path+"/x-mcp-file" {
			f.Message = "x-mcp-file marks a file input (SEP-2356, a draft); without --experimental file-inputs it is answered as text"
		}
	}
}
