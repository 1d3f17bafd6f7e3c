package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/desc"
	"github.com/elicitty/elicitty/protocol"
	"github.com/elicitty/elicitty/tui/form"
)

func (a *app) descCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "desc",
		Short: "Check and preview the elicitation declarations of MCP Description files",
	}
	var strict bool
	lint := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Lint the elicitation declarations of .mcpdesc.json/.yaml files (MCP Description §12)",
		Long: `Checks every elicitation declaration (MCP Description v0.9.0-rc.3 §12) of each file and
prints one line per diagnostic (--json for machine output). Exit 0 when every file is
valid (warnings allowed), 1 when any is invalid, 2 when a file cannot be read;
--strict makes warnings fail too.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var reports []*desc.Report
			for _, path := range args {
				r, err := desc.LintFile(path, nil)
				if err != nil {
					fmt.Fprintf(a.stderr, "elicitty: %v\n", err)
				}
				reports = append(reports, r)
			}
			if a.jsonOut {
				var ok []*desc.Report
				for _, r := range reports {
					if r != nil {
						ok = append(ok, r)
					}
				}
				if err := desc.WriteJSONAll(a.stdout, ok); err != nil {
					return err
				}
			} else {
				for _, r := range reports {
					if r == nil {
						continue
					}
					if err := r.WriteText(a.stdout); err != nil {
						return err
					}
				}
			}
			if code := desc.ExitCode(reports, strict); code != 0 {
				return &silentError{code: code}
			}
			return nil
		},
	}
	lint.Flags().BoolVar(&strict, "strict", false, "treat warnings as failures")
	preview := &cobra.Command{
		Use:   "preview FILE PRIMITIVE DECLARATION",
		Short: "Render a declared elicitation as its form or consent screen",
		Example: `  elicitty desc preview server.mcpdesc.json tools/assign_issue choose_assignee
  elicitty desc preview server.mcpdesc.yaml tools/deploy confirm --answers answers.yaml`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := desc.LintFile(args[0], nil)
			if err != nil {
				return &usageError{err: err}
			}
			if errs, _ := rep.Counts(); errs > 0 {
				fmt.Fprintf(a.stderr, "elicitty: %s has %d lint error(s); run `elicitty desc lint %s`\n", args[0], errs, args[0])
			}
			decl, err := desc.Find(rep.Document, args[1], args[2])
			if err != nil {
				return &usageError{err: err}
			}
			p, err := a.plan(config.Server{Name: "preview", Protocol: protocol.Version20251125}, frontEnd{showsFindings: true}, nil)
			if err != nil {
				return err
			}
			tool := args[1]
			if i := strings.IndexByte(tool, '/'); i >= 0 {
				tool = tool[i+1:]
			}
			req := &elicit.Request{
				Server:      "preview",
				Tool:        tool,
				Protocol:    p.server.Protocol,
				Mode:        elicit.Mode(decl.Mode),
				Message:     decl.Message,
				Schema:      decl.RequestedSchema,
				URL:         decl.URL,
				URLDeclared: true,
			}
			return form.Preview(cmd.Context(), req, form.PreviewText{When: decl.When, OnDecline: decl.OnDecline, OnCancel: decl.OnCancel}, p.options.Answerer, a.stdout, a.stderr)
		},
	}
	cmd.AddCommand(lint, preview)
	return cmd
}
