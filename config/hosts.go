package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Host is an MCP host application whose config file lists MCP servers: one elicitty
// imports from and can install an entry into. Its value is the name the command line
// takes ("claude-desktop").
type Host string

// The hosts elicitty can install a proxy entry into.
const (
	HostClaudeDesktop Host = "claude-desktop"
	HostClaudeCode    Host = "claude-code"
	HostCursor        Host = "cursor"
	HostVSCode        Host = "vscode"
	HostWindsurf      Host = "windsurf"
	HostGeminiCLI     Host = "gemini-cli"
	// hostCodex is imported from but not installed into (its file is TOML).
	hostCodex Host = "codex"
)

// hostInfo is what elicitty knows of a host besides its files.
type hostInfo struct {
	host    Host
	title   string
	aliases []string
}

// hostTable lists the installable hosts in the order the command line shows them.
var hostTable = []hostInfo{
	{HostClaudeDesktop, "Claude Desktop", []string{"claude-desktop", "claudedesktop", "claude_desktop", "desktop"}},
	{HostClaudeCode, "Claude Code", []string{"claude-code", "claudecode", "claude_code"}},
	{HostCursor, "Cursor", []string{"cursor"}},
	{HostVSCode, "VS Code", []string{"vscode", "vs-code", "vs_code", "code"}},
	{HostWindsurf, "Windsurf", []string{"windsurf", "codeium"}},
	{HostGeminiCLI, "Gemini CLI", []string{"gemini-cli", "gemini", "geminicli", "gemini_cli"}},
}

// Hosts returns the hosts elicitty can install an entry into.
func Hosts() []Host {
	out := make([]Host, len(hostTable))
	for i, h := range hostTable {
		out[i] = h.host
	}
	return out
}

// HostUsage lists the host names with their aliases, for a usage message.
func HostUsage() string {
	parts := make([]string, len(hostTable))
	for i, h := range hostTable {
		parts[i] = string(h.host)
		if len(h.aliases) > 1 {
			parts[i] += " (" + strings.Join(h.aliases[1:], ", ") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// ParseHost resolves a host name or alias, in any case.
func ParseHost(s string) (Host, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for _, h := range hostTable {
		if slices.Contains(h.aliases, key) {
			return h.host, nil
		}
	}
	return "", fmt.Errorf("unknown host %q (want %s)", s, HostUsage())
}

// Title is the host's product name ("Claude Desktop").
func (h Host) Title() string {
	for _, info := range hostTable {
		if info.host == h {
			return info.title
		}
	}
	return string(h)
}

// Scope says for whom a host config file counts.
type Scope string

// The scopes of host config files.
const (
	// ScopeUser is a file in the user's home or config directory.
	ScopeUser Scope = "user"
	// ScopeProject is a file in the project (working) directory.
	ScopeProject Scope = "project"
	// ScopeLocal is Claude Code's per-project entry in ~/.claude.json.
	ScopeLocal Scope = "local"
)

// HostFile is one file where a host keeps MCP servers.
type HostFile struct {
	Host  Host
	Scope Scope
	Path  string
	// platform is the GOOS whose user file this is, when the path depends on the
	// platform (Claude Desktop, VS Code); "" for every platform.
	platform string
	f        format
}

// hostFiles lists every host's config files in import layering order: user-wide before
// project, and within Claude Code user, then project (.mcp.json), then local scope. The
// same file twice (a home directory that is also the project, XDG_CONFIG_HOME under the
// macOS folder) is listed once, at its first place.
func (o LoadOptions) hostFiles() []HostFile {
	var files []HostFile
	add := func(h Host, s Scope, platform string, f format, parts ...string) {
		files = append(files, HostFile{Host: h, Scope: s, Path: filepath.Join(parts...), platform: platform, f: f})
	}
	appData := o.Getenv("APPDATA")
	macSupport := filepath.Join(o.HomeDir, "Library", "Application Support")
	claudeCode := filepath.Join(o.HomeDir, ".claude.json")
	add(HostClaudeDesktop, ScopeUser, "linux", formatMCPServers, o.ConfigDir, "Claude", "claude_desktop_config.json")
	add(HostClaudeDesktop, ScopeUser, "darwin", formatMCPServers, macSupport, "Claude", "claude_desktop_config.json")
	if appData != "" {
		add(HostClaudeDesktop, ScopeUser, "windows", formatMCPServers, appData, "Claude", "claude_desktop_config.json")
	}
	add(HostClaudeCode, ScopeUser, "", formatMCPServers, claudeCode)
	add(HostCursor, ScopeUser, "", formatMCPServers, o.HomeDir, ".cursor", "mcp.json")
	add(HostVSCode, ScopeUser, "linux", formatVSCode, o.ConfigDir, "Code", "User", "mcp.json")
	add(HostVSCode, ScopeUser, "darwin", formatVSCode, macSupport, "Code", "User", "mcp.json")
	if appData != "" {
		add(HostVSCode, ScopeUser, "windows", formatVSCode, appData, "Code", "User", "mcp.json")
	}
	add(HostWindsurf, ScopeUser, "", formatWindsurf, o.HomeDir, ".codeium", "windsurf", "mcp_config.json")
	add(HostGeminiCLI, ScopeUser, "", formatGemini, o.HomeDir, ".gemini", "settings.json")
	if codexHome := o.Getenv("CODEX_HOME"); codexHome != "" {
		add(hostCodex, ScopeUser, "", formatCodex, codexHome, "config.toml")
	} else {
		add(hostCodex, ScopeUser, "", formatCodex, o.HomeDir, ".codex", "config.toml")
	}
	if o.WorkDir != "" {
		add(HostCursor, ScopeProject, "", formatMCPServers, o.WorkDir, ".cursor", "mcp.json")
		add(HostClaudeCode, ScopeProject, "", formatMCPServers, o.WorkDir, ".mcp.json")
		add(HostClaudeCode, ScopeLocal, "", formatClaudeLocal, claudeCode)
		add(HostVSCode, ScopeProject, "", formatVSCode, o.WorkDir, ".vscode", "mcp.json")
		add(HostGeminiCLI, ScopeProject, "", formatGemini, o.WorkDir, ".gemini", "settings.json")
	}
	type key struct {
		path string
		f    format
	}
	seen := map[key]bool{}
	out := files[:0]
	for _, f := range files {
		if k := (key{f.Path, f.f}); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}
