package demo

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers completion/complete: item ids for demo://items/{id} and names for
// the greet prompt, those starting with what was typed (case-insensitive).
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var from []string
	switch {
	case p.Ref == nil:
	case p.Ref.Type == "ref/resource" && p.Ref.URI == "demo://items/{id}" && p.Argument.Name == "id":
		// Any id can be read; these are the ones suggested.
		from = []string{"1", "2", "3", "4", "7", "12", "42", "404", "4096"}
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "greet" && p.Argument.Name == "name":
		from = []string{"Ada", "Alan", "Barbara", "Grace", "Katherine", "Linus", "Margaret"}
	}
	values := []string{}
	for _, v := range from {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(p.Argument.Value)) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
