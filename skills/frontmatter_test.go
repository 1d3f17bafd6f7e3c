package skills

import (
	"strings"
	"testing"
)

func TestFrontmatterComparison(t *testing.T) {
	entry := map[string]any{"name": "a", "description": "d", "license": nil, "metadata": map[string]any{"n": 1.0, "tags": []any{"x", true}}}
	for _, tc := range []struct {
		name, md string
		differs  string // a field the comparison must name; "" for identical
	}{
		{"identical", "---\nname: a\ndescription: d\nmetadata:\n  n: 1\n  tags: [x, true]\n---\nbody", ""},
		{"crlf and BOM", "\ufeff---\r\nname: a\r\ndescription: d\r\nmetadata: {n: 1.0, tags: [\"x\", yes_not_bool_in_1_2]}\r\n---\r\n", "metadata"},
		{"explicit null equals absent", "---\nname: a\ndescription: d\nlicense:\nmetadata: {n: 1, tags: [x, true]}\n---\n", ""},
		{"extra field", "---\nname: a\ndescription: d\nallowed-tools: Bash\nmetadata: {n: 1, tags: [x, true]}\n---\n", "allowed-tools"},
		{"changed description", "---\nname: a\ndescription: e\nmetadata: {n: 1, tags: [x, true]}\n---\n", "description"},
		{"string for number", "---\nname: a\ndescription: d\nmetadata: {n: \"1\", tags: [x, true]}\n---\n", "metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFrontmatter([]byte(tc.md))
			if err != nil {
				t.Fatal(err)
			}
			diff := compareFrontmatter(got, entry)
			if tc.differs == "" && diff != "" {
				t.Errorf("differs: %s", diff)
			}
			if tc.differs != "" && !strings.Contains(diff, tc.differs+":") {
				t.Errorf("diff = %q, want it to name %s", diff, tc.differs)
			}
		})
	}
}

func TestFrontmatterRejects(t *testing.T) {
	bomb := "---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n"
	for name, md := range map[string]string{
		"none":       "# Title\nname: a\n",
		"unclosed":   "---\nname: a\n",
		"not a map":  "---\n- a\n---\n",
		"bad yaml":   "---\nname: [a\n---\n",
		"alias bomb": bomb,
	} {
		if _, err := parseFrontmatter([]byte(md)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzFrontmatter(f *testing.F) {
	f.Add("---\nname: a\ndescription: d\n---\nbody")
	f.Add("---\na: &x [1, *x]\n---\n")
	f.Fuzz(func(t *testing.T, md string) {
		fm, err := parseFrontmatter([]byte(md))
		if err == nil {
			if d := compareFrontmatter(fm, fm); d != "" {
				t.Fatalf("front matter differs from itself: %s", d)
			}
		}
	})
}

func FuzzParseEntry(f *testing.F) {
	f.Add(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":1}]}`)
	f.Add(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		s := parseEntry([]byte(raw))
		if s.Problem != "" || s.Dynamic {
			return
		}
		if _, ok := s.file(s.URI); !ok {
			t.Fatalf("valid entry without its SKILL.md: %+v", s)
		}
		if len(s.Files) > MaxFiles || s.Size() > MaxTotalSize {
			t.Fatalf("valid entry over the limits: %+v", s)
		}
		for _, f := range s.Files {
			if f.URI != s.URI && !within(s.Root(), f.URI) {
				t.Fatalf("valid entry lists %q outside %q", f.URI, s.Root())
			}
		}
	})
}
