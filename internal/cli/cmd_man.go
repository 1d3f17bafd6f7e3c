package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand writes a man page per command; release builds ship them (goreleaser's
// before hooks run it). Hidden: users read the pages, not this command.
func (a *app) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of every command into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{
				Title:   "ELICITTY",
				Section: "1",
				Source:  "elicitty " + currentVersion().Version,
				Manual:  "elicitty manual",
			}
			if err := doc.GenManTree(root, header, args[0]); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			return nil
		},
	}
}
