package desc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/elicitty/elicitty/elicit"
)

// ErrNotFound is returned by Find when the primitive or declaration does not exist.
var ErrNotFound = errors.New("desc: not found")

// Declaration is one Elicitation Declaration, ready to preview. Its zero value is not
// useful; get one from Find.
type Declaration struct {
	// Primitive is the primitive as given to Find, e.g. "tools/assign_issue".
	Primitive string
	Name      string
	Mode      elicit.Mode
	Message   string
	// When, OnDecline and OnCancel are documentation prose, empty when absent.
	When, OnDecline, OnCancel string
	// URL is the static URL of a URL-mode declaration; empty means chosen at runtime.
	URL string
	// RequestedSchema is the form schema with $componentRef resolved, in source
	// property order; nil for URL mode.
	RequestedSchema json.RawMessage
	// ProtocolVersions is the declaration's effective scope.
	ProtocolVersions []string
}

// Find returns the declaration named declaration of primitive, written as
// "<collection>/<identifier>": "tools/NAME", "prompts/NAME", "resources/URI" or
// "resourceTemplates/URITEMPLATE". It does not lint; a referenced schema that cannot be
// resolved is an error.
func Find(doc *Document, primitive, declaration string) (*Declaration, error) {
	if doc == nil || doc.Root == nil {
		return nil, fmt.Errorf("desc: no document")
	}
	coll, id, ok := strings.Cut(primitive, "/")
	if !ok {
		return nil, fmt.Errorf("desc: primitive %q must be written <collection>/<identifier>, e.g. tools/NAME", primitive)
	}
	var prim *primitiveKind
	for i := range primitives {
		if primitives[i].coll == coll || primitives[i].coll == coll+"s" {
			prim = &primitives[i]
		}
	}
	if prim == nil {
		return nil, fmt.Errorf("desc: unknown collection %q (tools, resources, resourceTemplates, prompts)", coll)
	}
	root := doc.Root
	items, _ := root.Get(prim.coll)
	rootScope := stringsOf(root, "protocolVersions", nil)
	foundPrim := false
	for _, it := range itemsOf(items) {
		if v, _ := it.Get(prim.idKey); v == nil || v.Str != id || v.Kind != KindString {
			continue
		}
		foundPrim = true
		scope := stringsOf(it, "protocolVersions", rootScope)
		decls, _ := it.Get("elicitations")
		for _, d := range itemsOf(decls) {
			if n, _ := d.Get("name"); n == nil || n.Str != declaration {
				continue
			}
			return declOf(doc, d, primitive, scope)
		}
	}
	if !foundPrim {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, primitive)
	}
	return nil, fmt.Errorf("%w: declaration %q in %s", ErrNotFound, declaration, primitive)
}

func declOf(doc *Document, d *Node, primitive string, scope []string) (*Declaration, error) {
	text := func(k string) string {
		v, _ := d.Get(k)
		s, _ := v.AsString()
		return s
	}
	out := &Declaration{
		Primitive: primitive, Name: text("name"), Mode: elicit.Mode(text("mode")),
		Message: text("message"), When: text("when"), OnDecline: text("onDecline"),
		OnCancel: text("onCancel"), URL: text("url"),
		ProtocolVersions: sortedScope(stringsOf(d, "protocolVersions", scope)),
	}
	if out.Mode == "" {
		out.Mode = elicit.ModeForm
	}
	if rs, ok := d.Get("requestedSchema"); ok {
		target, err := follow(doc.Root, rs)
		if err != nil {
			return nil, err
		}
		raw, _ := target.MarshalJSON()
		out.RequestedSchema = raw
	}
	return out, nil
}

// follow resolves a chain of Reference Objects without reporting.
func follow(root *Node, n *Node) (*Node, error) {
	comps, _ := root.Get("components")
	schemas, _ := comps.Get("schemas")
	for hops := 0; n.Kind == KindObject && n.Has("$componentRef"); hops++ {
		v, _ := n.Get("$componentRef")
		m := refPattern().FindStringSubmatch(v.Str)
		if m == nil || m[1] != "schemas" || hops > len(schemas.Keys) {
			return nil, fmt.Errorf("desc: cannot resolve $componentRef %q", v.Str)
		}
		t, ok := schemas.Get(m[2])
		if !ok {
			return nil, fmt.Errorf("desc: cannot resolve $componentRef %q", v.Str)
		}
		n = t
	}
	return n, nil
}

func itemsOf(n *Node) []*Node {
	if n == nil || n.Kind != KindArray {
		return nil
	}
	return n.Items
}

func stringsOf(n *Node, key string, def []string) []string {
	v, ok := n.Get(key)
	if !ok || v.Kind != KindArray {
		return def
	}
	out := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		if s, ok := it.AsString(); ok {
			out = append(out, s)
		}
	}
	return out
}
