package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/transport"
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
		a.inboxCommand(),
		a.listCommand("tools", "List a server's tools"),
		a.listCommand("prompts", "List a server's prompts"),
		a.listCommand("resources", "List a server's resources and resource templates"),
		a.callCommand(),
		a.tasksCommand(),
		a.promptCommand(),
		a.readCommand(),
		a.completeCommand(),
		a.watchCommand(),
		a.rootsCommand(),
		a.skillsCommand(),
		a.renderCommand(),
		a.descCommand(),
		a.serveDemoCommand(),
		a.proxyCommand(),
		a.doctorCommand(),
		a.conformanceCommand(),
		a.loginCommand(),
		a.logoutCommand(),
		a.configCommand(),
		a.trustCommand(),
		a.manCommand(),
		environmentTopic(),
	)
	a.addCompletions(root)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })
	classifyArgErrors(root)
	return root
}

// classifyArgErrors makes the argument errors of cmd and its subcommands *usageError
// (exit 2) by type, not by their text: each command's Args validator is wrapped, and a
// command group (desc, completion) shows its help, or rejects an unknown subcommand
// with cobra's suggestions. Flag errors go through the root's flag error func.
func classifyArgErrors(cmd *cobra.Command) {
	if cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(c *cobra.Command, a []string) error {
			if len(a) > 0 {
				return unknownCommand(c, a[0])
			}
			return c.Help()
		}
	}
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				var u *usageError
				if errors.As(err, &u) {
					return err
				}
				return &usageError{err: err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		classifyArgErrors(sub)
	}
}

// unknownCommand is the usage error for a word that is no subcommand of c, with the
// subcommands it resembles, if any.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	if s := suggestions(c, word); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{err: errors.New(msg)}
}

// checkFlags rejects common flag values that cannot work, before anything runs.
func (a *app) checkFlags() error {
	a.applyEnvironment()
	if a.protocol != "" && !protocol.IsSupported(a.protocol) {
		return usagef("--protocol must be %s, not %q", strings.Join(protocol.Supported(), ", "), a.protocol)
	}
	if a.timeout < 0 || a.handshake < 0 || a.urlWait < 0 || a.taskWait < 0 {
		return usagef("--timeout, --handshake-timeout, --url-wait and --task-wait must not be negative")
	}
	if a.logLevel != "" && !config.ValidLogLevel(a.logLevel) {
		return usagef("--log-level must be one of %s, not %q", strings.Join(config.LogLevels(), ", "), a.logLevel)
	}
	for _, e := range a.experimental {
		if !slices.Contains(config.Experiments(), e) {
			return usagef("--experimental must be one of %s, not %q", strings.Join(config.Experiments(), ", "), e)
		}
	}
	if a.noRoots && len(a.roots) > 0 {
		return usagef("--no-roots and --root contradict each other")
	}
	for _, r := range a.roots {
		if _, err := transport.RootURI(r); err != nil {
			return usagef("--root: %w", err)
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			fmt.Fprintf(a.stderr, "elicitty: warning: --root %s is not an existing directory (declared anyway)\n", strconv.Quote(r))
		}
	}
	if a.recordPath != "" {
		// Fail now, not after the tool ran with its side effects and the answers are lost.
		f, err := a.openPrivate(a.recordPath, 0)
		if err != nil {
			return usagef("--record: %w", err)
		}
		f.Close()
	}
	return nil
}

// suggestions are the subcommands of c that word resembles (cobra's prefix and edit
// distance rule, at most 2 edits).
func suggestions(c *cobra.Command, word string) []string {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	return c.SuggestionsFor(word)
}
