package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
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
	command, note, err := a.launchCommand()
	if err != nil {
		return err
	}
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
		before, _ := config.Load(opts)
		if backup, err = plan.Write(time.Now()); err != nil {
			return err
		}
		if err := keepTrust(opts, before.Project, plan.File.Path); err != nil {
			return err
		}
	}
	if a.jsonOut {
		return a.printJSON(installJSON(plan, write, backup, note))
	}
	return printInstall(a.stdout, plan, write, backup, note)
}

// proxyUninstall is `elicitty proxy --uninstall HOST SERVER [--write]`: it undoes
// --install, printing what it does, or with write editing the file (after a backup):
// an entry --install wrapped gets back the value it had before, from the backup that
// install kept; an entry it added is removed.
func (a *app) proxyUninstall(host string, args []string, write bool) error {
	h, err := config.ParseHost(host)
	if err != nil {
		return &usageError{err: fmt.Errorf("--uninstall: %w", err)}
	}
	if len(args) != 1 {
		return usagef("--uninstall %s takes one SERVER: the name of an entry in %s's config, got %d arguments", h, h.Title(), len(args))
	}
	self, _, _ := a.launchCommand() // recognized beside any command named elicitty
	plan, err := a.loadOptions().PlanUninstall(config.InstallOptions{Host: h, Name: args[0], Command: self})
	if err != nil {
		return &usageError{err: err}
	}
	var backup string
	if write {
		if backup, err = plan.Write(time.Now()); err != nil {
			return err
		}
	}
	if a.jsonOut {
		return a.printJSON(installJSON(plan, write, backup, ""))
	}
	return printInstall(a.stdout, plan, write, backup, "")
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

// launcher is what launchCommand reads of the system; tests replace it (app.launch).
type launcher struct {
	executable func() (string, error)
	lookPath   func(string) (string, error)
	getenv     func(string) string
}

// systemLauncher reads this process and this system.
func systemLauncher() launcher {
	return launcher{executable: os.Executable, lookPath: exec.LookPath, getenv: os.Getenv}
}

// launchCommand is the absolute path a host should start this elicitty by: GUI hosts
// and agent CLIs do not run with the shell's PATH, so a bare "elicitty" is never
// written. The running binary is resolved (symlinks followed); a name that leads to it
// and survives upgrades is preferred to the file it resolves to: the elicitty on PATH
// (a package manager's link to a versioned directory) or in GOBIN, GOPATH/bin or
// ~/go/bin (where `go install` replaces it). A binary that `go run` or `go test` built
// (a temporary directory or the Go build cache) would be gone soon: the elicitty on
// PATH is used instead, with a note that says so; with none on PATH it is an error.
func launchCommand(l launcher) (command, note string, err error) {
	exe, err := l.executable()
	if err == nil {
		exe, err = resolve(exe)
	}
	if err != nil || l.temporary(exe) {
		why := "elicitty runs from a temporary build (go run): it would be gone soon"
		if err != nil {
			why = fmt.Sprintf("the running elicitty could not be located (%v)", err)
		}
		found, ferr := l.lookPath("elicitty")
		if ferr == nil {
			if real, rerr := resolve(found); rerr == nil && !l.temporary(real) {
				abs, _ := filepath.Abs(found)
				return abs, fmt.Sprintf("%s; the entry runs %s, the elicitty found on PATH", why, abs), nil
			}
		}
		return "", "", fmt.Errorf("%s, and no installed elicitty is on PATH: install it (go install github.com/elicitty/elicitty@latest, or a release) and run --install again", why)
	}
	for _, name := range l.stableNames(filepath.Base(exe)) {
		if sameFile(name, exe) {
			return name, "", nil
		}
	}
	return exe, "", nil
}

// resolve returns path absolute, with every symlink followed.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// temporary reports whether the resolved path exe is a build of `go run` or `go
// test`: in a go-build directory (TMPDIR/go-build*, and the build cache's default
// name) or under $GOCACHE.
func (l launcher) temporary(exe string) bool {
	if cache := l.getenv("GOCACHE"); cache != "" && filepath.IsAbs(cache) {
		if real, err := filepath.EvalSymlinks(cache); err == nil {
			cache = real
		}
		if rel, err := filepath.Rel(cache, exe); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// stableNames are the absolute paths that may name the running binary and outlive its
// upgrades, best first: the elicitty on PATH, then GOBIN, GOPATH/bin and ~/go/bin.
func (l launcher) stableNames(base string) []string {
	var names []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	if found, err := l.lookPath("elicitty"); err == nil {
		abs, _ := filepath.Abs(found)
		add(abs)
	}
	if gobin := l.getenv("GOBIN"); gobin != "" {
		add(filepath.Join(gobin, base))
	}
	if gopath := l.getenv("GOPATH"); gopath != "" {
		add(filepath.Join(filepath.SplitList(gopath)[0], "bin", base))
	}
	if home := l.getenv("HOME"); home != "" {
		add(filepath.Join(home, "go", "bin", base))
	}
	return names
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
		Written: written && changes(in), Backup: backup, Note: note,
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
	case config.InstallRepoint:
		return "repoint"
	case config.InstallRestore:
		return "restore"
	case config.InstallRemove:
		return "remove"
	case config.InstallNotWrapped:
		return "not-wrapped"
	}
	return "unknown"
}

// changes reports whether the planned edit changes the file.
func changes(in *config.Install) bool {
	return in.Action != config.InstallWrapped && in.Action != config.InstallNotWrapped
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
	case in.Action == config.InstallNotWrapped:
		fmt.Fprintf(w, "%s's entry %s in %s does not run through elicitty proxy; nothing to undo.\n", title, name, file)
		return nil
	case written && in.Action == config.InstallAdd:
		fmt.Fprintf(w, "Added %s to %s (%s):\n\n", name, file, title)
	case written && in.Action == config.InstallRepoint:
		fmt.Fprintf(w, "%s's entry %s in %s runs through elicitty proxy; it now starts this elicitty:\n\n", title, name, file)
	case written && in.Action == config.InstallRestore:
		fmt.Fprintf(w, "Put back %s in %s (%s) as it was before --install:\n\n", name, file, title)
	case written && in.Action == config.InstallRemove:
		fmt.Fprintf(w, "Removed %s, which --install added, from %s (%s):\n\n", name, file, title)
	case in.Action == config.InstallRepoint:
		fmt.Fprintf(w, "%s's entry %s in %s runs through elicitty proxy, with another elicitty; make it start this one:\n\n", title, name, file)
	case in.Action == config.InstallRestore:
		fmt.Fprintf(w, "Put back the entry %s in %s (%s) as it was before --install:\n\n", name, file, title)
	case in.Action == config.InstallRemove:
		fmt.Fprintf(w, "Remove the entry %s, which --install added, from %s (%s):\n\n", name, file, title)
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
	if in.File.Host == config.HostClaudeCode && (in.Action == config.InstallWrap || in.Action == config.InstallAdd) {
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

// keepTrust keeps a trusted project folder trusted after elicitty itself edited one of
// its files (written): the folder is trusted again with that file as it is now, when
// every other project file is as it was trusted. A folder that was not trusted stays
// so.
func keepTrust(opts config.LoadOptions, before config.Project, written string) error {
	if !before.Trusted || !slices.ContainsFunc(before.Files, func(f config.ProjectFile) bool { return f.Path == written }) {
		return nil
	}
	after, err := config.Load(opts)
	if err != nil || after.Project.Dir != before.Dir {
		return nil
	}
	was := map[string]string{}
	for _, f := range before.Files {
		was[f.Path] = f.Digest
	}
	for _, f := range after.Project.Files {
		if f.Path != written && was[f.Path] != f.Digest {
			return nil // something else changed too: the user is asked again
		}
	}
	if err := config.Trust(opts, after.Project); err != nil {
		return fmt.Errorf("keep %s trusted after the edit: %w", before.Dir, err)
	}
	return nil
}
