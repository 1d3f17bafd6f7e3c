package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/internal/conformance"
)

func (a *app) conformanceCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "conformance URL",
		Short: "Headless client for the MCP conformance suite",
		// A tool of the test suite (scripts/conformance.sh), not of end users.
		Hidden: true,
		Long: `Acts as the client of one MCP conformance scenario (MCP_CONFORMANCE_SCENARIO), using
the same code paths as the other commands: it connects to URL, lists and calls every
tool (or exactly the tool calls of MCP_CONFORMANCE_CONTEXT), gets every prompt and reads
every resource, and accepts every elicitation with the schema defaults (type-appropriate
values where there is none). MCP_CONFORMANCE_PROTOCOL_VERSION pins the protocol.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, closeLog, err := a.openLog()
			if err != nil {
				return err
			}
			defer closeLog()
			err = conformance.Run(cmd.Context(), args[0], conformance.Options{
				Stderr:        a.stderr,
				Protocol:      a.protocol,
				Timeout:       a.timeout,
				NoURL:         a.noURL,
				ClientVersion: currentVersion().Version,
				Log:           log,
			})
			var bad *conformance.ContextError
			if errors.As(err, &bad) {
				return &usageError{err: err}
			}
			return err
		},
	}
}
