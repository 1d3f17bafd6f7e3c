package testkit

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ModuleRoot is the nearest folder at or above the working directory that holds a
// go.mod: the root of the module whose tests run.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// ModulePath is the module path that root's go.mod declares, read from the file.
func ModulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("read the module path: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read the module path: %w", err)
	}
	return "", fmt.Errorf("%s has no module line", filepath.Join(root, "go.mod"))
}

// ModulePackages returns the packages of the module rooted at root (the folder of its
// go.mod) that the packages in dirs import, directly or not, those included, sorted by
// import path. A dir is relative to root; "x/..." means x and every package below it
// that is not in a nested module or a testdata folder, as for the go command. Each
// package's ImportPath is set, its GoFiles are those built for this platform, and its
// Imports name other modules' and the standard library's packages without following
// them. It reads go.mod and the sources with go/build alone, so it runs no go command
// and the quick tier may use it.
func ModulePackages(root string, dirs ...string) ([]*build.Package, error) {
	mod, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	var queue []string
	for _, d := range dirs {
		base, all := strings.CutSuffix(filepath.ToSlash(d), "/...")
		if !all {
			queue = append(queue, path.Clean(base))
			continue
		}
		found, err := packageDirs(root, base)
		if err != nil {
			return nil, err
		}
		queue = append(queue, found...)
	}
	seen := map[string]*build.Package{}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		if _, ok := seen[rel]; ok {
			continue
		}
		p, err := build.Default.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			return nil, fmt.Errorf("read package %s: %w", rel, err)
		}
		p.ImportPath = mod
		if rel != "." {
			p.ImportPath = mod + "/" + rel
		}
		seen[rel] = p
		for _, imp := range p.Imports {
			if imp == mod {
				queue = append(queue, ".")
			} else if sub, ok := strings.CutPrefix(imp, mod+"/"); ok {
				queue = append(queue, sub)
			}
		}
	}
	out := make([]*build.Package, 0, len(seen))
	for _, p := range seen {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ImportPath < out[j].ImportPath })
	return out, nil
}

// packageDirs lists base and the folders below it that hold a package of root's
// module, relative to root.
func packageDirs(root, base string) ([]string, error) {
	var out []string
	top := filepath.Join(root, filepath.FromSlash(base))
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != top {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if _, err := build.Default.ImportDir(p, 0); err != nil {
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			return fmt.Errorf("read package %s: %w", p, err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list packages under %s: %w", base, err)
	}
	return out, nil
}
