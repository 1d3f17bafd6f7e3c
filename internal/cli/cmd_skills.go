package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/skills"
	"github.com/elicitty/elicitty/transport"
)

func (a *app) skillsCommand() *cobra.Command {
	var files, allowDynamic bool
	cmd := &cobra.Command{
		Use:   "skills TARGET [NAME [FILE...]]",
		Short: "List a server's skills, or load one after verifying it (Skills extension)",
		Long: `Without NAME, lists the skills the server offers (io.modelcontextprotocol/skills):
name, size, SKILL.md URI and description. Listing reads no skill file.

With NAME (a skill name or its SKILL.md URI), reads the skill's SKILL.md and verifies
its byte size, sha256 digest and front matter against the server's entry before
printing anything. Supporting files are read only when asked for: --files lists them
from the entry without reading them; each FILE (a path relative to the skill, or a
URI) is read and verified the same way before it is printed. A failed check prints
which file and which check failed, shows none of its content and exits 4.`,
		Example: "  elicitty skills https://mcp.example.com/mcp\n  elicitty skills https://mcp.example.com/mcp pdf-processing\n" +
			"  elicitty skills https://mcp.example.com/mcp pdf-processing --files\n" +
			"  elicitty skills https://mcp.example.com/mcp pdf-processing references/FORMS.md\n" +
			"  elicitty skills https://mcp.example.com/mcp skill://acme/billing/refunds/SKILL.md --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if files && len(rest) != 1 {
				return usagef("--files takes a skill NAME and no FILE")
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				if len(rest) == 0 {
					list, err := skills.List(ctx, s)
					if err != nil {
						return err
					}
					return a.printSkills(list)
				}
				sk, err := findSkill(ctx, s, rest[0])
				if err != nil {
					return err
				}
				return a.loadSkill(ctx, s, sk, rest[1:], files, &skills.Options{AllowDynamic: allowDynamic})
			})
		},
	}
	cmd.Flags().BoolVar(&files, "files", false, "list the skill's supporting files (from its entry; none is read)")
	cmd.Flags().BoolVar(&allowDynamic, "allow-dynamic", false, `load skills whose server publishes no digests ("resources": "dynamic"); only the front matter is verified`)
	return cmd
}

// findSkill resolves NAME: a SKILL.md URI (skills/get), else a name in the listing.
func findSkill(ctx context.Context, s *transport.Session, name string) (skills.Skill, error) {
	if strings.Contains(name, "://") {
		return skills.Get(ctx, s, name)
	}
	list, err := skills.List(ctx, s)
	if err != nil {
		return skills.Skill{}, err
	}
	var found []skills.Skill
	for _, sk := range list {
		if sk.Name() == name {
			found = append(found, sk)
		}
	}
	switch len(found) {
	case 0:
		return skills.Skill{}, usagef("no skill named %q among the %d the server lists (elicitty skills TARGET lists them)", name, len(list))
	case 1:
		return found[0], nil
	}
	uris := make([]string, len(found))
	for i, sk := range found {
		uris[i] = safe.Block(sk.URI)
	}
	return skills.Skill{}, usagef("%d skills are named %q; name one by its URI: %s", len(found), name, strings.Join(uris, ", "))
}

// skillJSON is a skill entry as --json prints it, every server string sanitized.
type skillJSON struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	URI         string         `json:"uri"`
	Size        int64          `json:"size"`
	Files       int            `json:"files"`
	Dynamic     bool           `json:"dynamic,omitempty"`
	Problem     string         `json:"problem,omitempty"`
	Frontmatter map[string]any `json:"frontmatter"`
}

func skillOut(sk skills.Skill) skillJSON {
	fm, _ := sanitizeJSON(sk.Frontmatter).(map[string]any)
	return skillJSON{
		Name:        safe.Block(sk.Name()),
		Description: safe.Block(sk.Description()),
		URI:         safe.Block(sk.URI),
		Size:        sk.Size(),
		Files:       len(sk.Files),
		Dynamic:     sk.Dynamic,
		Problem:     safe.Block(sk.Problem),
		Frontmatter: fm,
	}
}

// sanitizeJSON sanitizes every string (keys included) of a decoded JSON value.
func sanitizeJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[safe.Block(k)] = sanitizeJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sanitizeJSON(e)
		}
		return out
	case string:
		return safe.Block(x)
	}
	return v
}

func (a *app) printSkills(list []skills.Skill) error {
	if a.jsonOut {
		out := make([]skillJSON, 0, len(list))
		for _, sk := range list {
			out = append(out, skillOut(sk))
		}
		return a.printJSON(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stderr, "elicitty: the server lists no skills (a skill can still be named by its SKILL.md URI)")
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, sk := range list {
		desc := cell(sk.Description())
		if sk.Problem != "" {
			desc = "[cannot load: " + cell(sk.Problem) + "] " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(sk.Name()), skillSize(sk), cell(sk.URI), desc)
	}
	return tw.Flush()
}

// cell renders a server string as one table cell: sanitized, first line, no tabs.
func cell(s string) string { return strings.ReplaceAll(firstLine(s), "\t", " ") }

// skillSize renders a skill's manifest size for the listing.
func skillSize(sk skills.Skill) string {
	switch {
	case sk.Dynamic:
		return "dynamic"
	case len(sk.Files) == 1:
		return fmt.Sprintf("%s, 1 file", bytesText(sk.Size()))
	}
	return fmt.Sprintf("%s, %d %s", bytesText(sk.Size()), len(sk.Files), elicit.Plural(len(sk.Files), "file"))
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// fileJSON is one file as --json prints it; content only once read and verified.
type fileJSON struct {
	URI           string  `json:"uri"`
	Size          int64   `json:"size"`
	Digest        string  `json:"digest,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 string  `json:"contentBase64,omitempty"`
}

func fileOut(f skills.File, b []byte) fileJSON {
	out := fileJSON{URI: safe.Block(f.URI), Size: f.Size, Digest: safe.Block(f.Digest)}
	switch {
	case b == nil:
	case isText(b):
		s := safe.Block(string(b))
		out.Content = &s
	default:
		out.ContentBase64 = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

// isText reports content that can be shown as text.
func isText(b []byte) bool { return utf8.Valid(b) && !strings.ContainsRune(string(b), 0) }

// loadSkill verifies SKILL.md, then prints it, its file list or the files asked for.
func (a *app) loadSkill(ctx context.Context, s *transport.Session, sk skills.Skill, paths []string, listFiles bool, opts *skills.Options) error {
	out := map[string]any{"skill": skillOut(sk)}
	fail := func(err error) error {
		var ve *skills.VerifyError
		if a.jsonOut && errors.As(err, &ve) {
			out["verified"] = false
			out["error"] = map[string]string{"check": ve.Check, "uri": safe.Block(ve.URI), "detail": safe.Block(ve.Detail)}
			_ = a.printJSON(out)
			return &jsonPrinted{err: err}
		}
		return err
	}
	l, err := skills.Load(ctx, s, sk, opts)
	if err != nil {
		return fail(err)
	}
	out["verified"] = l.Verified
	var read []fileJSON
	var texts []string
	for _, p := range paths {
		f, b, err := l.ReadFile(ctx, s, p)
		if err != nil {
			return fail(err)
		}
		read = append(read, fileOut(f, b))
		if isText(b) {
			texts = append(texts, safe.Block(string(b)))
		} else {
			texts = append(texts, fmt.Sprintf("[binary %s, %d bytes]", safe.Block(f.URI), len(b)))
		}
	}
	sup := l.Supporting()
	if a.jsonOut {
		if len(paths) == 0 {
			out["content"] = fileOut(skills.File{URI: sk.URI}, l.Content).Content
		} else {
			out["read"] = read
		}
		if listFiles {
			fs := make([]fileJSON, 0, len(sup))
			for _, f := range sup {
				fs = append(fs, fileOut(f, nil))
			}
			out["files"] = fs
		}
		return a.printJSON(out)
	}
	switch {
	case listFiles:
		root := sk.Root() + "/"
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, f := range sup {
			fmt.Fprintf(tw, "%s\t%s\n", cell(strings.TrimPrefix(f.URI, root)), bytesText(f.Size))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	case len(paths) > 0:
		printText(a.stdout, strings.Join(texts, "\n"))
	default:
		printText(a.stdout, safe.Block(string(l.Content)))
	}
	what := "size, digest and front matter"
	if sk.Dynamic {
		what = "front matter only (the server publishes no digests)"
	}
	fmt.Fprintf(a.stderr, "elicitty: skill %s: verified %s; %d supporting files\n", firstLine(sk.Name()), what, len(sup))
	return nil
}

// printText prints s, ending it with a newline when it has none.
func printText(w io.Writer, s string) {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	fmt.Fprint(w, s)
}
