package desc

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

func mustLint(t *testing.T, data, name string, opts *Options) *Report {
	t.Helper()
	r, err := Lint([]byte(data), name, opts)
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	return r
}

// found is the assertable part of a diagnostic with its location.
type found struct {
	Code string
	Path string
	Loc  Location
}

func founds(r *Report) []found {
	var out []found
	for _, d := range r.Diagnostics {
		f := found{Code: d.Code, Path: d.Path.String()}
		if d.Location != nil {
			f.Loc = *d.Location
		}
		out = append(out, f)
	}
	return out
}

// TestLocations pins line:column for YAML nodes and for JSON token offsets, including
// a multi-byte character before the reported token.
func TestLocations(t *testing.T) {
	tests := []struct {
		name, file, data string
		want             []found
	}{
		{
			name: "yaml duplicate name at the later value",
			file: "testdata/invalid/duplicate-name.mcpdesc.yaml",
			want: []found{
				{CodeDuplicateName, "$.tools[0].elicitations[1].name", Location{Line: 11, Column: 16}},
				{CodeDuplicateName, "$.tools[0].elicitations[2].name", Location{Line: 12, Column: 16}},
			},
		},
		{
			name: "json after multi-byte text",
			data: "{\"mcpdesc\": \"0.9.0\", \"info\": {\"name\": \"café\", \"version\": \"1\"},\n" +
				"\"protocolVersions\": [\"2025-11-25\"],\n" +
				"\"tools\": [{\"name\": \"é\", \"inputSchema\": {\"type\": \"object\"}, \"elicitations\": [\n" +
				"  {\"name\": \"a\", \"mode\": \"url\", \"message\": \"ü\", \"url\": \"nope\"}]}]}",
			want: []found{{CodeSchema, "$.tools[0].elicitations[0].url", Location{Line: 4, Column: 55}}},
		},
		{
			name: "json missing member reported at its object",
			data: "{\"mcpdesc\": \"0.9.0\", \"info\": {\"name\": \"a\", \"version\": \"1\"},\n" +
				"\"protocolVersions\": [\"2025-11-25\"],\n" +
				"\"tools\": [{\"name\": \"t\", \"inputSchema\": {\"type\": \"object\"}, \"elicitations\": [\n" +
				"    {\"name\": \"a\", \"message\": \"m\", \"mode\": \"form\"}]}]}",
			want: []found{{CodeSchema, "$.tools[0].elicitations[0].requestedSchema", Location{Line: 4, Column: 5}}},
		},
		{
			name: "json duplicate key",
			data: "{\"a\": 1,\n \"a\": 2}",
			want: []found{{CodeParse, "$", Location{Line: 2, Column: 2}}},
		},
		{
			name: "yaml syntax error line",
			data: "mcpdesc: \"0.9.0\"\ninfo: {name: a\n",
			want: []found{{CodeParse, "$", Location{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *Report
			if tt.file != "" {
				var err error
				if r, err = LintFile(tt.file, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				name := "x.mcpdesc.json"
				if !strings.HasPrefix(tt.data, "{") {
					name = "x.mcpdesc.yaml"
				}
				r = mustLint(t, tt.data, name, nil)
			}
			if diff := cmp.Diff(tt.want, founds(r)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestYAMLJSONEquivalent re-serializes every fixture that loads as JSON and checks that
// the JSON form yields the same codes and paths: the two forms are equivalent.
func TestYAMLJSONEquivalent(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.mcpdesc.yaml")
	for _, f := range files {
		rep, err := LintFile(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Document == nil {
			continue
		}
		js, _ := rep.Document.Root.MarshalJSON()
		jr := mustLint(t, string(js), "converted.mcpdesc.json", nil)
		if diff := cmp.Diff(wantLines(rep), wantLines(jr)); diff != "" {
			t.Errorf("%s: JSON form differs (-yaml +json):\n%s", f, diff)
		}
	}
}

func TestFormatDetection(t *testing.T) {
	const doc = `{"mcpdesc": "0.9.0", "info": {"name": "a", "version": "1"}, "protocolVersions": ["2025-11-25"]}`
	tests := []struct {
		name   string
		format Format
		want   Format
	}{
		{"x.mcpdesc.json", "", FormatJSON},
		{"x.mcpdesc.yml", "", FormatYAML},
		{"<stdin>", "", FormatJSON},
		{"x.mcpdesc.json", FormatYAML, FormatYAML},
	}
	for _, tt := range tests {
		r := mustLint(t, doc, tt.name, &Options{Format: tt.format})
		if r.Document == nil || r.Document.Format != tt.want {
			t.Errorf("%s with --format %q: got %+v, want format %s", tt.name, tt.format, r.Document, tt.want)
		}
		if !r.Valid(true) {
			t.Errorf("%s: %s", tt.name, wantLines(r))
		}
	}
	if _, err := Lint([]byte(doc), "x", &Options{Format: "toml"}); err == nil {
		t.Error("unknown format: want a usage error")
	}
}

func TestSpecificationResolution(t *testing.T) {
	const body = "info: {name: a, version: \"1\"}\nprotocolVersions: [\"2025-11-25\"]\n"
	tests := []struct {
		name, head, selector, want string
	}{
		{"0.9.0 without $schema", `mcpdesc: "0.9.0"`, "", "0.9.0-rc.3"},
		{"0.9.0-rc.3 written out", `mcpdesc: "0.9.0-rc.3"`, "", "0.9.0-rc.3"},
		{"0.9.0 naming rc.3", "mcpdesc: \"0.9.0\"\n$schema: https://mcpdesc.org/schema/mcp-description/0.9.0-rc.3.json", "", "0.9.0-rc.3"},
		{"0.9.0 naming rc.1", "mcpdesc: \"0.9.0\"\n$schema: https://mcpdesc.org/schema/mcp-description/0.9.0-rc.1.json", "", ""},
		{"0.8.0 prerelease in $schema", "mcpdesc: \"0.8.0\"\n$schema: https://mcpdesc.org/schema/mcp-description/0.8.0-rc.1.json", "", "0.8.0-rc.1"},
		{"selector overrides", `mcpdesc: "7"`, "0.9.0-rc.3", "0.9.0-rc.3"},
		{"missing mcpdesc", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, tt.head+"\n"+body, "x.mcpdesc.yaml", &Options{Specification: tt.selector})
			if r.Specification != tt.want {
				t.Errorf("Specification = %q, want %q", r.Specification, tt.want)
			}
			if tt.want == "" {
				if diff := cmp.Diff("error unresolved-specification [\"mcpdesc\"]\n", wantLines(r)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				var out bytes.Buffer
				_ = r.WriteJSON(&out)
				if !strings.Contains(out.String(), `"specification": null`) {
					t.Errorf("JSON form lacks a null specification:\n%s", out.String())
				}
			}
		})
	}
	if _, err := Lint([]byte(body), "x.yaml", &Options{Specification: "9.9"}); !errors.Is(err, ErrUnknownSpecification) {
		t.Errorf("unknown selector: err = %v, want ErrUnknownSpecification", err)
	}
}

// TestLimits checks that huge and deeply nested inputs end in a parse diagnostic, not a
// stack overflow or a long run.
func TestLimits(t *testing.T) {
	deepJSON := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepYAML := "x-a: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	tests := []struct {
		name, data, file string
		opts             *Options
	}{
		{"deep json", deepJSON, "d.json", nil},
		{"deep yaml", deepYAML, "d.yaml", nil},
		{"too large", strings.Repeat(" ", 2048), "big.yaml", &Options{MaxBytes: 1024}},
		{"depth option", `{"a": {"b": {"c": 1}}}`, "o.json", &Options{MaxDepth: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, tt.data, tt.file, tt.opts)
			if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != CodeParse {
				t.Errorf("want one parse-error, got:\n%s", wantLines(r))
			}
		})
	}
}

func TestLintFileErrors(t *testing.T) {
	if _, err := LintFile(filepath.Join(t.TempDir(), "missing.mcpdesc.yaml"), nil); err == nil {
		t.Error("missing file: want an error")
	}
	dir := t.TempDir()
	if _, err := LintFile(dir, nil); err == nil {
		t.Error("directory: want an error")
	}
}

func TestExitCode(t *testing.T) {
	valid := &Report{}
	warned := &Report{Diagnostics: []Diagnostic{{Code: CodeLegacyIncomplete, Severity: SevWarning}}}
	invalid := &Report{Diagnostics: []Diagnostic{{Code: CodeSchema, Severity: SevError}}}
	tests := []struct {
		name    string
		reports []*Report
		strict  bool
		want    int
	}{
		{"valid", []*Report{valid}, false, 0},
		{"warnings allowed", []*Report{valid, warned}, false, 0},
		{"strict fails warnings", []*Report{warned}, true, 1},
		{"invalid", []*Report{valid, invalid}, false, 1},
		{"unreadable is worst", []*Report{invalid, nil, valid}, false, 2},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.reports, tt.strict); got != tt.want {
			t.Errorf("%s: ExitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
	if !warned.Valid(false) || warned.Valid(true) {
		t.Error("a warning keeps valid but fails strict")
	}
}

func TestPathString(t *testing.T) {
	tests := []struct {
		path Path
		want string
	}{
		{Path{}, "$"},
		{Path{Key("tools"), Index(0), Key("elicitations"), Index(1), Key("name")}, "$.tools[0].elicitations[1].name"},
		{Path{Key("components"), Key("schemas"), Key("bad name")}, `$.components.schemas["bad name"]`},
		{Path{Key("x-vendor"), Key("$schema")}, `$["x-vendor"].$schema`},
	}
	for _, tt := range tests {
		if got := tt.path.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
		b, _ := json.Marshal(tt.path)
		var back Path
		if err := json.Unmarshal(b, &back); err != nil || !cmp.Equal(tt.path, back) {
			t.Errorf("round trip of %s: %v %v", b, back, err)
		}
	}
}

func TestValidURI(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com/login?next=%2F#top", true},
		{"urn:example:login", true},
		{"mailto:a@example.com", true},
		{"http://[::1]:8080/", true},
		{"auth.example.com/login", false},
		{"/relative", false},
		{"https://example.com/a b", false},
		{"https://example.com/%zz", false},
		{"https://例え.jp/", false},
		{"https://example.com/#a#b", false},
		{"1http://x", false},
		{"http://[::1/", false},
	}
	for _, tt := range tests {
		if got := validURI(tt.in); got != tt.want {
			t.Errorf("validURI(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSortDropsExactDuplicates(t *testing.T) {
	p := Path{Key("protocolVersions")}
	in := []Diagnostic{
		{Code: "b", Severity: SevError, Message: "m", Path: p},
		{Code: "a", Severity: SevError, Message: "z", Path: p},
		{Code: "b", Severity: SevError, Message: "m", Path: p},
		{Code: "a", Severity: SevError, Message: "a", Path: Path{Key("x")}},
		{Code: "a", Severity: SevError, Message: "a", Path: Path{Index(0)}},
	}
	got := sortDiagnostics(in)
	want := []string{`a a ["x"]`, `a a [0]`, `a z ["protocolVersions"]`, `b m ["protocolVersions"]`}
	var gotS []string
	for _, d := range got {
		b, _ := d.Path.MarshalJSON()
		gotS = append(gotS, d.Code+" "+d.Message+" "+string(b))
	}
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTextWinsOverReference documents the one verdict where we follow the rc.3 text
// rather than the 0.8.0 reference validator: the reference runs the form consistency
// checks only once per non-legacy version in scope, so a form declaration scoped to
// legacy versions alone is never checked. §12.3 states those MUSTs without a version
// qualifier and §12.5 keeps "structural and selected sound checks" for legacy
// versions, so we report them (fixture invalid/legacy-consistency).
func TestTextWinsOverReference(t *testing.T) {
	r, err := LintFile("testdata/invalid/legacy-consistency.mcpdesc.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "error elicitation-form-required-property-unknown [\"tools\",0,\"elicitations\",1,\"requestedSchema\",\"required\",0]\n" +
		"warning legacy-protocol-validation-incomplete [\"protocolVersions\"]\n"
	if diff := cmp.Diff(want, wantLines(r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFind(t *testing.T) {
	load := func(file string) *Document {
		t.Helper()
		r, err := LintFile(file, nil)
		if err != nil || r.Document == nil {
			t.Fatalf("load %s: %v", file, err)
		}
		return r.Document
	}
	spec := load("testdata/valid/spec-12-7-example.mcpdesc.yaml")
	got, err := Find(spec, "tools/assign_issue", "choose_assignee")
	if err != nil {
		t.Fatal(err)
	}
	want := &Declaration{
		Primitive: "tools/assign_issue", Name: "choose_assignee", Mode: elicit.ModeForm,
		Message: "Who should own this issue?", When: "No assignee was supplied.",
		OnDecline: "Leave the issue unassigned.", OnCancel: "Abort without modifying the issue.",
		RequestedSchema:  json.RawMessage(`{"type":"object","properties":{"assignee":{"type":"string","title":"Assignee"}},"required":["assignee"]}`),
		ProtocolVersions: []string{"2025-06-18", "2025-11-25", "2026-07-28"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}

	js := load("testdata/valid/all-primitives.mcpdesc.json")
	ref, err := Find(js, "tools/deploy", "pick")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(ref.RequestedSchema); s != `{"type":"object","properties":{"env":{"type":"string","enum":["dev","prd"],"default":"dev"}},"required":["env"]}` {
		t.Errorf("resolved chain = %s", s)
	}
	u, err := Find(js, "tools/deploy", "login")
	if err != nil || u.Mode != elicit.ModeURL || u.URL != "https://auth.example.com/login" || u.RequestedSchema != nil {
		t.Errorf("url declaration = %+v, %v", u, err)
	}
	kinds := load("testdata/valid/every-kind.mcpdesc.yaml")
	rt, err := Find(kinds, "resourceTemplates/file:///reports/{id}.csv", "unlock")
	if err != nil || rt.URL != "" || rt.Mode != elicit.ModeURL {
		t.Errorf("runtime url declaration = %+v, %v", rt, err)
	}
	for _, bad := range [][2]string{{"tools/nope", "pick"}, {"tools/deploy", "nope"}} {
		if _, err := Find(js, bad[0], bad[1]); !errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q, %q): err = %v, want ErrNotFound", bad[0], bad[1], err)
		}
	}
	if _, err := Find(js, "widgets/x", "pick"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("unknown collection: err = %v", err)
	}
	cyc := load("testdata/invalid/references.mcpdesc.yaml")
	if _, err := Find(cyc, "tools/t", "cycle"); err == nil {
		t.Error("cycle: want an error")
	}
}
