package main

// proxyInstall prints (or, with write, edits) the config entry that runs a server
// through `elicitty proxy` in host's MCP config. Not built yet.
func (a *app) proxyInstall(host string, args []string, write bool) error {
	_, _, _ = host, args, write
	return usagef("proxy --install is not built yet")
}
