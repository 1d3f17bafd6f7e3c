package elicit

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// SecretEnvPrefix starts the environment variables a recorded answers file refers to
// instead of holding what the user typed into a secret field (Field.Secret).
const SecretEnvPrefix = "ELICITTY_SECRET_"

// SecretEnv returns the variable that stands for field's secret in a recorded answers
// file: SecretEnvPrefix and the field name in upper case, every other character than
// a letter or digit written as "_" (api-key -> ELICITTY_SECRET_API_KEY).
func SecretEnv(field string) string {
	return SecretEnvPrefix + strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return unicode.ToUpper(r)
		}
		return '_'
	}, field)
}

// SecretValues returns the non-empty string values content holds for the form's
// secret fields: what must be masked wherever elicitty writes or shows a message.
func (f *Form) SecretValues(content map[string]any) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, fld := range f.Fields {
		if !fld.Secret {
			continue
		}
		if s, ok := content[fld.Name].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// secretRef matches a content value that refers to a secret variable.
var secretRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{(` + SecretEnvPrefix + `[A-Z0-9_]+)\}$`) })

// expandSecrets replaces every content value of the form ${ELICITTY_SECRET_...} with
// that variable's value (lookup nil means the environment). A variable that is not
// set is an error: answering with the reference itself would send it to the server.
func expandSecrets(content map[string]any, lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	for k, v := range content {
		s, ok := v.(string)
		if !ok {
			continue
		}
		m := secretRef().FindStringSubmatch(s)
		if m == nil {
			continue
		}
		val, ok := lookup(m[1])
		if !ok {
			return fmt.Errorf("field %q refers to $%s, which is not set", k, m[1])
		}
		content[k] = val
	}
	return nil
}
