// Command gosdkclient is the bare go-sdk side of bench/cpu.sh: a client written with
// nothing but github.com/modelcontextprotocol/go-sdk (the SDK elicitty is built on) doing
// the same work as the elicitty command it is compared with, so its cost is the floor
// that go-sdk's connection sets under elicitty's.
//
//	gosdkclient list (URL | -- CMD ARGS...)       connect, initialize, tools/list, close
//	gosdkclient elicit N (URL | -- CMD ARGS...)   call elicit_n {n: N}, accept every form
//
// Every form is accepted with empty content (the demo's one field is optional). It
// prints "N tools" or the tool's result text.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkclient:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	usage := errors.New("usage: gosdkclient list|elicit [N] (URL | -- CMD ARGS...)")
	if len(args) == 0 {
		return usage
	}
	what, args := args[0], args[1:]
	n := 0
	switch what {
	case "elicit":
		if len(args) == 0 {
			return usage
		}
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			return usage
		}
		args = args[1:]
	case "list":
	default:
		return usage
	}
	var t mcp.Transport
	switch {
	case len(args) > 1 && args[0] == "--":
		t = &mcp.CommandTransport{Command: exec.Command(args[1], args[2:]...)}
	case len(args) == 1:
		t = &mcp.StreamableClientTransport{Endpoint: args[0]}
	default:
		return usage
	}
	answered := 0
	c := mcp.NewClient(&mcp.Implementation{Name: "elicitty-bench-gosdk-client", Version: "0.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			answered++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return err
	}
	defer cs.Close()
	if what == "list" {
		n := 0
		for _, err := range cs.Tools(ctx, nil) { // every page
			if err != nil {
				return err
			}
			n++
		}
		fmt.Printf("%d tools\n", n)
		return nil
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "elicit_n", Arguments: map[string]any{"n": n}})
	if err != nil {
		return err
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	fmt.Println(text)
	if res.IsError || answered != n {
		return fmt.Errorf("answered %d forms, result %q", answered, text)
	}
	return nil
}
