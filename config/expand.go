package config

import (
	"fmt"
	"strings"
)

// expander replaces variable references in config strings:
//
//	$$                 a literal $
//	${VAR}, ${env:VAR} the environment variable VAR; unset or empty is an error
//	${VAR:-default}    VAR, or default when VAR is unset or empty
//	${input:ID}        a VS Code input, read from ELICITTY_INPUT_<ID> (VS Code files only)
//	${workspaceFolder} the working directory; ${userHome} the home directory
//
// A $ followed by anything else is kept as it is.
type expander struct {
	getenv  func(string) string
	home    string
	work    string
	inputs  map[string]input // nil: ${input:...} is not available in this file
	inputOK bool
	// literal keeps every reference as written: a project file the user has not
	// trusted must not read the environment.
	literal bool
}

// input is a VS Code `inputs` entry.
type input struct {
	id          string
	description string
}

// InputEnv returns the environment variable that supplies the VS Code input id:
// ELICITTY_INPUT_ followed by the id in upper case with every other character than a letter
// or digit replaced by an underscore ("api-key" -> ELICITTY_INPUT_API_KEY).
func InputEnv(id string) string {
	var b strings.Builder
	b.WriteString("ELICITTY_INPUT_")
	for _, r := range strings.ToUpper(id) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// expand returns s with its references replaced. Errors name the variable, never a value.
func (x *expander) expand(s string) (string, error) {
	if x.literal || !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '{':
		default:
			b.WriteByte(c)
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ at character %d", i+1)
		}
		ref := s[i+2 : i+2+end]
		v, err := x.resolve(ref)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		i += 2 + end
	}
	return b.String(), nil
}

func (x *expander) resolve(ref string) (string, error) {
	name, def, hasDef := ref, "", false
	if k := strings.Index(ref, ":-"); k >= 0 {
		name, def, hasDef = ref[:k], ref[k+2:], true
	}
	switch {
	case name == "workspaceFolder" && x.work != "":
		return x.work, nil
	case name == "userHome" && x.home != "":
		return x.home, nil
	case strings.HasPrefix(name, "input:"):
		return x.input(strings.TrimPrefix(name, "input:"))
	case strings.HasPrefix(name, "env:"):
		name = strings.TrimPrefix(name, "env:")
	}
	if !validVarName(name) {
		return "", fmt.Errorf("invalid variable reference ${%s}", ref)
	}
	if v := x.getenv(name); v != "" {
		return v, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("environment variable %q is not set (use ${%s:-} to allow empty)", name, name)
}

func (x *expander) input(id string) (string, error) {
	if !x.inputOK {
		return "", fmt.Errorf("${input:%s}: inputs are only available in VS Code mcp.json files", id)
	}
	in, ok := x.inputs[id]
	if !ok {
		return "", fmt.Errorf("input %q is not declared in inputs", id)
	}
	env := InputEnv(id)
	if v := x.getenv(env); v != "" {
		return v, nil
	}
	what := fmt.Sprintf("input %q", id)
	if in.description != "" {
		what += fmt.Sprintf(" (%s)", in.description)
	}
	return "", fmt.Errorf("%s has no value: elicitty does not prompt for VS Code inputs; set %s", what, env)
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
