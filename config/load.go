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

// importFile is a config file of another MCP client.
type importFile struct {
	path string
	f    format
}

// imports lists other clients' config files in layering order (see hostFiles).
func (o LoadOptions) imports() []importFile {
	hfs := o.hostFiles()
	files := make([]importFile, len(hfs))
	for i, hf := range hfs {
		files[i] = importFile{hf.Path, hf.f}
	}
	return files
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
// Any problem in elicitty's own file fails Load with every *Error found, joined. Problems in
// imported files only mark the affected entries (Config.Problems), since they belong to
// other programs which may read them differently.
func Load(opts LoadOptions) (Config, error) {
	o := opts.withDefaults()
	var (
		c        Config
		byName   = map[string]Server{}
		problems []Problem
	)
	merge := func(res fileResult) {
		for _, s := range res.servers {
			byName[s.Name] = s
			problems = dropProblem(problems, s.Name)
		}
		for _, p := range res.problems {
			delete(byName, p.Server)
			problems = append(dropProblem(problems, p.Server), p)
		}
	}
	if !o.NoImports {
		failed := map[string]bool{} // files already reported as unreadable or malformed
		for _, imp := range o.imports() {
			if failed[imp.path] {
				continue
			}
			data, err := os.ReadFile(imp.path)
			if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
				continue
			}
			if !slices.Contains(c.Sources, imp.path) {
				c.Sources = append(c.Sources, imp.path)
			}
			if err != nil {
				failed[imp.path] = true
				problems = append(problems, Problem{Source: imp.path, Err: fmt.Errorf("read %s: %w", imp.path, err)})
				continue
			}
			x := &expander{getenv: o.Getenv, home: o.HomeDir, work: o.WorkDir}
			res, err := decodeFile(imp.path, data, imp.f, x)
			if err != nil {
				failed[imp.path] = true
				problems = append(problems, Problem{Source: imp.path, Err: err})
				continue
			}
			res.setLayer(LayerImported)
			merge(res)
		}
	}
	own, err := o.ownFile()
	if err != nil {
		return Config{}, err
	}
	if own != "" {
		data, err := os.ReadFile(own)
		if err != nil {
			return Config{}, fmt.Errorf("read config: %w", err)
		}
		c.Sources = append(c.Sources, own)
		x := &expander{getenv: o.Getenv, home: o.HomeDir, work: o.WorkDir}
		res, err := decodeFile(own, data, formatOwn, x)
		if err != nil {
			return Config{}, err
		}
		if o.Path == "" && o.Getenv("ELICITTY_CONFIG") != "" {
			res.setLayer(LayerEnv)
		} else {
			res.setLayer(LayerOwn)
		}
		merge(res)
		if res.sampling != nil {
			c.Sampling = *res.sampling
		}
	}
	for _, s := range byName {
		c.Servers = append(c.Servers, s)
	}
	sort.Slice(c.Servers, func(i, j int) bool { return c.Servers[i].Name < c.Servers[j].Name })
	c.Problems = problems
	for _, b := range o.Builtin {
		if _, ok := byName[b.Name]; !ok && !hasProblem(problems, b.Name) {
			c.Builtin = append(c.Builtin, b)
		}
	}
	return c, nil
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
