package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Config is the server catalog: every server known from the config files, after layering.
// The zero value is an empty catalog. A Config is a plain value, safe to share read-only.
type Config struct {
	// Servers holds one entry per name, sorted by name.
	Servers []Server
	// Sources lists the files that were read, in layering order (later wins).
	Sources []string
	// Problems lists imported entries and files that could not be used; they do not fail
	// Load. A server named here is not in Servers, and ParseTarget reports its problem.
	Problems []Problem
	// Builtin holds the built-in servers (the demo) that no config file names: they are
	// targets (Lookup finds them) but not configured servers, so they are not in Servers.
	Builtin []Server
	// Sampling is the sampling: section of elicitty's own file (zero when absent).
	Sampling Sampling
	// Project is the working directory's project-scope server files and whether the
	// user trusts them; the zero value (not Trusted, no Files) when it has none or with
	// NoImports.
	Project Project
	// Untrusted holds the servers of project files the user has not trusted (or that
	// changed since), sorted by name, with every ${VAR} left as written. They are not
	// in Servers: Lookup does not find them and ParseTarget refuses them with an
	// *UntrustedError, so nothing starts them. A later layer's server of the same name
	// (elicitty's own file) replaces one.
	Untrusted []Server
}

// LoadOptions says where Load looks. Empty fields are filled in from the process
// environment (HOME, XDG_CONFIG_HOME, the working directory); tests set them all.
type LoadOptions struct {
	// Path is the --config file; when set it must exist. When empty, ELICITTY_CONFIG is used
	// if set, else $ConfigDir/elicitty/config.yaml, config.yml or config.json if one exists.
	Path string
	// Getenv reads environment variables for ${VAR} expansion; nil means os.Getenv.
	Getenv func(string) string
	// HomeDir is the user's home directory.
	HomeDir string
	// ConfigDir is XDG_CONFIG_HOME, or ~/.config when that is unset.
	ConfigDir string
	// WorkDir is the project directory searched for .mcp.json, .cursor/mcp.json,
	// .vscode/mcp.json and .gemini/settings.json, and Claude Code's project key.
	WorkDir string
	// NoImports skips other clients' config files.
	NoImports bool
	// Builtin is the lowest layer: servers every catalog knows (the built-in demo). A
	// server of the same name in any config file replaces one.
	Builtin []Server
}

// Layer says which layer of the catalog a server comes from. The zero value is
// LayerBuiltin.
type Layer int

// The layers, in layering order (a later one replaces a server of the same name).
const (
	// LayerBuiltin is a server elicitty defines itself.
	LayerBuiltin Layer = iota
	// LayerImported is a server from another MCP client's config file.
	LayerImported
	// LayerOwn is a server from elicitty's own file (--config or the default path).
	LayerOwn
	// LayerEnv is a server from the file named by $ELICITTY_CONFIG.
	LayerEnv
)

// String names the layer: "built-in", "imported", "own" or "env".
func (l Layer) String() string {
	switch l {
	case LayerBuiltin:
		return "built-in"
	case LayerImported:
		return "imported"
	case LayerOwn:
		return "own"
	case LayerEnv:
		return "env"
	}
	return "unknown"
}

func (r fileResult) setLayer(l Layer) {
	for i := range r.servers {
		r.servers[i].Layer = l
	}
}

func (o LoadOptions) withDefaults() LoadOptions {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.HomeDir == "" {
		o.HomeDir = o.Getenv("HOME")
		if o.HomeDir == "" {
			o.HomeDir, _ = os.UserHomeDir()
		}
	}
	if o.ConfigDir == "" {
		o.ConfigDir = o.Getenv("XDG_CONFIG_HOME")
		if o.ConfigDir == "" && o.HomeDir != "" {
			o.ConfigDir = filepath.Join(o.HomeDir, ".config")
		}
	}
	if o.WorkDir == "" {
		o.WorkDir, _ = os.Getwd()
	}
	return o
}

// Load builds the catalog from, in order (a later definition of a name replaces an earlier
// one): other clients' user-wide files, then their project files (all skipped with
// NoImports; the list is in the package doc), then elicitty's own file. Strings are
// expanded as described in the package doc.
//
// The servers of project files (Config.Project) start only once the user trusts the
// folder: until then they are in Config.Untrusted, not in Servers, with every ${VAR}
// left as written, and ParseTarget refuses them with an *UntrustedError.
//
// Every file is read within bounds (regular files only, MaxFileSize, nesting checked
// before parsing). Any problem in elicitty's own file fails Load with every *Error
// found, joined. Problems in imported files only mark the affected entries
// (Config.Problems), since they belong to other programs which may read them
// differently.
func Load(opts LoadOptions) (Config, error) {
	o := opts.withDefaults()
	var (
		c         Config
		byName    = map[string]Server{}
		untrusted = map[string]Server{}
		problems  []Problem
	)
	merge := func(res fileResult, pending bool) {
		for _, s := range res.servers {
			delete(byName, s.Name)
			delete(untrusted, s.Name)
			if pending {
				untrusted[s.Name] = s
			} else {
				byName[s.Name] = s
			}
			problems = dropProblem(problems, s.Name)
		}
		for _, p := range res.problems {
			delete(byName, p.Server)
			delete(untrusted, p.Server)
			problems = append(dropProblem(problems, p.Server), p)
		}
	}
	if !o.NoImports {
		type read struct {
			hf   HostFile
			data []byte
		}
		var files []read
		failed := map[string]bool{} // files already reported as unreadable
		project := Project{Dir: projectDir(o.WorkDir)}
		for _, hf := range o.hostFiles() {
			if failed[hf.Path] {
				continue
			}
			data, err := readConfigFile(hf.Path, hf.max())
			if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
				continue
			}
			if !slices.Contains(c.Sources, hf.Path) {
				c.Sources = append(c.Sources, hf.Path)
			}
			if err != nil {
				failed[hf.Path] = true
				problems = append(problems, Problem{Source: hf.Path, Err: err})
				continue
			}
			if hf.Scope == ScopeProject {
				name, err := filepath.Rel(o.WorkDir, hf.Path)
				if err != nil {
					name = hf.Path
				}
				project.Files = append(project.Files, ProjectFile{Path: hf.Path, Name: filepath.ToSlash(name), Digest: digest(data)})
			}
			files = append(files, read{hf, data})
		}
		store, err := readTrust(o.TrustFile())
		if err != nil {
			problems = append(problems, Problem{Source: o.TrustFile(), Err: err})
		}
		project.Trusted = store.trusts(project)
		if len(project.Files) > 0 {
			c.Project = project
		}
		for _, f := range files {
			isProject := f.hf.Scope == ScopeProject
			pending := isProject && !project.Trusted
			x := &expander{getenv: o.Getenv, home: o.HomeDir, work: o.WorkDir, literal: pending}
			res, err := decodeFile(f.hf.Path, f.data, f.hf.f, x)
			roots := []string{o.HomeDir, o.ConfigDir}
			if isProject {
				roots = []string{o.WorkDir}
			}
			if (err != nil || len(res.problems) > 0) && !shown(f.hf.Path, roots...) {
				res = opaque(f.hf.Path, res, &err)
			}
			if err != nil {
				failed[f.hf.Path] = true
				problems = append(problems, Problem{Source: f.hf.Path, Err: err})
				continue
			}
			res.setLayer(LayerImported)
			if isProject {
				for i := range res.servers {
					res.servers[i].Project = project.Dir
				}
			}
			merge(res, pending)
		}
	}
	own, err := o.ownFile()
	if err != nil {
		return Config{}, err
	}
	if own != "" {
		data, err := readConfigFile(own, MaxFileSize)
		if err != nil {
			return Config{}, fmt.Errorf("read config: %w", err)
		}
		c.Sources = append(c.Sources, own)
		x := &expander{getenv: o.Getenv, home: o.HomeDir, work: o.WorkDir}
		res, err := decodeFile(own, data, formatOwn, x)
		if err != nil {
			if !shown(own, o.HomeDir, o.ConfigDir) {
				return Config{}, errNotShown(own)
			}
			return Config{}, err
		}
		if o.Path == "" && o.Getenv("ELICITTY_CONFIG") != "" {
			res.setLayer(LayerEnv)
		} else {
			res.setLayer(LayerOwn)
		}
		merge(res, false)
		if res.sampling != nil {
			c.Sampling = *res.sampling
		}
	}
	for _, s := range byName {
		c.Servers = append(c.Servers, s)
	}
	sort.Slice(c.Servers, func(i, j int) bool { return c.Servers[i].Name < c.Servers[j].Name })
	for _, s := range untrusted {
		c.Untrusted = append(c.Untrusted, s)
	}
	sort.Slice(c.Untrusted, func(i, j int) bool { return c.Untrusted[i].Name < c.Untrusted[j].Name })
	c.Problems = problems
	for _, b := range o.Builtin {
		_, shadowed := untrusted[b.Name]
		if _, ok := byName[b.Name]; !ok && !shadowed && !hasProblem(problems, b.Name) {
			c.Builtin = append(c.Builtin, b)
		}
	}
	return c, nil
}

// opaque replaces the errors of a file whose content must not be quoted (see shown)
// with one that quotes nothing: *err for the whole file, and each entry's problem.
func opaque(path string, res fileResult, err *error) fileResult {
	if *err != nil {
		*err = errNotShown(path)
		return fileResult{}
	}
	for i := range res.problems {
		res.problems[i].Err = errNotShown(path)
	}
	return res
}

func dropProblem(ps []Problem, name string) []Problem {
	out := ps[:0]
	for _, p := range ps {
		if p.Server == "" || p.Server != name {
			out = append(out, p)
		}
	}
	return out
}

// hasProblem reports whether ps names the server name.
func hasProblem(ps []Problem, name string) bool {
	for _, p := range ps {
		if p.Server == name {
			return true
		}
	}
	return false
}

// ownFile returns the path of elicitty's own file, or "" when there is none.
func (o LoadOptions) ownFile() (string, error) {
	path := o.Path
	if path == "" {
		path = o.Getenv("ELICITTY_CONFIG")
	}
	if path != "" {
		st, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("config file: %w", err)
		}
		if st.IsDir() {
			return "", fmt.Errorf("config file %s is a directory", path)
		}
		return path, nil
	}
	if o.ConfigDir == "" {
		return "", nil
	}
	var found []string
	for _, name := range []string{"config.yaml", "config.yml", "config.json"} {
		p := filepath.Join(o.ConfigDir, "elicitty", name)
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("several config files, keep one: %s", strings.Join(found, ", "))
}

// Lookup returns the configured or built-in server with the given name.
func (c Config) Lookup(name string) (Server, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range c.Builtin {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// Names returns the server names in catalog order, then the built-in ones.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers)+len(c.Builtin))
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	for _, s := range c.Builtin {
		names = append(names, s.Name)
	}
	return names
}
