package main

import (
	"os"

	"github.com/spf13/cobra"
)

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "elicitty [TARGET...] [-- command args...]",
		Short: "An interactive terminal MCP client that answers what servers ask of you",
		Long: `elicitty is a terminal client for MCP servers. It lists and calls tools, prompts and
resources, and answers what servers ask of people: elicitation forms, URL-mode consent
flows, and the input requests of the 2026-07-28 protocol.

Without arguments it opens the terminal UI over every configured server (or over the
built-in demo server when none is configured). TARGET is a server name from the config,
an http(s) URL, or a stdio server's command line after --.`,
		Version:           currentVersion().String(),
		Args:              cobra.ArbitraryArgs,
		SilenceUsage:      true,
		SilenceErrors:     true,
		RunE:              a.runTUI,
		PersistentPreRunE: func(*cobra.Command, []string) error { return a.checkFlags() },
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	a.addCommonFlags(root)
	root.AddCommand(
		a.demoCommand(),
		a.listCommand("tools", "List a server's tools"),
		a.listCommand("prompts", "List a server's prompts"),
		a.listCommand("resources", "List a server's resources and resource templates"),
		a.callCommand(),
		a.promptCommand(),
		a.readCommand(),
		a.renderCommand(),
		a.descCommand(),
		a.serveDemoCommand(),
		a.doctorCommand(),
		a.conformanceCommand(),
		a.loginCommand(),
		a.logoutCommand(),
		a.manCommand(),
		environmentTopic(),
	)
	a.addCompletions(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })
	return root
}

// checkFlags rejects common flag values that cannot work, before anything runs.
func (a *app) checkFlags() error {
	a.applyEnvironment()
	switch a.protocol {
	case "", "2025-06-18", "2025-11-25", "2026-07-28":
	default:
		return usagef("--protocol must be 2025-06-18, 2025-11-25 or 2026-07-28, not %q", a.protocol)
	}
	if a.timeout < 0 {
		return usagef("--timeout must not be negative, got %s", a.timeout)
	}
	if a.recordPath != "" {
		// Fail now, not after the tool ran with its side effects and the answers are lost.
		f, err := os.OpenFile(a.recordPath, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return usagef("--record: %w", err)
		}
		f.Close()
	}
	return nil
}
