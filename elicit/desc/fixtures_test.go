package desc

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the .want files and output goldens")

// wantLines renders the parts of a report that fixtures assert: severity, code and path
// (location and message are deliberately left out, as in the reference fixtures).
func wantLines(r *Report) string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		p, _ := d.Path.MarshalJSON()
		b.WriteString(string(d.Severity) + " " + d.Code + " " + string(p) + "\n")
	}
	return b.String()
}

// TestFixtures lints every file under testdata/{valid,invalid,warning}, checks its
// outcome class from the directory, and compares codes and paths with the sidecar
// NAME.want file.
func TestFixtures(t *testing.T) {
	for _, class := range []string{"valid", "invalid", "warning"} {
		files, err := filepath.Glob(filepath.Join("testdata", class, "*.mcpdesc.*"))
		if err != nil {
			t.Fatal(err)
		}
		files = slicesFilter(files, func(f string) bool { return !strings.HasSuffix(f, ".want") })
		if len(files) == 0 {
			t.Fatalf("no fixtures in testdata/%s", class)
		}
		for _, file := range files {
			t.Run(class+"/"+filepath.Base(file), func(t *testing.T) {
				rep, err := LintFile(file, nil)
				if err != nil {
					t.Fatalf("LintFile: %v", err)
				}
				errs, warns := rep.Counts()
				switch class {
				case "valid":
					if errs+warns != 0 {
						t.Errorf("want no diagnostics, got:\n%s", wantLines(rep))
					}
				case "invalid":
					if errs == 0 {
						t.Errorf("want at least one error, got:\n%s", wantLines(rep))
					}
				case "warning":
					if errs != 0 || warns == 0 {
						t.Errorf("want warnings only, got:\n%s", wantLines(rep))
					}
				}
				if rep.Valid(false) != (errs == 0) {
					t.Errorf("Valid(false) = %v with %d errors", rep.Valid(false), errs)
				}
				got := wantLines(rep)
				wantFile := file + ".want"
				if *update {
					if err := os.WriteFile(wantFile, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(wantFile)
				if err != nil {
					t.Fatalf("read %s (run with -update to create it): %v", wantFile, err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func slicesFilter(in []string, keep func(string) bool) []string {
	var out []string
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// TestOutputGoldens pins the exact text and --json forms of a few reports.
func TestOutputGoldens(t *testing.T) {
	for _, file := range []string{
		"testdata/invalid/duplicate-name.mcpdesc.yaml",
		"testdata/warning/legacy.mcpdesc.yaml",
		"testdata/valid/mcpdesc-md-example.mcpdesc.yaml",
		"testdata/invalid/parse-duplicate-key.mcpdesc.json",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rep, err := LintFile(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep.Source = filepath.Base(file)
			var text, js bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			base := filepath.Join("testdata", "output", filepath.Base(file))
			golden(t, base+".txt", text.Bytes())
			golden(t, base+".json", js.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
