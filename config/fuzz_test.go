package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadFile feeds arbitrary bytes to the file parser in each format. It must not panic;
// a file it accepts must give only valid servers; and no error may show the value of a
// variable (every variable holds the same marker).
func FuzzLoadFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "load", "*.txtar"))
	for _, path := range seeds {
		for name, body := range txtar(f, path) {
			switch {
			case strings.HasSuffix(name, "config.yaml"), strings.HasSuffix(name, "config.yml"):
				f.Add([]byte(body), uint8(0))
			case strings.HasSuffix(name, "config.json"):
				f.Add([]byte(body), uint8(1))
			case strings.HasSuffix(name, ".vscode/mcp.json"):
				f.Add([]byte(body), uint8(3))
			default:
				f.Add([]byte(body), uint8(2))
			}
		}
	}
	corpus, _ := filepath.Glob(filepath.Join("testdata", "fuzzseed", "*"))
	for _, path := range corpus {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
		f.Add(data, uint8(2))
	}
	const marker = "zz-secret-zz"
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		file, form := "fuzz.yaml", formatOwn
		switch which % 4 {
		case 1:
			file = "fuzz.json"
		case 2:
			file, form = "mcp.json", formatMCPServers
		case 3:
			file, form = "mcp.json", formatVSCode
		}
		x := &expander{getenv: func(string) string { return marker }, home: "/h", work: "/w"}
		res, err := decodeFile(file, data, form, x)
		check := !strings.Contains(string(data), marker)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
			if check && strings.Contains(err.Error(), marker) {
				t.Fatalf("error shows a variable's value: %v", err)
			}
			return
		}
		for _, s := range res.servers {
			if errs := validateServer(s); len(errs) > 0 {
				t.Fatalf("accepted invalid server %q: %v", s.Name, errs)
			}
		}
		for _, p := range res.problems {
			if check && strings.Contains(p.Err.Error(), marker) {
				t.Fatalf("problem shows a variable's value: %v", p.Err)
			}
		}
	})
}
