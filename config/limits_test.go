package config

import (
	"strings"
	"testing"
	"time"
)

func TestHostileSizes(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	deepYAML := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	for name, tc := range map[string]struct {
		data string
		form format
		file string
	}{
		"yaml alias bomb": {bomb, formatOwn, "c.yaml"},
		"deep json":       {deep, formatOwn, "c.json"},
		"deep yaml":       {deepYAML, formatOwn, "c.yaml"},
		"deep jsonc":      {deep, formatVSCode, "mcp.json"},
	} {
		start := time.Now()
		_, err := decodeFile(tc.file, []byte(tc.data), tc.form, &expander{getenv: func(string) string { return "" }})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		t.Logf("%s: %v in %v", name, err, time.Since(start))
	}
}
