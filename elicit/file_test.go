package elicit

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The schemas of SEP-2356: its elicitation example, a multi-file array, and the
// misplaced keyword it says to ignore.
const fileSchema = `{"type":"object","properties":{
 "photo":{"type":"string","format":"uri","title":"Profile photo","x-mcp-file":{"accept":["image/*"],"maxSize":2097152}},
 "docs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{"accept":[".txt","text/plain"],"maxSize":64}},"maxItems":2},
 "notes":{"type":"string","x-mcp-file":{"accept":["text/plain"]}},
 "name":{"type":"string"}},"required":["photo"]}`

func TestParseFileFields(t *testing.T) {
	on := ParseWith(json.RawMessage(fileSchema), "2026-07-28", &ParseOptions{FileInputs: true})
	kinds := map[string]Kind{}
	for _, f := range on.Fields {
		kinds[f.Name] = f.Kind
	}
	if diff := cmp.Diff(map[string]Kind{"photo": KindFile, "docs": KindFile, "notes": KindText, "name": KindText}, kinds); diff != "" {
		t.Errorf("kinds with file inputs (-want +got):\n%s", diff)
	}
	if got := on.Fields[0]; got.File == nil || got.File.MaxSize != 2097152 || got.File.Multi || !cmp.Equal(got.File.Accept, []string{"image/*"}) || !got.Required || got.Title != "Profile photo" {
		t.Errorf("photo = %+v, file %+v", got, got.File)
	}
	if got := on.Fields[1]; got.File == nil || !got.File.Multi || got.File.MaxSize != 64 || got.MaxItems == nil || *got.MaxItems != 2 {
		t.Errorf("docs = %+v, file %+v", got, got.File)
	}
	for _, f := range on.Findings {
		if strings.HasPrefix(f.Path, "/properties/photo") || strings.HasPrefix(f.Path, "/properties/docs") {
			t.Errorf("finding on a file field: %s", f)
		}
	}
	// Without the flag nothing is a file: photo is the uri string it is declared as.
	off := Parse(json.RawMessage(fileSchema), "2026-07-28")
	if off.Fields[0].Kind != KindText || off.Fields[0].Format != "uri" || off.Fields[0].File != nil {
		t.Errorf("photo without file inputs = %+v", off.Fields[0])
	}
}

func TestParseRequestedFilesSidecar(t *testing.T) {
	// The earlier draft: descriptors beside the schema, in requestedFiles.
	req := &Request{FileInputs: true, Protocol: "2025-11-25",
		Schema: json.RawMessage(`{"type":"object","properties":{"cv":{"type":"string","format":"uri"},"more":{"type":"array","items":{"type":"string"}}}}`),
		Params: json.RawMessage(`{"message":"m","requestedFiles":{"cv":{"accept":["application/pdf"],"maxSize":10},"more":{}}}`)}
	f := req.ParsedForm()
	if f.Fields[0].Kind != KindFile || f.Fields[0].File.MaxSize != 10 || f.Fields[1].Kind != KindFile || !f.Fields[1].File.Multi {
		t.Errorf("fields = %+v %+v", f.Fields[0], f.Fields[1])
	}
	req.FileInputs = false
	if f := req.ParsedForm(); f.Fields[0].Kind != KindText {
		t.Errorf("without file inputs cv is %v", f.Fields[0].Kind)
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFileDataURI(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "my notes.txt", []byte("hello"))
	uri, fi, err := ReadFile(p, FileSpec{Accept: []string{"text/*"}, MaxSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := "data:text/plain;name=my%20notes.txt;base64," + base64.StdEncoding.EncodeToString([]byte("hello")); uri != want {
		t.Errorf("uri = %s, want %s", uri, want)
	}
	if fi.Name != "my notes.txt" || fi.Type != "text/plain" || fi.Size != 5 {
		t.Errorf("info = %+v", fi)
	}
	if got := fi.String(); got != "my notes.txt (text/plain, 5 B)" {
		t.Errorf("shown as %q", got)
	}
	back, ok := DescribeDataURI(uri)
	if !ok || back.Name != fi.Name || back.Type != fi.Type || back.Size != 5 {
		t.Errorf("DescribeDataURI = %+v, %v", back, ok)
	}
	if got := RedactDataURI(uri); got != "data:text/plain;name=my%20notes.txt;base64,[5 bytes]" {
		t.Errorf("redacted = %q", got)
	}
	// No extension: the type is sniffed from the first bytes.
	png := writeFile(t, dir, "pixel", []byte("\x89PNG\r\n\x1a\n0000"))
	if _, fi, err := ReadFile(png, FileSpec{Accept: []string{"image/png"}}); err != nil || fi.Type != "image/png" {
		t.Errorf("sniffed %+v, %v", fi, err)
	}
}

func TestCheckFileValues(t *testing.T) {
	f := ParseWith(json.RawMessage(fileSchema), "2026-07-28", &ParseOptions{FileInputs: true})
	png := DataURI("image/png", "a.png", []byte("1234"))
	txt := DataURI("text/plain", "a.txt", bytes.Repeat([]byte("y"), 65))
	got := f.Check(map[string]any{"photo": png, "docs": []any{txt, "https://example.com/x", DataURI("text/plain", "b.txt", nil)}})
	want := []Violation{
		{Path: "/docs/0", Keyword: "x-mcp-file", Message: "file is 65 B, over the maxSize of 64 B"},
		{Path: "/docs/1", Keyword: "x-mcp-file", Message: "must be a data: URI holding the file"},
		{Path: "/docs", Keyword: "maxItems", Message: "must have at most 2 files"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if vs := f.Check(map[string]any{"photo": DataURI("application/pdf", "x.pdf", nil)}); len(vs) != 1 || vs[0].Keyword != "x-mcp-file" {
		t.Errorf("pdf for an image field: %+v", vs)
	}
}

func TestScriptFileFieldRelativeToAnswersFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir), "photo.png", []byte("\x89PNG\r\n\x1a\nxx"))
	answers := writeFile(t, dir, "answers.yaml", []byte("- match: {tool: upload}\n  action: accept\n  content:\n    photo: {file: photo.png}\n"))
	s, err := LoadScript(answers, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Server: "demo", Tool: "upload", Message: "Pick", Protocol: "2026-07-28", FileInputs: true, Schema: json.RawMessage(fileSchema)}
	rec := NewRecorder(s)
	resp, err := NewEngine(rec, nil).Answer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := DataURI("image/png", "photo.png", []byte("\x89PNG\r\n\x1a\nxx"))
	if resp.Action != Accept || resp.Content["photo"] != want {
		t.Errorf("response = %+v, want photo %s", resp, want)
	}
	// --record writes the path, never the bytes.
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "file: "+filepath.Join(dir, "photo.png")) || strings.Contains(out, "base64") {
		t.Errorf("recorded:\n%s", out)
	}
	// A refused file fails the answer, naming it.
	bad := writeFile(t, dir, "bad.yaml", []byte("- action: accept\n  content:\n    photo: {file: .}\n"))
	s2, err := LoadScript(bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(s2, nil).Answer(context.Background(), req); err == nil || !errors.Is(err, ErrFileRefused) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory in an answers file: err = %v", err)
	}
}

func TestParseTextReadsFilePath(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.txt", []byte("abc"))
	f := ParseWith(json.RawMessage(fileSchema), "", &ParseOptions{FileInputs: true})
	v, err := f.Fields[1].ParseText(p + ", " + p)
	if err != nil {
		t.Fatal(err)
	}
	uri := DataURI("text/plain", "a.txt", []byte("abc"))
	if diff := cmp.Diff([]string{uri, uri}, v); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if s, ok := DescribeFileValue(v); !ok || s != "a.txt (text/plain, 3 B), a.txt (text/plain, 3 B)" {
		t.Errorf("review = %q", s)
	}
}

func TestFileKeywordFindingWithoutFileInputs(t *testing.T) {
	f := Parse(json.RawMessage(fileSchema), "2026-07-28")
	found := false
	for _, fd := range f.Findings {
		if fd.Path == "/properties/photo/x-mcp-file" {
			found = strings.Contains(fd.Message, "--experimental file-inputs")
		}
	}
	if !found {
		t.Errorf("findings %v: want one saying how to answer the file input", f.Findings)
	}
}

func TestReadFileDefaultLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.bin")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(DefaultMaxFile + 1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	fh.Close()
	if _, _, err := ReadFile(p, FileSpec{}); err == nil || !strings.Contains(err.Error(), "when the server names no maxSize") {
		t.Errorf("err = %v", err)
	}
}

// FuzzFileInputs: a schema parsed with file inputs never panics, and the content checks
// and the review of any value never show more than a data URI's name, type and size.
func FuzzFileInputs(f *testing.F) {
	f.Add(fileSchema, "data:text/plain;name=a.txt;base64,YWJj")
	f.Add(`{"type":"object","properties":{"f":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{"accept":"x","maxSize":-1}}}}}`, "data:,")
	f.Add(`{"type":"object","properties":{"f":{"type":"string","format":"uri","x-mcp-file":[]}}}`, "data:;base64,====")
	f.Fuzz(func(t *testing.T, schema, value string) {
		form := ParseWith(json.RawMessage(schema), "2026-07-28", &ParseOptions{FileInputs: true})
		for _, fld := range form.Fields {
			_ = fld.CheckValue(value)
			_ = fld.CheckValue([]any{value})
		}
		fi, ok := DescribeDataURI(value)
		if !ok {
			return
		}
		// What is shown is made of the name, the type and the size only.
		r := RedactDataURI(value)
		if want := fmt.Sprintf(",[%d bytes]", fi.Size); !strings.HasSuffix(r, want) || strings.Count(r, ",") != 1+strings.Count(url.PathEscape(fi.Name)+fi.Type, ",") {
			t.Fatalf("redacted %q, want it to end in %q", r, want)
		}
		if fi.Name == "" {
			fi.Name = "(unnamed)"
		}
		if got, ok := DescribeFileValue(value); !ok || got != fi.String() {
			t.Fatalf("review %q, want %q", got, fi.String())
		}
	})
}

func TestUnansweredEntryNamesAFile(t *testing.T) {
	req := &Request{Server: "demo", Tool: "upload", Message: "Pick", FileInputs: true, Schema: json.RawMessage(fileSchema)}
	got := UnansweredEntry(req)
	if !strings.Contains(got, "photo:\n") || !strings.Contains(got, "file: PATH/TO/FILE") {
		t.Errorf("entry:\n%s", got)
	}
	if c := AutoAccept(req).Content; c != nil {
		if _, ok := c["photo"]; ok {
			t.Errorf("AutoAccept made up a file: %v", c)
		}
	}
}
