package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// txtar reads a testdata archive: a comment, then "-- name --" sections.
func txtar(t testing.TB, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var name string
	var body strings.Builder
	flush := func() {
		if name != "" {
			files[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			continue
		}
		body.WriteString(line)
	}
	flush()
	return files
}

// layout lays files (paths relative to a temporary root with home/, config/ and work/) out,
// with "$ROOT" in their text replaced by the root, and returns options that point Load at them, reading variables from env only.
func layout(t *testing.T, files map[string]string, env map[string]string) (LoadOptions, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"home", "config", "work"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body = strings.ReplaceAll(body, "$ROOT", filepath.ToSlash(root))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	opts := LoadOptions{
		Getenv:    mapEnv(env),
		HomeDir:   filepath.Join(root, "home"),
		ConfigDir: filepath.Join(root, "config"),
		WorkDir:   filepath.Join(root, "work"),
	}
	trustWork(t, opts)
	return opts, root
}

// trustWork records the project files of opts.WorkDir, as they are now, as trusted (as
// `elicitty trust` does), so that tests of importing see them start.
func trustWork(t *testing.T, opts LoadOptions) {
	t.Helper()
	p := Project{Dir: projectDir(opts.WorkDir)}
	for _, name := range []string{".cursor/mcp.json", ".mcp.json", ".vscode/mcp.json", ".gemini/settings.json"} {
		path := filepath.Join(opts.WorkDir, filepath.FromSlash(name))
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			p.Files = append(p.Files, ProjectFile{Path: path, Name: name, Digest: digest(data)})
		}
	}
	if err := Trust(opts, p); err != nil {
		t.Fatal(err)
	}
}

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// rel replaces the temporary root in s with "$ROOT" so expectations can be written down.
func rel(root, s string) string {
	return strings.ReplaceAll(s, root, "$ROOT")
}

// relServers rewrites paths with rel and clears Layer and Project (TestLayers and
// TestTrust check them).
func relServers(root string, ss []Server) []Server {
	out := make([]Server, len(ss))
	for i, s := range ss {
		s.Layer, s.Project = 0, ""
		s.Source = rel(root, s.Source)
		s.Command = rel(root, s.Command)
		s.Cwd = rel(root, s.Cwd)
		if s.Args != nil {
			args := make([]string, len(s.Args))
			for j, a := range s.Args {
				args[j] = rel(root, a)
			}
			s.Args = args
		}
		out[i] = s
	}
	return out
}

// problem is a Problem with its error as text, for comparison.
type problem struct{ Source, Server, Err string }

func relProblems(root string, ps []Problem) []problem {
	var out []problem
	for _, p := range ps {
		out = append(out, problem{rel(root, p.Source), p.Server, rel(root, p.Err.Error())})
	}
	return out
}

func ptr[T any](v T) *T { return &v }
