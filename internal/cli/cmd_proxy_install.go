package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit/safe"
)

// proxyInstall is `elicitty proxy --install HOST SERVER [--write]`: it prints the entry
// of HOST's config that starts SERVER through elicitty proxy, or with write edits the
// file (after a backup). SERVER is an entry of the host's config, which is wrapped, or
// a server of elicitty's own config, for which an entry is added.
func (a *app) proxyInstall(host string, args []string, write bool) error {
	h, err := config.ParseHost(host)
	if err != nil {
		return &usageError{err: fmt.Errorf("--install: %w", err)}
	}
	if len(args) != 1 {
		return usagef("--install %s takes one SERVER: the name of an entry in %s's config or in elicitty's own, got %d arguments", h, h.Title(), len(args))
	}
	name := args[0]
	opts := a.loadOptions()
	command, note := launchCommand(os.Executable, exec.LookPath, os.TempDir())
	in := config.InstallOptions{Host: h, Name: name, Command: command}
	if err := a.ownServer(opts, &in); err != nil {
		return err
	}
	plan, err := opts.PlanInstall(in)
	if err != nil {
		var ne *config.NoEntryError
		if errors.As(err, &ne) {
			err = a.importedHint(opts, name, err)
		}
		return &usageError{err: err}
	}
	var backup string
	if write {
		if backup, err = plan.Write(time.Now()); err != nil {
			return err
		}
	}
	if a.jsonOut {
		return a.printJSON(installJSON(plan, write, backup, note))
	}
	return printInstall(a.stdout, plan, write, backup, note)
}

// ownServer fills in whether elicitty's own config (without other clients' files) or
// the built-ins define the server, and the file to name with --config when the host's
// elicitty would not find it by default.
func (a *app) ownServer(opts config.LoadOptions, in *config.InstallOptions) error {
	opts.NoImports = true
	cfg, err := config.Load(opts)
	if err != nil {
		return &usageError{err: err}
	}
	s, ok := cfg.Lookup(in.Name)
	in.Own = ok
	if ok && s.Source != "" && (a.configPath != "" || s.Layer == config.LayerEnv) {
		if in.ConfigFile, err = filepath.Abs(s.Source); err != nil {
			return fmt.Errorf("config file: %w", err)
		}
	}
	return nil
}

// importedHint adds to err where the server is configured when another client's file
// has it.
func (a *app) importedHint(opts config.LoadOptions, name string, err error) error {
	opts.NoImports = false
	cfg, lerr := config.Load(opts)
	if lerr != nil {
		return err
	}
	if s, ok := cfg.Lookup(name); ok && s.Layer == config.LayerImported {
		return fmt.Errorf("%w; it is in another client's config, %s: install it into that client, or add it to elicitty's config", err, s.Source)
	}
	return err
}

// launchCommand is how a host should start this elicitty: "elicitty" when that name on
// PATH is this very file, else its absolute path; for a binary that `go run` built in a
// temporary directory, "elicitty" with a note that it must be installed.
func launchCommand(executable func() (string, error), lookPath func(string) (string, error), tmp string) (command, note string) {
	exe, err := executable()
	if err != nil {
		return "elicitty", fmt.Sprintf("the running elicitty could not be located (%v): the entry runs \"elicitty\" from PATH", err)
	}
	if goRun(exe, tmp) {
		return "elicitty", "elicitty runs from `go run` (a temporary build): the entry runs \"elicitty\" from PATH, so install it (go install) where the host finds it"
	}
	if found, err := lookPath("elicitty"); err == nil && sameFile(found, exe) {
		return "elicitty", ""
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	return exe, ""
}

// goRun reports whether exe is a binary `go run` (or `go test`) built under the
// temporary directory tmp.
func goRun(exe, tmp string) bool {
	rel, err := filepath.Rel(tmp, exe)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	return strings.HasPrefix(rel, "go-build")
}

// sameFile reports whether the paths a and b name the same file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// installOutput is the --json output of `elicitty proxy --install`.
type installOutput struct {
	Host    string          `json:"host"`
	File    string          `json:"file"`
	Scope   string          `json:"scope"`
	Path    []string        `json:"path"`
	Name    string          `json:"name"`
	Action  string          `json:"action"`
	Entry   json.RawMessage `json:"entry"`
	Create  bool            `json:"create,omitempty"`
	Written bool            `json:"written"`
	Backup  string          `json:"backup,omitempty"`
	Note    string          `json:"note,omitempty"`
}

func installJSON(in *config.Install, written bool, backup, note string) installOutput {
	return installOutput{
		Host: string(in.File.Host), File: in.File.Path, Scope: string(in.File.Scope), Path: in.Path, Name: in.Name,
		Action: actionName(in.Action), Entry: in.Entry, Create: in.Create,
		Written: written && in.Action != config.InstallWrapped, Backup: backup, Note: note,
	}
}

func actionName(a config.InstallAction) string {
	switch a {
	case config.InstallWrap:
		return "wrap"
	case config.InstallAdd:
		return "add"
	case config.InstallWrapped:
		return "already-wrapped"
	}
	return "unknown"
}

// printInstall tells what the install does or did, with the entry as the host's JSON.
// Names, paths and commands come from config files: they are sanitized like server text.
func printInstall(w io.Writer, in *config.Install, written bool, backup, note string) error {
	title := in.File.Host.Title()
	name := fmt.Sprintf("%q", safe.Line(in.Name))
	file := safe.Line(in.File.Path)
	if note != "" {
		fmt.Fprintf(w, "note: %s\n\n", note)
	}
	switch {
	case in.Action == config.InstallWrapped:
		fmt.Fprintf(w, "%s's entry %s in %s already runs through elicitty proxy; nothing to do.\n", title, name, file)
		return nil
	case written && in.Action == config.InstallAdd:
		fmt.Fprintf(w, "Added %s to %s (%s):\n\n", name, file, title)
	case written:
		fmt.Fprintf(w, "Rewrote %s in %s (%s) to run through elicitty proxy:\n\n", name, file, title)
	case in.Action == config.InstallAdd:
		fmt.Fprintf(w, "Add this entry to %s (%s", file, title)
		if in.Create {
			fmt.Fprint(w, "; the file does not exist yet")
		}
		fmt.Fprint(w, "):\n\n")
	default:
		fmt.Fprintf(w, "Replace the entry %s in %s (%s) with this one, so that it runs through elicitty proxy:\n\n", name, file, title)
	}
	printEntry(w, in)
	if in.Redacted {
		fmt.Fprintln(w, "\n(env and header values are not shown; they stay as they are in the file.)")
	}
	if written {
		if backup != "" {
			fmt.Fprintf(w, "\nThe file as it was is in %s.\n", safe.Line(backup))
		}
		fmt.Fprintf(w, "Restart %s (or reload its MCP servers) to use it.\n", title)
		if in.File.Host == config.HostClaudeCode && in.File.Scope != config.ScopeProject {
			fmt.Fprintln(w, "Claude Code rewrites this file while it runs: if the entry is back as it was, run this again with Claude Code closed.")
		}
		return nil
	}
	if in.File.Host == config.HostClaudeCode {
		printClaudeCommand(w, in)
	}
	fmt.Fprintln(w, "\nRun again with --write to edit the file (it is backed up first).")
	return nil
}

// printEntry writes the entry under the keys that lead to it, indented by two spaces.
func printEntry(w io.Writer, in *config.Install) {
	var b strings.Builder
	depth := 0
	line := func(s string) { b.WriteString(strings.Repeat("  ", depth+1) + s + "\n") }
	for _, k := range in.Path {
		line(quoteJSON(k) + ": {")
		depth++
	}
	entry := strings.Split(string(in.Entry), "\n")
	entry[0] = quoteJSON(in.Name) + ": " + entry[0]
	for _, l := range entry {
		line(l)
	}
	for range in.Path {
		depth--
		line("}")
	}
	_, _ = w.Write(safe.JSON([]byte(b.String())))
}

// printClaudeCommand shows the same change as a `claude mcp` command line, when the
// entry has no secrets to print.
func printClaudeCommand(w io.Writer, in *config.Install) {
	if in.Redacted {
		fmt.Fprintln(w, "\n(No `claude mcp add-json` line: it would print the env and header values.)")
		return
	}
	scope := "--scope " + string(in.File.Scope)
	name := shellArg(safe.Line(in.Name))
	cmd := fmt.Sprintf("claude mcp add-json %s %s %s", scope, name, shellArg(string(safe.JSON(in.EntryJSON()))))
	if in.Action == config.InstallWrap {
		cmd = fmt.Sprintf("claude mcp remove %s %s && %s", scope, name, cmd)
	}
	fmt.Fprintf(w, "\nOr with Claude Code's own command:\n\n  %s\n", cmd)
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shellArg is s as one word of a POSIX shell command line, quoted when it needs it.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/:@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
