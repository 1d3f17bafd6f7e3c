package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit/ui"
	"github.com/elicitty/elicitty/protocol"
)

func (a *app) renderCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "render SCHEMA.json",
		Short: "Show a requestedSchema as the form it becomes, and print the response JSON",
		Long: `Renders an elicitation requestedSchema without a server: prints lint findings for the
protocol version (--protocol, default 2025-11-25), shows the form (on a terminal, or
answered from --answers), and prints the response JSON that would be sent after the
defaults merge and validation. Server authors use it to preview their schemas.`,
		Example: "  elicitty render schema.json\n  elicitty render schema.json --protocol 2025-06-18 --answers answers.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return usagef("read schema: %w", err)
			}
			if !json.Valid(data) {
				return usagef("%s: schema is not valid JSON", args[0])
			}
			version := a.protocol
			if version == "" {
				version = protocol.Version20251125
			}
			ans, err := a.answerer(config.Server{Name: "render"})
			if err != nil {
				return err
			}
			if err := ui.Render(cmd.Context(), data, version, ans, a.stdout, a.stderr); err != nil {
				return err
			}
			if err := a.writeRecords(); err != nil {
				return fmt.Errorf("render: %w", err)
			}
			return nil
		},
	}
}
