package desc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/protocol"
)

// Specification names the rules this package implements.
const Specification = "0.9.0-rc.3"

// Default limits of Options.
const (
	DefaultMaxBytes = 32 << 20
	DefaultMaxDepth = 256
)

// ErrUnknownSpecification is returned for a --specification selector this package
// does not implement (a usage error).
var ErrUnknownSpecification = errors.New("desc: unknown specification selector")

// Options configures Lint; nil means defaults.
type Options struct {
	// Format forces the serialization; empty picks it from the name, then the content.
	Format Format
	// Specification is an exact specification selector overriding the document's own,
	// e.g. "0.9.0-rc.3".
	Specification string
	// MaxBytes bounds the input size (default DefaultMaxBytes).
	MaxBytes int64
	// MaxDepth bounds the nesting of the document (default DefaultMaxDepth).
	MaxDepth int
}

func (o *Options) norm() Options {
	var n Options
	if o != nil {
		n = *o
	}
	if n.MaxBytes <= 0 {
		n.MaxBytes = DefaultMaxBytes
	}
	if n.MaxDepth <= 0 {
		n.MaxDepth = DefaultMaxDepth
	}
	return n
}

// LintFile reads and lints one file; "-" reads standard input. The error is non-nil
// only when the file cannot be read or the options are unusable (exit code 2).
func LintFile(path string, opts *Options) (*Report, error) {
	o := opts.norm()
	if path != "-" {
		// A regular file only (a FIFO or device is refused without blocking); a file
		// over MaxBytes is refused from its size, and Lint reports it as before.
		data, err := boundedfile.Read(path, o.MaxBytes)
		if errors.Is(err, boundedfile.ErrTooLarge) {
			if err := o.check(); err != nil {
				return nil, err
			}
			return tooLarge(path, o.MaxBytes), nil
		}
		if err != nil {
			return nil, fmt.Errorf("desc: read %q: %w", path, err)
		}
		return Lint(data, path, &o)
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, o.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("desc: read %q: %w", path, err)
	}
	return Lint(data, "<stdin>", &o)
}

// check reports unusable options.
func (o Options) check() error {
	if o.Format != "" && o.Format != FormatJSON && o.Format != FormatYAML {
		return fmt.Errorf("desc: unknown format %q", o.Format)
	}
	if o.Specification != "" && !knownSelector(o.Specification) {
		return fmt.Errorf("%w %q", ErrUnknownSpecification, o.Specification)
	}
	return nil
}

// tooLarge is the report of a document over max bytes.
func tooLarge(name string, max int64) *Report {
	return &Report{Source: name, Diagnostics: []Diagnostic{{Code: CodeParse, Severity: SevError, Path: Path{},
		Message: fmt.Sprintf("the document is larger than %d bytes", max)}}}
}

// Lint checks one description held in data; name is its source name (used for the
// format and in the report). The error is non-nil only for unusable options.
func Lint(data []byte, name string, opts *Options) (*Report, error) {
	o := opts.norm()
	if err := o.check(); err != nil {
		return nil, err
	}
	if int64(len(data)) > o.MaxBytes {
		return tooLarge(name, o.MaxBytes), nil
	}
	rep := &Report{Source: name}
	format := detectFormat(o.Format, name, data)
	root, lerr := load(data, format, o.MaxDepth)
	if lerr != nil {
		d := Diagnostic{Code: CodeParse, Severity: SevError, Path: Path{}, Message: lerr.msg}
		if lerr.loc.Line > 0 {
			loc := lerr.loc
			d.Location = &loc
		}
		rep.Diagnostics = []Diagnostic{d}
		return rep, nil
	}
	doc := &Document{Source: name, Format: format, Root: root}
	rep.Document = doc
	l := &linter{doc: doc}
	spec, ok := resolveSpec(root, o.Specification)
	if !ok {
		l.add(CodeUnresolvedSpec, SevError, locOf(root, "mcpdesc"), Path{Key("mcpdesc")},
			"the specification could not be resolved from mcpdesc and $schema; this linter implements %s", Specification)
		rep.Diagnostics = sortDiagnostics(l.diags)
		return rep, nil
	}
	rep.Specification = spec
	l.structural()
	if l.structErrs == 0 {
		l.semantic()
	}
	rep.Diagnostics = sortDiagnostics(l.diags)
	return rep, nil
}

func locOf(n *Node, key string) Location {
	if v, ok := n.Get(key); ok {
		return v.Loc
	}
	return n.Loc
}

// Diagnostic codes. schema-validation is structural; the others are semantic.
const (
	CodeParse               = "parse-error"
	CodeUnresolvedSpec      = "unresolved-specification"
	CodeSchema              = "schema-validation"
	CodeDuplicateName       = "duplicate-elicitation-name"
	CodeMissingRef          = "missing-component-reference-target"
	CodeWrongRefNamespace   = "wrong-component-reference-namespace"
	CodeRefCycle            = "component-reference-cycle"
	CodeFormVersionMismatch = "elicitation-form-schema-version-mismatch"
	CodeRequiredUnknown     = "elicitation-form-required-property-unknown"
	CodeEnumNamesMismatch   = "elicitation-form-enum-names-mismatch"
	CodeDefaultOutsideEnum  = "elicitation-form-default-outside-enum"
	CodeInvalidRange        = "elicitation-form-invalid-range"
	CodeScopeOutsideParent  = "protocol-scope-outside-parent"
	CodeModeNotSupported    = "elicitation-mode-not-supported-by-version"
	CodeLegacyIncomplete    = "legacy-protocol-validation-incomplete"
)

// Protocol versions in order; the first two are legacy.
var protocolVersions = [...]string{protocol.Version20241105, protocol.Version20250326, protocol.Version20250618, protocol.Version20251125, protocol.Version20260728}

func versionIndex(v string) int {
	for i, p := range protocolVersions {
		if p == v {
			return i
		}
	}
	return -1
}

// isLegacy reports whether v is before 2025-06-18, where complete checking starts.
func isLegacy(v string) bool { return versionIndex(v) < 2 }

var (
	schemaRC3 = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^https://mcpdesc\.org/schema/mcp-description/0\.9\.0-rc\.3\.json$`)
	})
	schemaAny = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/mcp-description/(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\.json$`)
	})
	namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })
)

func knownSelector(s string) bool {
	return s == Specification || s == "0.9.0" || strings.HasPrefix(s, "0.8.0")
}

// resolveSpec picks the specification: the selector, else mcpdesc plus $schema.
// 0.8.0 documents get the same §12 rules (its normative content is unchanged in rc.3).
func resolveSpec(root *Node, selector string) (string, bool) {
	if selector != "" {
		if selector == "0.9.0" {
			return Specification, true
		}
		return selector, true
	}
	v, _ := root.Get("mcpdesc")
	ver, ok := v.AsString()
	if !ok {
		return "", false
	}
	sch, hasSchema := root.Get("$schema")
	schema, _ := sch.AsString()
	switch ver {
	case "0.9.0-rc.3":
		return Specification, true
	case "0.9.0":
		if !hasSchema || schemaRC3().MatchString(schema) {
			return Specification, true
		}
		return "", false
	case "0.8.0":
		if m := schemaAny().FindStringSubmatch(schema); m != nil && strings.HasPrefix(m[1], "0.8.0") {
			return m[1], true
		}
		return "0.8.0", true
	}
	return "", false
}

// linter accumulates diagnostics for one document.
type linter struct {
	doc        *Document
	diags      []Diagnostic
	structErrs int
	// checked records referenced component schemas already shape-checked, with their result.
	checked map[*Node]bool
}

func (l *linter) add(code string, sev Severity, loc Location, path Path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d := path.dotted(); d != "" {
		msg = d + " " + msg
	}
	diag := Diagnostic{Code: code, Severity: sev, Message: msg, Path: path}
	if loc.Line > 0 {
		diag.Location = &loc
	}
	l.diags = append(l.diags, diag)
}

// bad records a structural (schema-validation) error.
func (l *linter) bad(loc Location, path Path, format string, args ...any) {
	l.structErrs++
	l.add(CodeSchema, SevError, loc, path, format, args...)
}
