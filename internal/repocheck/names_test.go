package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// contributorDocs are the documents a contributor reads first; each names every package.
var contributorDocs = []string{"docs/architecture.md", "CONTRIBUTING.md"}

// packageDirs returns every folder of the module that holds Go files, relative to the
// root, testdata folders excluded.
func packageDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "bin":
				return filepath.SkipDir
			}
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if path != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (tools/)
				}
			}
			return nil
		}
		if dir := filepath.Dir(path); strings.HasSuffix(path, ".go") && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, filepath.ToSlash(dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestDocsNameEveryPackage fails when a package of the module is missing from the layer
// table of docs/architecture.md or the layout of CONTRIBUTING.md, or when either names,
// in backquotes, a folder or Go file that does not exist (the walk through the code
// included).
func TestDocsNameEveryPackage(t *testing.T) {
	dirs := packageDirs(t)
	if len(dirs) < 20 {
		t.Fatalf("found %d packages; the walk is broken", len(dirs))
	}
	named := regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*(?:\\.go|/))`")
	for _, doc := range contributorDocs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, dir := range dirs {
			if dir == "." {
				if !strings.Contains(text, "`main.go`") {
					t.Errorf("%s does not name main.go, the root package", doc)
				}
				continue
			}
			if !strings.Contains(text, "`"+dir+"/`") {
				t.Errorf("%s does not name the package %s/ (write it as `%s/`)", doc, dir, dir)
			}
		}
		names := named.FindAllStringSubmatch(text, -1)
		if len(names) < 20 {
			t.Errorf("found %d file and folder names in %s; the pattern is out of date", len(names), doc)
		}
		for _, m := range names {
			if _, err := os.Stat(strings.TrimSuffix(m[1], "/")); err != nil {
				t.Errorf("%s names %s, which does not exist", doc, m[1])
			}
		}
	}
}

// fileExt are the extensions of file names a doc writes in backquotes (`app.go`).
var fileExt = map[string]bool{"go": true, "md": true, "yaml": true, "yml": true, "json": true, "sh": true, "golden": true}

// declared holds the names the module's Go code declares.
type declared struct {
	pkgs    map[string]map[string]bool // package name → its top-level names
	members map[string]map[string]bool // type name → its methods and fields
}

func declarations(t *testing.T, dirs []string) declared {
	t.Helper()
	d := declared{pkgs: map[string]map[string]bool{}, members: map[string]map[string]bool{}}
	add := func(m map[string]map[string]bool, k, v string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		m[k][v] = true
	}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			pkg := f.Name.Name
			if pkg == "main" {
				pkg = filepath.Base(dir)
			}
			for _, decl := range f.Decls {
				switch decl := decl.(type) {
				case *ast.FuncDecl:
					if decl.Recv == nil {
						add(d.pkgs, pkg, decl.Name.Name)
						continue
					}
					typ := decl.Recv.List[0].Type
					for {
						switch x := typ.(type) {
						case *ast.StarExpr:
							typ = x.X
							continue
						case *ast.IndexExpr:
							typ = x.X
							continue
						case *ast.IndexListExpr:
							typ = x.X
							continue
						}
						break
					}
					if id, ok := typ.(*ast.Ident); ok {
						add(d.members, id.Name, decl.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range decl.Specs {
						switch spec := spec.(type) {
						case *ast.TypeSpec:
							add(d.pkgs, pkg, spec.Name.Name)
							if st, ok := spec.Type.(*ast.StructType); ok {
								for _, field := range st.Fields.List {
									for _, n := range field.Names {
										add(d.members, spec.Name.Name, n.Name)
									}
								}
							}
							if it, ok := spec.Type.(*ast.InterfaceType); ok {
								for _, m := range it.Methods.List {
									for _, n := range m.Names {
										add(d.members, spec.Name.Name, n.Name)
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range spec.Names {
								add(d.pkgs, pkg, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return d
}

// TestDocsNameRealIdentifiers fails when a contributor doc names, in backquotes, a Go
// identifier that no longer exists: `pkg.Name` for a package of the module, or
// `Type.Member` for a type the module declares (a method or a field).
func TestDocsNameRealIdentifiers(t *testing.T) {
	d := declarations(t, packageDirs(t))
	ref := regexp.MustCompile("`(?:[a-z]+\\.)?([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)(?:\\([^`]*\\))?`")
	pkgRef := regexp.MustCompile("`([a-z]+)\\.([A-Za-z_][A-Za-z0-9_]*)(?:\\([^`]*\\))?`")
	checked := 0
	for _, doc := range contributorDocs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range pkgRef.FindAllStringSubmatch(text, -1) {
			names, ok := d.pkgs[m[1]]
			if !ok || fileExt[m[2]] {
				continue // not one of our packages, or a file name (`conformance.sh`)
			}
			checked++
			if !names[m[2]] {
				t.Errorf("%s names %s.%s, which package %s does not declare", doc, m[1], m[2], m[1])
			}
		}
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			members, ok := d.members[m[1]]
			if _, isPkg := d.pkgs[m[1]]; !ok || isPkg || fileExt[m[2]] {
				continue // not a type of ours, or a package or file name
			}
			checked++
			if !members[m[2]] {
				t.Errorf("%s names %s.%s, which type %s does not have", doc, m[1], m[2], m[1])
			}
		}
	}
	if checked < 30 {
		t.Errorf("checked only %d identifiers; the patterns are out of date", checked)
	}
}
