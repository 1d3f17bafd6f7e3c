package desc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Seg is one segment of a diagnostic path: an object key or an array index.
type Seg struct {
	// Key is the member name when IsIndex is false.
	Key string
	// Index is the array index when IsIndex is true.
	Index   int
	IsIndex bool
}

// Key returns a key segment.
func Key(k string) Seg { return Seg{Key: k} }

// Index returns an index segment.
func Index(i int) Seg { return Seg{Index: i, IsIndex: true} }

// Path is the location of a value as segments (never a JSON Pointer). It encodes as a
// JSON array of strings and integers.
type Path []Seg

// with returns a new path with segs appended; p is never modified.
func (p Path) with(segs ...Seg) Path {
	out := make(Path, len(p), len(p)+len(segs))
	copy(out, p)
	return append(out, segs...)
}

// MarshalJSON encodes the path as an array of strings and integers.
func (p Path) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, s := range p {
		if i > 0 {
			buf.WriteByte(',')
		}
		if s.IsIndex {
			buf.WriteString(strconv.Itoa(s.Index))
		} else {
			appendString(&buf, s.Key)
		}
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// UnmarshalJSON decodes an array of strings and integers.
func (p *Path) UnmarshalJSON(b []byte) error {
	var raw []any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Path, 0, len(raw))
	for _, r := range raw {
		switch v := r.(type) {
		case string:
			out = append(out, Key(v))
		case float64:
			out = append(out, Index(int(v)))
		default:
			return fmt.Errorf("path segment %v is neither a string nor an integer", r)
		}
	}
	*p = out
	return nil
}

var identKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// dotted renders the path as `tools[0].elicitations[1].name`.
func (p Path) dotted() string {
	var sb strings.Builder
	for i, s := range p {
		switch {
		case s.IsIndex:
			fmt.Fprintf(&sb, "[%d]", s.Index)
		case identKey().MatchString(s.Key):
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(s.Key)
		default:
			sb.WriteByte('[')
			appendStringBuilder(&sb, s.Key)
			sb.WriteByte(']')
		}
	}
	return sb.String()
}

// String renders the path as `$` plus `.key`, `[n]` or `["odd key"]` per segment.
func (p Path) String() string {
	d := p.dotted()
	if d == "" || d[0] == '[' {
		return "$" + d
	}
	return "$." + d
}

func appendStringBuilder(sb *strings.Builder, s string) {
	var buf bytes.Buffer
	appendString(&buf, s)
	sb.Write(buf.Bytes())
}

// Severity is the severity of a diagnostic.
type Severity string

// The two severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
)

// Diagnostic is one finding about a description.
type Diagnostic struct {
	// Code is the kebab-case machine key, e.g. "duplicate-elicitation-name".
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Message is lower case, without a final period, led by the dotted location.
	Message string `json:"message"`
	Path    Path   `json:"path"`
	// Location is the 1-based position in the file, nil when unknown.
	Location *Location `json:"location,omitempty"`
}

// Report is the result of linting one description. The zero value is an empty, valid
// report without a source.
type Report struct {
	// Source names the input ("<stdin>" for standard input).
	Source string
	// Specification is the resolved specification, e.g. "0.9.0-rc.3"; empty when unresolved.
	Specification string
	// Diagnostics are sorted by code, message and path.
	Diagnostics []Diagnostic
	// Document is the loaded description; nil when it could not be parsed.
	Document *Document
}

// Counts returns the number of errors and warnings.
func (r *Report) Counts() (errs, warns int) {
	for _, d := range r.Diagnostics {
		if d.Severity == SevError {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// Valid reports whether the report has no errors; with strict, also no warnings.
// The `valid` field of the output is always Valid(false).
func (r *Report) Valid(strict bool) bool {
	errs, warns := r.Counts()
	return errs == 0 && (!strict || warns == 0)
}

// ExitCode returns the exit code for a set of lint results: 0 when every report is
// valid, 1 when one is invalid (or has warnings under strict), 2 when one is nil,
// meaning its input could not be read. The worst code wins.
func ExitCode(reports []*Report, strict bool) int {
	code := 0
	for _, r := range reports {
		switch {
		case r == nil:
			code = 2
		case !r.Valid(strict) && code < 1:
			code = 1
		}
	}
	return code
}

// WriteText writes the human form of the report.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Valid(false) {
		b.WriteString("VALID\n")
	} else {
		b.WriteString("INVALID\n")
	}
	spec := r.Specification
	if spec == "" {
		spec = "unresolved"
	}
	errs, warns := r.Counts()
	fmt.Fprintf(&b, "Source: %s\nSpecification: %s\nFindings: %d error(s), %d warning(s)\n", r.Source, spec, errs, warns)
	for _, d := range r.Diagnostics {
		b.WriteString(strings.ToUpper(string(d.Severity)))
		b.WriteByte(' ')
		b.WriteString(d.Code)
		b.WriteByte(' ')
		b.WriteString(d.Path.String())
		if d.Location != nil {
			fmt.Fprintf(&b, ":%d:%d", d.Location.Line, d.Location.Column)
		}
		b.WriteString(": ")
		b.WriteString(oneLine(d.Message))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\x1b", `\x1b`).Replace(s)
}

// jsonReport is the --json form of one report.
type jsonReport struct {
	Valid         bool         `json:"valid"`
	Source        string       `json:"source"`
	Specification *string      `json:"specification"`
	Summary       jsonSummary  `json:"summary"`
	Diagnostics   []Diagnostic `json:"diagnostics"`
}

type jsonSummary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func (r *Report) jsonForm() jsonReport {
	errs, warns := r.Counts()
	jr := jsonReport{Valid: errs == 0, Source: r.Source, Summary: jsonSummary{errs, warns}, Diagnostics: r.Diagnostics}
	if r.Specification != "" {
		s := r.Specification
		jr.Specification = &s
	}
	if jr.Diagnostics == nil {
		jr.Diagnostics = []Diagnostic{}
	}
	for i := range jr.Diagnostics {
		if jr.Diagnostics[i].Path == nil {
			jr.Diagnostics[i].Path = Path{}
		}
	}
	return jr
}

// WriteJSON writes the --json form of the report, indented by two spaces.
func (r *Report) WriteJSON(w io.Writer) error {
	return writeJSON(w, r.jsonForm())
}

// WriteJSONAll writes several reports as one JSON array (several files with --json).
func WriteJSONAll(w io.Writer, reports []*Report) error {
	all := make([]jsonReport, 0, len(reports))
	for _, r := range reports {
		all = append(all, r.jsonForm())
	}
	return writeJSON(w, all)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// sortDiagnostics sorts by code, message and the JSON of the path, byte-wise, and drops
// exact duplicates.
func sortDiagnostics(ds []Diagnostic) []Diagnostic {
	type keyed struct {
		d    Diagnostic
		path string
	}
	ks := make([]keyed, len(ds))
	for i, d := range ds {
		p, _ := d.Path.MarshalJSON()
		ks[i] = keyed{d, string(p)}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.d.Code != b.d.Code {
			return a.d.Code < b.d.Code
		}
		if a.d.Message != b.d.Message {
			return a.d.Message < b.d.Message
		}
		return a.path < b.path
	})
	out := ds[:0]
	for i, k := range ks {
		if i > 0 {
			p := ks[i-1]
			if p.d.Code == k.d.Code && p.d.Message == k.d.Message && p.path == k.path && p.d.Severity == k.d.Severity {
				continue
			}
		}
		out = append(out, k.d)
	}
	return out
}

// appendString appends s as a JSON string, without HTML escaping.
func appendString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Truncate(buf.Len() - 1)
}
