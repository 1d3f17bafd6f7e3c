package form

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
)

const fileFormSchema = `{"type":"object","properties":{
	"doc":{"type":"string","format":"uri","title":"Document","x-mcp-file":{"accept":["text/plain"],"maxSize":10}}
},"required":["doc"]}`

func fileRequest() *elicit.Request {
	return &elicit.Request{Server: "demo", Protocol: "2026-07-28", Mode: elicit.ModeForm, FileInputs: true,
		Message: "Pick a file", Schema: []byte(fileFormSchema)}
}

func fileFixture(t *testing.T) (dir, good, big string) {
	t.Helper()
	dir = t.TempDir()
	good = filepath.Join(dir, "a.txt")
	big = filepath.Join(dir, "big.txt")
	if err := os.WriteFile(good, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, bytes.Repeat([]byte("z"), 11), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, good, big
}

// The inline prompt asks for a path; refusals name the file and ask again; the review
// shows name, type and size, never the bytes.
func TestPrompterAccessibleFileField(t *testing.T) {
	dir, good, big := fileFixture(t)
	var out bytes.Buffer
	input := "\nA\n" + dir + "\n" + big + "\n" + good + "\na\n"
	p := NewPrompter(iotest.OneByteReader(strings.NewReader(input)), &out, &PrompterOptions{Accessible: true})
	resp, err := p.Answer(t.Context(), fileRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := elicit.DataURI("text/plain", "a.txt", []byte("abc"))
	if resp.Action != elicit.Accept || resp.Content["doc"] != want {
		t.Fatalf("response = %+v, want doc %s", resp, want)
	}
	if diff := cmp.Diff(map[string][]elicit.FileInfo{"doc": {{Path: good, Name: "a.txt", Type: "text/plain", Size: 3}}}, resp.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	s := out.String()
	for _, w := range []string{"is a directory", "big.txt", "over the 10 B the server takes", `"doc": "file a.txt (text/plain, 3 B)"`, "file: text/plain, at most 10 B"} {
		if !strings.Contains(s, w) {
			t.Errorf("prompt output lacks %q:\n%s", w, s)
		}
	}
	if b64 := base64.StdEncoding.EncodeToString([]byte("abc")); strings.Contains(s, b64) {
		t.Errorf("the review shows the file's bytes:\n%s", s)
	}
}

// In the TUI a single-file field is huh's file picker; the review describes the file.
func TestFormModelFileField(t *testing.T) {
	_, good, _ := fileFixture(t)
	req := fileRequest()
	f := req.ParsedForm()
	m := NewModel(req, f, Options{})
	if m.ans.list[0].widget != widgetFile {
		t.Fatalf("widget = %v, want the file picker", m.ans.list[0].widget)
	}
	if _, ok := m.ans.list[0].field(buildOptions{width: 80}).(pickerField); !ok {
		t.Errorf("the field is not huh's file picker")
	}
	m.ans.list[0].text = good // what the picker binds on selection
	m.enterReview()
	if !strings.Contains(m.raw, `"doc": "file a.txt (text/plain, 3 B)"`) || strings.Contains(m.raw, "base64") {
		t.Errorf("review:\n%s", m.raw)
	}
	m.finish(elicit.Accept)
	resp, ok := m.Done()
	if !ok || resp.Content["doc"] != elicit.DataURI("text/plain", "a.txt", []byte("abc")) || len(resp.Files["doc"]) != 1 || resp.Files["doc"][0].Path != good {
		t.Errorf("response = %+v", resp)
	}
}

func TestPickerTypes(t *testing.T) {
	cases := []struct {
		accept []string
		want   []string
	}{
		{nil, nil},
		{[]string{".pdf", ".TXT"}, []string{".pdf", ".TXT"}},
		{[]string{"image/*"}, nil},
		{[]string{".csv", "application/x-unknown-thing"}, nil},
	}
	for _, c := range cases {
		if got := pickerTypes(&elicit.FileSpec{Accept: c.accept}); !cmp.Equal(c.want, got) {
			t.Errorf("pickerTypes(%v) = %v, want %v", c.accept, got, c.want)
		}
	}
}

// A form request naming an MCP App (SEP-3118, _meta.ui.resourceUri) is shown as the core
// form, with one line saying an app view was offered.
func TestAppViewLine(t *testing.T) {
	req := &elicit.Request{Server: "demo", Mode: elicit.ModeForm, Message: "Confirm the manager",
		Schema: []byte(`{"type":"object","properties":{"confirmed":{"type":"boolean"}}}`),
		Params: []byte(`{"mode":"form","message":"Confirm the manager","requestedSchema":{"type":"object","properties":{"confirmed":{"type":"boolean"}}},"_meta":{"ui":{"resourceUri":"ui://portfolio/assign\u001b[31m-manager"}}}`)}
	head := headerText(req, req.ParsedForm())
	want := "ⓘ the server offers an app view (ui://portfolio/assign-manager) that elicitty does not render; this is the same request as a form"
	if !strings.Contains(head, want) {
		t.Errorf("header:\n%s\nwant the line %q", head, want)
	}
	m := NewModel(req, req.ParsedForm(), Options{})
	m.SetSize(200, 40)
	if v := m.View(); !strings.Contains(v, "app view (ui://portfolio/assign-manager)") || !strings.Contains(v, "confirmed") {
		t.Errorf("view lacks the line or the form:\n%s", v)
	}
	req.Params = []byte(`{"mode":"form","message":"m"}`)
	if strings.Contains(headerText(req, req.ParsedForm()), "app view") {
		t.Errorf("app line without _meta.ui")
	}
}

// The picker, driven by keys: it lists the working directory, refuses a file over
// maxSize by name, and choosing one that fits leads to the review, which shows the file,
// not its bytes.
func TestFilePickerByKeys(t *testing.T) {
	dir, _, _ := fileFixture(t)
	t.Chdir(dir)
	synctest.Test(t, func(t *testing.T) {
		req := fileRequest()
		m := NewModel(req, req.ParsedForm(), Options{})
		m.SetSize(100, 30)
		run(t, m, m.Init())
		if s := screen(m); !strings.Contains(s, "a.txt") || !strings.Contains(s, "big.txt") || !strings.Contains(s, "file: text/plain, at most 10 B") {
			t.Fatalf("the picker does not list the working directory:\n%s", s)
		}
		press(t, m, tea.KeyPressMsg{Code: tea.KeyDown}) // big.txt: over maxSize
		press(t, m, tea.KeyPressMsg{Code: tea.KeyEnter})
		if s := screen(m); !strings.Contains(s, "over the 10 B the server takes") {
			t.Fatalf("big.txt was not refused:\n%s", s)
		}
		press(t, m, tea.KeyPressMsg{Code: tea.KeyEnter}) // open the list again
		press(t, m, tea.KeyPressMsg{Code: tea.KeyUp})
		press(t, m, tea.KeyPressMsg{Code: tea.KeyEnter}) // a.txt
		s := screen(m)
		if !strings.Contains(s, "file a.txt (text/plain, 3 B)") || strings.Contains(s, base64.StdEncoding.EncodeToString([]byte("abc"))) {
			t.Fatalf("review after picking a.txt:\n%s", s)
		}
	})
}

// A tool's remembered arguments do not refill its file fields (the values are data URIs).
func TestPrefillSkipsFiles(t *testing.T) {
	schema := `{"type":"object","properties":{"docs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{}}},"n":{"type":"string"}}}`
	f := elicit.ParseWith([]byte(schema), "", &elicit.ParseOptions{FileInputs: true})
	a := newAnswers(f).prefill(map[string]any{"docs": []string{elicit.DataURI("text/plain", "a.txt", []byte("x"))}, "n": "kept"})
	if a.list[0].text != "" || a.list[1].text != "kept" {
		t.Errorf("prefilled %q and %q", a.list[0].text, a.list[1].text)
	}
}
