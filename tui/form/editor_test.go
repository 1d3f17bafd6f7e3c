package form

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

var keyCtrlE = tea.KeyPressMsg{Code: 'e', Mod: tea.ModCtrl}

// fakeEditor writes an editor script that records the file's content it was given
// in seen and replaces the file with out, a printf format.
func fakeEditor(t *testing.T, out string) (editor, seen string) {
	t.Helper()
	testkit.External(t, "sh")
	dir := t.TempDir()
	seen = filepath.Join(dir, "seen")
	script := filepath.Join(dir, "editor.sh")
	body := "#!/bin/sh\ncat \"$1\" > '" + seen + "'\nprintf '" + out + "' > \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, seen
}

// syncExec runs the editor at once, as the program would after releasing the terminal.
func syncExec(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	return func() tea.Msg { return fn(c.Run()) }
}

func TestEditorRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
	}{
		{"trailing newline trimmed", "a long description\n", "a long description"},
		{"no newline", "as typed", "as typed"},
		{"crlf trimmed", "dos\r\n", "dos"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			editor, seen := fakeEditor(t, strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(tc.out))
			t.Setenv("VISUAL", "")
			t.Setenv("EDITOR", editor)
			synctest.Test(t, func(t *testing.T) {
				f := &elicit.Form{Fields: []elicit.Field{{Name: "notes", Title: "Notes", Kind: elicit.KindText}}}
				m := NewModel(request("Describe it"), f, Options{Width: 80, Height: 24, NoColor: true})
				m.exec = syncExec
				run(t, m, m.Init())
				if !strings.Contains(screen(m), "ctrl+e $EDITOR") {
					t.Errorf("footer does not offer the editor:\n%s", screen(m))
				}
				typeText(t, m, "draft")
				press(t, m, keyCtrlE)
				got, err := os.ReadFile(seen)
				if err != nil {
					t.Fatalf("the editor did not run: %v", err)
				}
				if string(got) != "draft" {
					t.Errorf("editor got %q, want the field's current value %q", got, "draft")
				}
				press(t, m, testkit.Key("<enter>")) // on to the review step
				press(t, m, testkit.Key("a"))
				r, ok := m.Done()
				if !ok {
					t.Fatalf("not done:\n%s", screen(m))
				}
				if diff := cmp.Diff(elicit.Response{Action: elicit.Accept, Content: map[string]any{"notes": tc.want}}, r); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestEditorFailureKeepsValue(t *testing.T) {
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "")
	synctest.Test(t, func(t *testing.T) {
		f := &elicit.Form{Fields: []elicit.Field{{Name: "notes", Title: "Notes", Kind: elicit.KindText}}}
		m := NewModel(request("Describe it"), f, Options{Width: 80, Height: 24, NoColor: true, Editor: "/nonexistent/editor"})
		m.exec = syncExec
		run(t, m, m.Init())
		typeText(t, m, "kept")
		press(t, m, keyCtrlE)
		if s := screen(m); !strings.Contains(s, "editor:") {
			t.Errorf("the failure is not shown:\n%s", s)
		}
		press(t, m, testkit.Key("<enter>"))
		press(t, m, testkit.Key("a"))
		r, _ := m.Done()
		if diff := cmp.Diff(map[string]any{"notes": "kept"}, r.Content); diff != "" {
			t.Errorf("content (-want +got):\n%s", diff)
		}
	})
}

func TestEditorCommandFallback(t *testing.T) {
	for _, tc := range []struct {
		opt, visual, editor string
		want                []string
	}{
		{"", "", "", []string{"vi"}},
		{"", "", "nano", []string{"nano"}},
		{"", "code --wait", "nano", []string{"code", "--wait"}},
		{"hx", "code", "nano", []string{"hx"}},
	} {
		t.Setenv("VISUAL", tc.visual)
		t.Setenv("EDITOR", tc.editor)
		m := &Model{opts: Options{Editor: tc.opt}}
		if diff := cmp.Diff(tc.want, m.editorCommand()); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc, diff)
		}
	}
}
