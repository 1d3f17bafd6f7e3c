// Package config owns elicitty's server catalog: which MCP servers exist, how to reach them
// and the per-server policy (protocol pin, timeout, answer validation, URL-mode policy,
// round limit). It reads files and environment variables and nothing else; it starts no
// server and imports no other elicitty package.
//
// # Sources
//
// Load layers these sources; a later definition of a server name replaces an earlier one
// whole (fields are not merged):
//
//  1. built-in defaults (LayerBuiltin);
//  2. other clients' configs, unless LoadOptions.NoImports (LayerImported), user-wide
//     files first: Claude Desktop ($XDG_CONFIG_HOME/Claude/claude_desktop_config.json,
//     the macOS ~/Library/Application Support/Claude/ and Windows %APPDATA%\Claude\
//     paths), Claude Code's user scope (~/.claude.json `mcpServers`), Cursor
//     (~/.cursor/mcp.json), VS Code's user profile (Code/User/mcp.json under
//     $XDG_CONFIG_HOME, ~/Library/Application Support or %APPDATA%; `servers` and
//     `inputs`), Windsurf (~/.codeium/windsurf/mcp_config.json, `serverUrl`), Gemini CLI
//     (~/.gemini/settings.json: `url` is SSE, `httpUrl` Streamable HTTP, `timeout` in
//     ms) and Codex ($CODEX_HOME/config.toml, default ~/.codex; TOML `[mcp_servers.NAME]`
//     with bearer_token_env_var, http_headers, env_http_headers, enabled,
//     startup_timeout_sec and tool_timeout_sec); then the project's: .cursor/mcp.json,
//     .mcp.json, Claude Code's local scope (~/.claude.json
//     `projects[<working directory>].mcpServers`), .vscode/mcp.json and
//     .gemini/settings.json. JSON files may contain // comments and trailing commas;
//     their keys that elicitty does not know are ignored and entries with
//     "disabled": true are skipped. A file that cannot be parsed becomes a Problem with
//     no server name (its line and column in Err) and the rest of the catalog loads;
//  3. elicitty's own file: --config FILE (must exist; LayerOwn), else $ELICITTY_CONFIG
//     (LayerEnv), else $XDG_CONFIG_HOME/elicitty/config.yaml, config.yml or config.json
//     (at most one; LayerOwn).
//
// Command-line flags are applied by main afterwards; Config.Validate checks the result.
//
// # Bounded reads
//
// Every file is read with package boundedfile: a regular file only (a FIFO, device or
// socket, or a symlink to one, is refused by name without blocking), at most
// MaxFileSize (4 MiB; Claude Code's ~/.claude.json MaxClaudeStateSize, 16 MiB), with
// arrays and objects nested at most 1000 deep, checked before any parser runs. A file
// that links outside its folder (a project's .mcp.json linked to /etc/shadow) is never
// quoted: its errors say only that it is not a valid config.
//
// # Folder trust
//
// The project files (.cursor/mcp.json, .mcp.json, .vscode/mcp.json and
// .gemini/settings.json in the working directory) come with the folder, such as a
// cloned repository, so their servers start only once the user trusts the folder. Until
// then Load lists them in Config.Untrusted with every ${VAR} left as written (the
// environment is not read for them), and ParseTarget refuses them with an
// *UntrustedError. Trust records the folder and the SHA-256 digest of each of its
// project files in $XDG_CONFIG_HOME/elicitty/trust.json (mode 0600, written
// atomically); a project file that changes, or a new one, makes the folder untrusted
// again. User-scope files and elicitty's own file are trusted as they are. Layering is
// unchanged: an untrusted project server hides a user-wide one of the same name (it
// would replace it once trusted), and elicitty's own file replaces either.
//
// # Own file
//
//	servers:
//	  demo:
//	    command: elicitty
//	    args: [serve-demo]
//	    env: {DEMO_TOKEN: "${DEMO_TOKEN}"}
//	    timeout: 30s           # request idle time (default 60s)
//	    handshakeTimeout: 10s  # connect + initialize (default 30s)
//	    urlWait: 5m            # headless wait for a URL-mode completion (default 2m)
//	    restart: on-failure # restart it when it crashes (never by default)
//	    maxRestarts: 5      # restarts in a row before giving up
//	    roots: [src, "${userHome}/notes"]  # besides the working directory
//	    logLevel: info      # logging/setLevel once connected
//	  api:
//	    url: https://mcp.example.com/mcp
//	    headers: {Authorization: "Bearer ${API_TOKEN}"}
//	    type: http          # stdio | http | sse (inferred when absent)
//	    protocol: 2025-11-25
//	    validation: true
//	    maxRounds: 8
//	    urlPolicy: {allowedHosts: ["*.example.com"], httpsOnly: true, open: copy-only}
//
// JSON with the same shape is accepted too. Unknown keys are errors.
//
// # Expansion
//
// Every string value (command, args, env values, cwd, url, header values and the rest) is
// expanded: ${VAR} and ${env:VAR} read the environment; ${VAR:-default} gives a default;
// ${workspaceFolder} and ${userHome} are the working and home directories; $$ is a literal
// $; any other $ is kept as written. In VS Code files, ${input:ID} reads the environment
// variable ELICITTY_INPUT_<ID> (see InputEnv): elicitty never prompts while loading.
//
// A variable that is unset or empty is an error naming the variable, the file, the line and
// the field; it never silently becomes "". Write ${VAR:-} to allow an empty value. In
// elicitty's own file that error fails Load; in an imported file it only makes that server
// unusable (Config.Problems), and naming the server as a TARGET reports it.
//
// # Installing into a host
//
// PlanInstall plans the entry of a host's config (Claude Desktop, Claude Code, Cursor,
// VS Code, Windsurf, Gemini CLI: the files listed above) that starts a server through
// `elicitty proxy`, and Install.Write applies it after a backup, keeping the file's other
// keys, comments and layout. Both read the same list of host files as Load.
//
// # Secrets
//
// Env values and header values never appear in errors, in String, GoString or Describe
// output; Redacted returns a copy that is safe to log.
package config
