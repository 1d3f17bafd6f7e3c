package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/elicitty/elicitty/internal/boundedfile"
)

// The size caps of the files Load reads. Claude Code's ~/.claude.json also keeps
// Claude Code's own state, so it may be larger than a config proper.
const (
	// MaxFileSize caps a config file: elicitty's own, another client's, a project's.
	MaxFileSize = 4 << 20
	// MaxClaudeStateSize caps Claude Code's ~/.claude.json.
	MaxClaudeStateSize = 16 << 20
)

// max is the size cap of the host file.
func (hf HostFile) max() int64 {
	if hf.Host == HostClaudeCode && hf.Scope != ScopeProject {
		return MaxClaudeStateSize
	}
	return MaxFileSize
}

// readConfigFile reads a config file within its bounds (see package boundedfile): a
// FIFO, device or socket, or a symlink to one, is refused without blocking, and so is
// a file larger than max. Its errors name the path, never the content.
func readConfigFile(path string, max int64) ([]byte, error) {
	data, err := boundedfile.Read(path, max)
	if err != nil {
		var be *boundedfile.Error
		if errors.As(err, &be) {
			return nil, err // names the path already
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// shown reports whether the content of the config file path may be quoted in errors:
// the file, with every symlink followed, lies inside one of roots (or the directory the
// path names). A project's .mcp.json that links to /etc/shadow does not: its errors say
// only that it is not a valid config.
func shown(path string, roots ...string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	for _, r := range append(roots, filepath.Dir(path)) {
		if r == "" {
			continue
		}
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if abs, err := filepath.Abs(rr); err == nil {
			rr = abs
		}
		rel, err := filepath.Rel(rr, real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// errNotShown is the error of a config file whose content must not be quoted.
func errNotShown(path string) error {
	return &Error{File: path, Msg: "not a valid config file (it links to a file outside its folder, so nothing of it is shown)"}
}
