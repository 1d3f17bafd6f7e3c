package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Checks a file can fail, as VerifyError.Check names them.
const (
	CheckEntry       = "entry"       // the entry itself is invalid or declined
	CheckSize        = "size"        // byte length differs from the manifest's size
	CheckDigest      = "digest"      // sha256 differs from the manifest's digest
	CheckFrontmatter = "frontmatter" // SKILL.md front matter differs from the entry's
	CheckUnlisted    = "unlisted"    // the file is not in the manifest
)

// VerifyError reports a skill file that failed verification; its content was not used.
type VerifyError struct {
	URI    string // the file (or SKILL.md) that failed
	Check  string // CheckEntry, CheckSize, CheckDigest, CheckFrontmatter or CheckUnlisted
	Detail string
}

// Error implements error.
func (e *VerifyError) Error() string {
	return fmt.Sprintf("skill file %q failed %s verification: %s", e.URI, e.Check, e.Detail)
}

// Options configures Load; nil means defaults.
type Options struct {
	// AllowDynamic loads skills whose entry publishes no digests ("resources":
	// "dynamic"); only the front matter can then be verified. Off by default.
	AllowDynamic bool
}

// Loaded is a skill whose SKILL.md passed verification: the entry it was verified
// against is held, and its supporting files can be read through ReadFile.
type Loaded struct {
	Skill   Skill
	Content []byte // SKILL.md, verified
	// Verified names the checks SKILL.md passed.
	Verified []string

	read int64 // bytes retrieved so far (the total-size limit of dynamic skills)
}

// Supporting returns the manifest's files other than SKILL.md.
func (l *Loaded) Supporting() []File {
	var out []File
	for _, f := range l.Skill.Files {
		if f.URI != l.Skill.URI {
			out = append(out, f)
		}
	}
	return out
}

// Load reads the skill's SKILL.md and verifies its size, digest and front matter
// against the entry. It reads nothing else. A failed check is a *VerifyError.
func Load(ctx context.Context, c Conn, s Skill, opts *Options) (*Loaded, error) {
	if opts == nil {
		opts = &Options{}
	}
	if s.Problem != "" {
		return nil, &VerifyError{URI: s.URI, Check: CheckEntry, Detail: s.Problem}
	}
	if s.Dynamic && !opts.AllowDynamic {
		return nil, &VerifyError{URI: s.URI, Check: CheckEntry,
			Detail: `the server publishes no digests for this skill ("resources": "dynamic"), so it cannot be verified`}
	}
	l := &Loaded{Skill: s}
	body, err := l.fetch(ctx, c, s.URI)
	if err != nil {
		return nil, err
	}
	fm, err := parseFrontmatter(body)
	if err != nil {
		return nil, &VerifyError{URI: s.URI, Check: CheckFrontmatter, Detail: err.Error()}
	}
	if diff := compareFrontmatter(fm, s.Frontmatter); diff != "" {
		return nil, &VerifyError{URI: s.URI, Check: CheckFrontmatter, Detail: diff}
	}
	l.Content = body
	if !s.Dynamic {
		l.Verified = append(l.Verified, CheckSize, CheckDigest)
	}
	l.Verified = append(l.Verified, CheckFrontmatter)
	return l, nil
}

// Resolve turns a path relative to the skill's root (references/FORMS.md) into its
// URI; a full URI is returned as is.
func (l *Loaded) Resolve(path string) string {
	if strings.Contains(path, "://") {
		return path
	}
	return l.Skill.Root() + "/" + strings.TrimPrefix(path, "/")
}

// ReadFile reads one supporting file of the loaded skill (a URI, or a path relative to
// the skill's root) and verifies it against the held entry. A file the entry does not
// list is a verification failure and is not read.
func (l *Loaded) ReadFile(ctx context.Context, c Conn, path string) (File, []byte, error) {
	uri := l.Resolve(path)
	if l.Skill.Dynamic {
		if uri != l.Skill.URI && !within(l.Skill.Root(), uri) {
			return File{}, nil, &VerifyError{URI: uri, Check: CheckUnlisted, Detail: "the file is outside the skill"}
		}
		b, err := l.fetch(ctx, c, uri)
		return File{URI: uri, Size: int64(len(b))}, b, err
	}
	f, ok := l.Skill.file(uri)
	if !ok {
		return File{}, nil, &VerifyError{URI: uri, Check: CheckUnlisted, Detail: "the skill's manifest does not list this file"}
	}
	b, err := l.fetch(ctx, c, uri)
	return f, b, err
}

// fetch reads uri and, for a manifest skill, checks its size and digest.
func (l *Loaded) fetch(ctx context.Context, c Conn, uri string) ([]byte, error) {
	res, _, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	b, err := contentOf(res, uri)
	if err != nil {
		return nil, err
	}
	if l.Skill.Dynamic {
		l.read += int64(len(b))
		if l.read > MaxTotalSize {
			return nil, &VerifyError{URI: uri, Check: CheckSize,
				Detail: fmt.Sprintf("the skill's files exceed %d bytes in total", MaxTotalSize)}
		}
		return b, nil
	}
	f, _ := l.Skill.file(uri)
	if int64(len(b)) != f.Size {
		return nil, &VerifyError{URI: uri, Check: CheckSize,
			Detail: fmt.Sprintf("read %d bytes, the manifest says %d", len(b), f.Size)}
	}
	sum := sha256.Sum256(b)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest {
		return nil, &VerifyError{URI: uri, Check: CheckDigest,
			Detail: fmt.Sprintf("content hashes to %s, the manifest says %s", got, f.Digest)}
	}
	return b, nil
}

// contentOf returns the raw bytes of uri in a resources/read result.
func contentOf(res *mcp.ReadResourceResult, uri string) ([]byte, error) {
	if res == nil || len(res.Contents) == 0 {
		return nil, errors.New("resources/read: no content for " + fmt.Sprintf("%q", uri))
	}
	pick := func(c *mcp.ResourceContents) []byte {
		if c.Blob != nil {
			return c.Blob
		}
		return []byte(c.Text)
	}
	var found *mcp.ResourceContents
	for _, c := range res.Contents {
		if c != nil && c.URI == uri {
			if found != nil {
				return nil, fmt.Errorf("resources/read: more than one content for %q", uri)
			}
			found = c
		}
	}
	if found == nil && len(res.Contents) == 1 && res.Contents[0] != nil {
		found = res.Contents[0]
	}
	if found == nil {
		return nil, fmt.Errorf("resources/read: no content for %q", uri)
	}
	return pick(found), nil
}
