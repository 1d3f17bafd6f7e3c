package desc

import (
	"strings"

	"github.com/elicitty/elicitty/protocol"
)

// semantic runs the checks that need a structurally valid document: references, scopes,
// name uniqueness, per-version vocabulary and modes, consistency and the legacy warning.
func (l *linter) semantic() {
	root := l.doc.Root
	pv, _ := root.Get("protocolVersions")
	rootScope := versionsOf(pv)
	var legacy []string
	for _, v := range sortedScope(rootScope) {
		if isLegacy(v) {
			legacy = append(legacy, v)
		}
	}
	if len(legacy) > 0 {
		l.add(CodeLegacyIncomplete, SevWarning, pv.Loc, Path{Key("protocolVersions")},
			"lists MCP %s, legacy protocol versions: structural and selected checks were applied, complete MCP semantic conformance was not evaluated", strings.Join(legacy, ", "))
	}
	for _, p := range primitives {
		coll, ok := root.Get(p.coll)
		if !ok {
			continue
		}
		for i, it := range coll.Items {
			path := Path{Key(p.coll), Index(i)}
			scope := rootScope
			if own, ok := it.Get("protocolVersions"); ok {
				scope = versionsOf(own)
				l.subset(scope, rootScope, own, path.with(Key("protocolVersions")))
			}
			decls, ok := it.Get("elicitations")
			if !ok {
				continue
			}
			names := map[string]bool{}
			for j, d := range decls.Items {
				l.declSemantic(d, path.with(Key("elicitations"), Index(j)), scope, names)
			}
		}
	}
}

func (l *linter) subset(scope, parent []string, n *Node, path Path) {
	in := map[string]bool{}
	for _, v := range parent {
		in[v] = true
	}
	for _, v := range scope {
		if !in[v] {
			l.add(CodeScopeOutsideParent, SevError, n.Loc, path, "includes protocol version %s outside its parent scope", v)
		}
	}
}

func (l *linter) declSemantic(d *Node, path Path, parentScope []string, names map[string]bool) {
	name, _ := d.Get("name")
	if names[name.Str] {
		l.add(CodeDuplicateName, SevError, name.Loc, path.with(Key("name")), "repeats the name %q in its primitive", name.Str)
	}
	names[name.Str] = true

	scope := parentScope
	if own, ok := d.Get("protocolVersions"); ok {
		scope = versionsOf(own)
		l.subset(scope, parentScope, own, path.with(Key("protocolVersions")))
	}
	mode, _ := d.Get("mode")
	for _, v := range sortedScope(scope) {
		if v == protocol.Version20250618 && mode.Str != "form" {
			l.add(CodeModeNotSupported, SevError, mode.Loc, path.with(Key("mode")), "%q is not defined for MCP %s, which supports form mode only", mode.Str, v)
		}
	}
	if mode.Str != "form" {
		return
	}
	rs, _ := d.Get("requestedSchema")
	sp := path.with(Key("requestedSchema"))
	schema := rs
	if rs.Has("$componentRef") {
		var ok bool
		if schema, ok = l.resolve(rs, sp); !ok {
			return
		}
	}
	for _, v := range sortedScope(scope) {
		if !isLegacy(v) {
			l.versionVocabulary(schema, sp, v)
		}
	}
	// The consistency MUSTs of §12.3 carry no version qualifier, so they run for every
	// scope, legacy-only ones included (the 0.8.0 reference skips them there).
	l.consistency(schema, sp)
}

// resolve follows a Reference Object (and chains of them) to a components.schemas
// entry and shape-checks the target. Problems are reported where the failing
// $componentRef is written; ok is false when the schema cannot be checked further.
func (l *linter) resolve(ref *Node, usePath Path) (*Node, bool) {
	comps, _ := l.doc.Root.Get("components")
	seen := map[*Node]bool{}
	cur, curPath := ref, usePath
	for {
		v, _ := cur.Get("$componentRef")
		refPath := curPath.with(Key("$componentRef"))
		m := refPattern().FindStringSubmatch(v.Str)
		ns, name := m[1], m[2]
		if ns != "schemas" {
			l.add(CodeWrongRefNamespace, SevError, v.Loc, refPath, "%q targets components.%s, but a requestedSchema may only reference components.schemas", v.Str, ns)
			return nil, false
		}
		schemas, _ := comps.Get("schemas")
		target, ok := schemas.Get(name)
		if !ok {
			l.add(CodeMissingRef, SevError, v.Loc, refPath, "%q has no target in components.schemas", v.Str)
			return nil, false
		}
		if seen[target] || target == ref {
			l.add(CodeRefCycle, SevError, locOf(ref, "$componentRef"), usePath.with(Key("$componentRef")), "starts a reference cycle through components.schemas.%s", name)
			return nil, false
		}
		seen[target] = true
		cur, curPath = target, Path{Key("components"), Key("schemas"), Key(name)}
		if !target.Has("$componentRef") {
			break
		}
		// A chained component must itself be a well-formed Reference Object.
		before := len(l.diags)
		l.reference(target, curPath)
		if len(l.diags) > before {
			return nil, false
		}
	}
	if l.checked == nil {
		l.checked = map[*Node]bool{}
	}
	good, done := l.checked[cur]
	if !done {
		good = l.formSchema(cur, curPath, func(loc Location, p Path, format string, args ...any) {
			l.add(CodeSchema, SevError, loc, p, format, args...)
		})
		l.checked[cur] = good
	}
	return cur, good
}

// sortedScope returns the versions in protocol order.
func sortedScope(scope []string) []string {
	out := make([]string, 0, len(scope))
	for _, p := range protocolVersions {
		for _, v := range scope {
			if v == p {
				out = append(out, v)
				break
			}
		}
	}
	return out
}
