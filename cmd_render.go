package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/tree"
	"github.com/elicitty/elicitty/tui/form"
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
			if _, err := tree.ParseJSON(data, &tree.Options{KeepLastDuplicate: true}); err != nil {
				var te *tree.Error
				if errors.As(err, &te) && te.Loc.Line > 0 {
					return usagef("%s:%d:%d: schema is not valid JSON: %s", args[0], te.Loc.Line, te.Loc.Column, strings.TrimPrefix(te.Msg, "invalid JSON: "))
				}
				return usagef("%s: schema is not valid JSON: %w", args[0], err)
			}
			p, err := a.plan(config.Server{Name: "render", Protocol: protocol.Version20251125}, frontEnd{showsFindings: true}, nil)
			if err != nil {
				return err
			}
			if err := form.Render(cmd.Context(), data, p.server.Protocol, p.options.Answerer, a.stdout, a.stderr); err != nil {
				return err
			}
			if err := a.writeRecords(); err != nil {
				return fmt.Errorf("render: %w", err)
			}
			return nil
		},
	}
}
