// Command elicitty is an interactive terminal MCP client whose specialty is answering
// what servers ask of people: elicitation forms, URL-mode consent flows and the input
// requests of the 2026-07-28 protocol.
package main

import (
	"os"

	"github.com/elicitty/elicitty/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
