package main

// Blank imports keep the module's planned dependencies in go.mod while the packages
// that use them are written; removed once every one is imported for real.
import (
	_ "charm.land/bubbles/v2/help"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/huh/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/charmbracelet/x/ansi"
	_ "github.com/charmbracelet/x/exp/teatest/v2"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/modelcontextprotocol/go-sdk/auth"
	_ "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/pkg/browser"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/skip2/go-qrcode"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/net/idna"
	_ "golang.org/x/net/publicsuffix"
	_ "golang.org/x/text/unicode/norm"
)

func main() {}
