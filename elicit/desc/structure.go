package desc

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// primitiveKind describes one primitive collection and its identifying key.
type primitiveKind struct {
	coll, idKey string
}

var primitives = [...]primitiveKind{
	{"tools", "name"},
	{"resources", "uri"},
	{"resourceTemplates", "uriTemplate"},
	{"prompts", "name"},
}

var rootMembers = map[string]bool{
	"mcpdesc": true, "$schema": true, "info": true, "protocolVersions": true,
	"instructions": true, "transports": true, "securitySchemes": true, "security": true,
	"components": true, "capabilities": true, "tools": true, "resources": true,
	"resourceTemplates": true, "prompts": true, "tags": true,
}

var componentNamespaces = map[string]bool{
	"schemas": true, "toolExamples": true, "resourceExamples": true,
	"resourceTemplateExamples": true, "promptExamples": true,
}

var declMembers = map[string]bool{
	"name": true, "mode": true, "message": true, "when": true, "requestedSchema": true,
	"url": true, "onDecline": true, "onCancel": true, "protocolVersions": true,
}

func isExtension(key string) bool { return strings.HasPrefix(key, "x-") }

// structural runs the schema-validation checks over the whole document.
func (l *linter) structural() {
	root := l.doc.Root
	if root.Kind != KindObject {
		l.bad(root.Loc, Path{}, "the document root must be an object, not %s", root.Kind)
		return
	}
	for i, k := range root.Keys {
		if !rootMembers[k] && !isExtension(k) {
			l.bad(root.KeyLocs[i], Path{Key(k)}, "is not a member of the MCP Description root object")
		}
	}
	l.requireString(root, Path{}, "mcpdesc", false)
	if v, ok := root.Get("$schema"); ok && v.Kind != KindString {
		l.bad(v.Loc, Path{Key("$schema")}, "must be a string")
	}
	if info, ok := l.require(root, Path{}, "info"); ok {
		if l.object(info, Path{Key("info")}) {
			l.requireString(info, Path{Key("info")}, "name", true)
			l.requireString(info, Path{Key("info")}, "version", true)
		}
	}
	if pv, ok := l.require(root, Path{}, "protocolVersions"); ok {
		l.versionList(pv, Path{Key("protocolVersions")})
	}
	if v, ok := root.Get("instructions"); ok && v.Kind != KindString {
		l.bad(v.Loc, Path{Key("instructions")}, "must be a string")
	}
	for _, k := range []string{"transports", "capabilities", "tags"} {
		if v, ok := root.Get(k); ok {
			l.nonEmptyArray(v, Path{Key(k)})
		}
	}
	if v, ok := root.Get("security"); ok && v.Kind != KindArray {
		l.bad(v.Loc, Path{Key("security")}, "must be an array, not %s", v.Kind)
	}
	if v, ok := root.Get("securitySchemes"); ok && l.object(v, Path{Key("securitySchemes")}) && len(v.Keys) == 0 {
		l.bad(v.Loc, Path{Key("securitySchemes")}, "must not be empty when present")
	}
	if v, ok := root.Get("components"); ok {
		l.components(v)
	}
	for _, p := range primitives {
		v, ok := root.Get(p.coll)
		if !ok || !l.nonEmptyArray(v, Path{Key(p.coll)}) {
			continue
		}
		for i, it := range v.Items {
			l.primitive(p, it, Path{Key(p.coll), Index(i)})
		}
	}
}

func (l *linter) components(c *Node) {
	path := Path{Key("components")}
	if !l.object(c, path) {
		return
	}
	for i, ns := range c.Keys {
		nsPath := path.with(Key(ns))
		if !componentNamespaces[ns] && !isExtension(ns) {
			l.bad(c.KeyLocs[i], nsPath, "is not a component namespace")
			continue
		}
		v := c.Values[i]
		if isExtension(ns) || !l.object(v, nsPath) {
			continue
		}
		if len(v.Keys) == 0 {
			l.bad(v.Loc, nsPath, "must not be empty when present")
		}
		for j, name := range v.Keys {
			if !namePattern().MatchString(name) {
				l.bad(v.KeyLocs[j], nsPath.with(Key(name)), "is not a valid component name: it must match ^[A-Za-z0-9._-]+$")
			}
			if ns == "schemas" && v.Values[j].Kind != KindObject {
				l.bad(v.Values[j].Loc, nsPath.with(Key(name)), "must be an object, not %s", v.Values[j].Kind)
			}
		}
	}
}

func (l *linter) primitive(p primitiveKind, n *Node, path Path) {
	if !l.object(n, path) {
		return
	}
	l.requireString(n, path, p.idKey, true)
	if p.coll == "tools" {
		if in, ok := l.require(n, path, "inputSchema"); ok && l.object(in, path.with(Key("inputSchema"))) {
			if t, ok := in.Get("type"); !ok || t.Kind != KindString || t.Str != "object" {
				l.bad(locOf(in, "type"), path.with(Key("inputSchema"), Key("type")), "must be \"object\": a tool's inputSchema is object-rooted")
			}
		}
	}
	if v, ok := n.Get("protocolVersions"); ok {
		l.versionList(v, path.with(Key("protocolVersions")))
	}
	if v, ok := n.Get("elicitations"); ok {
		ep := path.with(Key("elicitations"))
		if l.nonEmptyArray(v, ep) {
			for i, d := range v.Items {
				l.declaration(d, ep.with(Index(i)))
			}
		}
	}
}

// declaration checks the members of one Elicitation Declaration (rules 2–9).
func (l *linter) declaration(n *Node, path Path) {
	if !l.object(n, path) {
		return
	}
	for i, k := range n.Keys {
		if !declMembers[k] && !isExtension(k) {
			l.bad(n.KeyLocs[i], path.with(Key(k)), "is not a member of an Elicitation Declaration")
		}
	}
	if name, ok := l.requireString(n, path, "name", true); ok && !namePattern().MatchString(name) {
		l.bad(locOf(n, "name"), path.with(Key("name")), "%q does not match ^[A-Za-z0-9._-]+$", name)
	}
	mode, modeOK := l.requireString(n, path, "mode", false)
	if modeOK && mode != "form" && mode != "url" {
		l.bad(locOf(n, "mode"), path.with(Key("mode")), "must be \"form\" or \"url\", not %q", mode)
		modeOK = false
	}
	l.requireString(n, path, "message", true)
	for _, k := range []string{"when", "onDecline", "onCancel"} {
		if v, ok := n.Get(k); ok {
			l.nonEmptyString(v, path.with(Key(k)))
		}
	}
	if v, ok := n.Get("protocolVersions"); ok {
		l.versionList(v, path.with(Key("protocolVersions")))
	}
	rs, hasSchema := n.Get("requestedSchema")
	u, hasURL := n.Get("url")
	if modeOK && mode == "form" {
		if !hasSchema {
			l.bad(n.Loc, path.with(Key("requestedSchema")), "is required in form mode")
		}
		if hasURL {
			l.bad(n.KeyLoc("url"), path.with(Key("url")), "must not appear in form mode")
		}
	}
	if modeOK && mode == "url" && hasSchema {
		l.bad(n.KeyLoc("requestedSchema"), path.with(Key("requestedSchema")), "must not appear in url mode")
	}
	if hasURL && !(modeOK && mode == "form") {
		if s, ok := l.stringValue(u, path.with(Key("url"))); ok && !validURI(s) {
			l.bad(u.Loc, path.with(Key("url")), "%q is not an absolute URI with a scheme", s)
		}
	}
	if hasSchema && !(modeOK && mode == "url") {
		sp := path.with(Key("requestedSchema"))
		if l.object(rs, sp) {
			if rs.Has("$componentRef") {
				l.reference(rs, sp)
			} else {
				l.formSchema(rs, sp, l.bad)
			}
		}
	}
}

var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#/components/([^/]+)/([^/]+)$`) })

// reference checks the shape of a Reference Object; its target is resolved later.
func (l *linter) reference(n *Node, path Path) {
	for i, k := range n.Keys {
		if k != "$componentRef" {
			l.bad(n.KeyLocs[i], path.with(Key(k)), "is not allowed beside $componentRef in a Reference Object")
		}
	}
	v, _ := n.Get("$componentRef")
	if s, ok := l.stringValue(v, path.with(Key("$componentRef"))); ok && !refPattern().MatchString(s) {
		l.bad(v.Loc, path.with(Key("$componentRef")), "%q is not a local reference of the form #/components/<namespace>/<name>", s)
	}
}

// validURI reports whether s is an absolute URI (RFC 3986) with a scheme. Syntax only.
func validURI(s string) bool {
	if !uriScheme().MatchString(s) || strings.Count(s, "#") > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	_, err := url.Parse(s)
	return err == nil
}

var uriScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// --- small structural helpers ---

func (l *linter) object(n *Node, path Path) bool {
	if n.Kind != KindObject {
		l.bad(n.Loc, path, "must be an object, not %s", n.Kind)
		return false
	}
	return true
}

func (l *linter) require(n *Node, path Path, key string) (*Node, bool) {
	v, ok := n.Get(key)
	if !ok {
		l.bad(n.Loc, path.with(Key(key)), "is required")
	}
	return v, ok
}

func (l *linter) stringValue(v *Node, path Path) (string, bool) {
	if v.Kind != KindString {
		l.bad(v.Loc, path, "must be a string, not %s", v.Kind)
		return "", false
	}
	return v.Str, true
}

func (l *linter) nonEmptyString(v *Node, path Path) (string, bool) {
	s, ok := l.stringValue(v, path)
	if ok && s == "" {
		l.bad(v.Loc, path, "must not be empty")
		return "", false
	}
	return s, ok
}

func (l *linter) requireString(n *Node, path Path, key string, nonEmpty bool) (string, bool) {
	v, ok := l.require(n, path, key)
	if !ok {
		return "", false
	}
	if nonEmpty {
		return l.nonEmptyString(v, path.with(Key(key)))
	}
	return l.stringValue(v, path.with(Key(key)))
}

func (l *linter) nonEmptyArray(v *Node, path Path) bool {
	if v.Kind != KindArray {
		l.bad(v.Loc, path, "must be an array, not %s", v.Kind)
		return false
	}
	if len(v.Items) == 0 {
		l.bad(v.Loc, path, "must contain at least one entry when present")
		return false
	}
	return true
}

// versionList checks a protocolVersions list: non-empty, unique, known versions.
func (l *linter) versionList(v *Node, path Path) {
	if !l.nonEmptyArray(v, path) {
		return
	}
	seen := map[string]bool{}
	for i, it := range v.Items {
		s, ok := l.stringValue(it, path.with(Index(i)))
		if !ok {
			continue
		}
		if versionIndex(s) < 0 {
			l.bad(it.Loc, path.with(Index(i)), "%q is not an MCP protocol version (%s)", s, strings.Join(protocolVersions[:], ", "))
		} else if seen[s] {
			l.bad(it.Loc, path.with(Index(i)), "repeats protocol version %q", s)
		}
		seen[s] = true
	}
}

// versionsOf returns the strings of a structurally valid protocolVersions list.
func versionsOf(v *Node) []string {
	out := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}
