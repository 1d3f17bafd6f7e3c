//lint:file-ignore SA1019 roots are deprecated in 2026-07-28 (SEP-2577) but remain in the 2025 eras and as 2026 input requests.

package transport

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRoots bounds the roots one session declares: a list is for people to read.
const maxRoots = 256

// RootURI turns a root as a person writes it (a directory, absolute or relative to the
// working directory, or a file:// URI) into the file:// URI a server sees.
func RootURI(root string) (string, error) {
	if root == "" {
		return "", errors.New("empty root")
	}
	if strings.HasPrefix(root, "file://") {
		u, err := url.Parse(root)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return "", fmt.Errorf("root %q: want file:///ABSOLUTE/PATH", root)
		}
		return (&url.URL{Scheme: "file", Path: u.Path}).String(), nil
	}
	if strings.Contains(root, "://") {
		return "", fmt.Errorf("root %q: only directories and file:// URIs can be roots", root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("root %q: %w", root, err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/dir
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}

// Root is one root declared to a server: a file:// URI and a name for people.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// RootsOf turns roots (directories or file:// URIs) into the list a server sees: each
// named after its last path element, duplicates dropped, at most maxRoots.
func RootsOf(roots []string) ([]Root, error) {
	out := []Root{}
	seen := map[string]bool{}
	for _, r := range roots {
		uri, err := RootURI(r)
		if err != nil {
			return nil, err
		}
		if seen[uri] {
			continue
		}
		if len(out) == maxRoots {
			return nil, fmt.Errorf("more than %d roots", maxRoots)
		}
		seen[uri] = true
		u, _ := url.Parse(uri)
		name := filepath.Base(filepath.FromSlash(u.Path))
		out = append(out, Root{URI: uri, Name: name})
	}
	return out, nil
}

// RootsDeclared reports whether the session declared the roots capability.
func (s *Session) RootsDeclared() bool { return s.opts.Roots != nil }

// Roots returns the roots the session declares now, in order; nil when it declares none.
func (s *Session) Roots() []Root {
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	if !s.RootsDeclared() {
		return nil
	}
	return slices.Clone(s.roots)
}

// SetRoots replaces the session's roots (directories or file:// URIs) and, when they
// changed, tells the server with notifications/roots/list_changed. A session that
// declared no roots refuses.
func (s *Session) SetRoots(roots []string) error {
	if !s.RootsDeclared() {
		return errors.New("roots are not declared to this server (--no-roots)")
	}
	next, err := RootsOf(roots)
	if err != nil {
		return err
	}
	s.rootsMu.Lock()
	prev := s.roots
	s.roots = next
	c := s.mcpClient
	s.rootsMu.Unlock()
	if c == nil || slices.Equal(prev, next) {
		return nil
	}
	var gone []string
	for _, r := range prev {
		gone = append(gone, r.URI)
	}
	// One notification per change is what go-sdk sends: removing first keeps the order
	// of the new list (AddRoots appends).
	c.RemoveRoots(gone...)
	c.AddRoots(sdkRoots(next)...)
	s.tap.log.Notef(s.server.Name, "roots changed: %d root(s); notifications/roots/list_changed sent", len(next))
	return nil
}

// initRoots sets the session's first roots from its options.
func (s *Session) initRoots() error {
	if !s.RootsDeclared() {
		return nil
	}
	rs, err := RootsOf(s.opts.Roots)
	if err != nil {
		return err
	}
	s.roots = rs
	return nil
}

// declareRoots puts the roots capability (with listChanged) into caps when the session
// declares roots; go-sdk's default would declare it always.
func (s *Session) declareRoots(caps *mcp.ClientCapabilities) {
	if s.RootsDeclared() {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
}

// isRootsInput reports whether a 2026-07-28 input request is roots/list.
func isRootsInput(r mcp.InputRequest) bool {
	_, ok := r.(*mcp.ListRootsParams)
	return ok
}

// addRootsTo gives a new go-sdk client the session's roots, before it connects (so it
// sends no notification for them).
func (s *Session) addRootsTo(c *mcp.Client) {
	rs := s.Roots()
	if len(rs) > 0 {
		c.AddRoots(sdkRoots(rs)...)
	}
}

// rootsInput answers a 2026-07-28 roots/list input request.
func (s *Session) rootsInput(what, key string) (*mcp.ListRootsResult, error) {
	if !s.RootsDeclared() {
		return nil, fmt.Errorf("%s: input request %q asks for roots, which elicitty did not declare (--no-roots)", what, key)
	}
	rs := s.Roots()
	s.tap.log.Notef(s.server.Name, "%s: input %q: answered roots/list with %d root(s)", what, key, len(rs))
	return &mcp.ListRootsResult{Roots: sdkRoots(rs)}, nil
}

// sdkRoots converts roots for go-sdk.
func sdkRoots(rs []Root) []*mcp.Root {
	out := make([]*mcp.Root, 0, len(rs))
	for _, r := range rs {
		out = append(out, &mcp.Root{URI: r.URI, Name: r.Name})
	}
	return out
}
