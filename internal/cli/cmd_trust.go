package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
)

// trustCommand is `elicitty trust [DIR]`: show the servers of a folder's project files
// and trust them as they are.
func (a *app) trustCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Show a project folder's MCP servers and trust them to start",
		Long: `The project files of a folder (.mcp.json, .cursor/mcp.json, .vscode/mcp.json and
.gemini/settings.json) come with the folder, for instance with a cloned repository. Their
servers do not start, and their ${VAR} references are not expanded, until you trust the
folder. trust shows each of those servers (its command line or URL, and the environment
variables it reads) and trusts the folder (the working directory unless DIR is given):
elicitty remembers the folder with a digest of each file, and asks again when a file
changes.

--trust on any command does the same for the working directory, for that run and the
next ones.`,
		Example: "  elicitty trust\n  elicitty trust examples\n  elicitty --trust config",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return a.trustFolder(dir)
		},
	}
}

// trustFolder shows the untrusted servers of dir's project files and trusts them.
func (a *app) trustFolder(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return usagef("trust: %w", err)
	}
	if !st.IsDir() {
		return usagef("trust: %s is not a folder", dir)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return usagef("trust: %w", err)
	}
	opts := a.loadOptions()
	opts.WorkDir, opts.NoImports = dir, false
	cfg, err := config.Load(opts)
	if err != nil {
		return &usageError{err: err}
	}
	p := cfg.Project
	if len(p.Files) == 0 {
		fmt.Fprintf(a.stdout, "%s has no project MCP files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json): nothing to trust\n", safe.Line(dir))
		return nil
	}
	if p.Trusted {
		fmt.Fprintf(a.stdout, "%s is already trusted (%s)\n", safe.Line(p.Dir), safe.Line(projectFileNames(p)))
		return nil
	}
	printUntrusted(a.stdout, cfg)
	if err := config.Trust(opts, p); err != nil {
		return &usageError{err: err}
	}
	fmt.Fprintf(a.stdout, "\ntrusted %s: these servers can start now; a change to these files asks again\n", safe.Line(p.Dir))
	return nil
}

// printUntrusted lists the project folder's files and the servers that wait for its
// trust: each one's command line or URL and the variables it would read, sanitized.
func printUntrusted(w io.Writer, cfg config.Config) {
	p := cfg.Project
	fmt.Fprintf(w, "the project folder %s has MCP servers that start only once you trust it:\n", safe.Line(p.Dir))
	for _, f := range p.Files {
		fmt.Fprintf(w, "\n  %s\n", safe.Line(f.Name))
		for _, s := range cfg.Untrusted {
			if s.Source == f.Path {
				fmt.Fprintf(w, "    %s\n", safe.Line(untrustedLine(s)))
			}
		}
		for _, pr := range cfg.Problems {
			if pr.Source != f.Path {
				continue
			}
			name := "(whole file)"
			if pr.Server != "" {
				name = pr.Server
			}
			fmt.Fprintf(w, "    %s: not usable: %s\n", safe.Line(name), safe.Line(pr.Err.Error()))
		}
	}
}

// untrustedLine is one untrusted server: `name: runs CMD ARGS` or `name: connects to
// URL`, with its env and header names and the variables it would read.
func untrustedLine(s config.Server) string {
	var b strings.Builder
	b.WriteString(s.Name + ": ")
	if s.EffectiveKind() == config.KindStdio {
		b.WriteString("runs " + strings.Join(append([]string{quoteArg(s.Command)}, quoteArgs(s.Args)...), " "))
	} else {
		b.WriteString("connects to " + s.URL + " (" + string(s.EffectiveKind()) + ")")
	}
	var extra []string
	if len(s.Env) > 0 {
		extra = append(extra, "env: "+strings.Join(sortedKeys(s.Env), ", "))
	}
	if len(s.Headers) > 0 {
		extra = append(extra, "headers: "+strings.Join(sortedKeys(s.Headers), ", "))
	}
	if s.Cwd != "" {
		extra = append(extra, "in "+s.Cwd)
	}
	if vars := references(s); len(vars) > 0 {
		extra = append(extra, "reads "+strings.Join(vars, ", "))
	}
	if len(extra) > 0 {
		b.WriteString("; " + strings.Join(extra, "; "))
	}
	return b.String()
}

var referenceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[^}]*\}`) })

// references lists the ${...} references in an untrusted server's strings (they are
// kept as written until the folder is trusted).
func references(s config.Server) []string {
	fields := append([]string{s.Command, s.URL, s.Cwd}, s.Args...)
	for _, v := range s.Env {
		fields = append(fields, v)
	}
	for _, v := range s.Headers {
		fields = append(fields, v)
	}
	var out []string
	for _, f := range fields {
		for _, m := range referenceRe().FindAllString(f, -1) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// quoteArgs quotes each argument for display.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = quoteArg(arg)
	}
	return out
}

// quoteArg quotes an argument that a shell would split or expand.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}~!#") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// projectFileNames lists a project's files for a message: ".mcp.json, .vscode/mcp.json".
func projectFileNames(p config.Project) string {
	names := make([]string, len(p.Files))
	for i, f := range p.Files {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
