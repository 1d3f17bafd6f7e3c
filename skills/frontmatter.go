package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// frontmatterRE matches the leading --- delimited YAML block of a SKILL.md.
var frontmatterRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\A(?:\x{FEFF})?---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|\z)`)
})

// maxYAMLNodes bounds alias expansion (a "billion laughs" document).
const maxYAMLNodes = 100000

// parseFrontmatter returns the front matter of a SKILL.md as JSON-like values
// (map[string]any, []any, string, float64, bool, nil).
func parseFrontmatter(body []byte) (map[string]any, error) {
	m := frontmatterRE().FindSubmatch(body)
	if m == nil {
		return nil, errors.New("SKILL.md does not begin with a --- delimited YAML front matter block")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(m[1], &doc); err != nil {
		return nil, fmt.Errorf("front matter is not valid YAML: %w", err)
	}
	budget := maxYAMLNodes
	v, err := yamlValue(&doc, &budget, 0)
	if err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("front matter is not a YAML mapping")
	}
	return obj, nil
}

// yamlValue converts a YAML node to the value JSON would give it.
func yamlValue(n *yaml.Node, budget *int, depth int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("too many YAML nodes (alias expansion)")
	}
	if depth > 64 {
		return nil, errors.New("YAML nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("dangling YAML alias")
		}
		return yamlValue(n.Alias, budget, depth+1)
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, errors.New("a YAML mapping key is not a scalar")
			}
			v, err := yamlValue(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return b, nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return n.Value, nil // no JSON form: compares unequal to any JSON value
			}
			return f, nil
		default: // !!str, !!timestamp, !!binary: the text as written
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("unsupported YAML node kind %d", n.Kind)
}

// compareFrontmatter compares a SKILL.md's front matter with the entry's, field by
// field (an absent field equals null). It returns "" when identical, else the fields
// that differ.
func compareFrontmatter(file, entry map[string]any) string {
	keys := map[string]bool{}
	for k := range file {
		keys[k] = true
	}
	for k := range entry {
		keys[k] = true
	}
	var diff []string
	for k := range keys {
		if !reflect.DeepEqual(normalize(file[k]), normalize(entry[k])) {
			diff = append(diff, fmt.Sprintf("%s: file has %s, entry has %s", k, brief(file[k]), brief(entry[k])))
		}
	}
	if len(diff) == 0 {
		return ""
	}
	sort.Strings(diff)
	return "front matter differs from the listed entry: " + strings.Join(diff, "; ")
}

// normalize gives JSON numbers one Go type, so 1 (YAML) equals 1.0 (JSON).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case json.Number:
		f, _ := x.Float64()
		return f
	case int:
		return float64(x)
	}
	return v
}

// brief renders a value for an error message, cut to a readable length.
func brief(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	if r := []rune(string(b)); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return string(b)
}
