package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoParams struct {
	mcp.ParamsBase
	Word string `json:"word"`
}

type echoResult struct {
	mcp.ResultBase
	Word  string `json:"word"`
	Extra any    `json:"extra"`
	Meta  bool   `json:"sawProtocolMeta"`
}

func TestRequestSendsAnExtensionMethodAndKeepsTheRawResult(t *testing.T) {
	srv := newTestServer(&fixture{schema: orderedSchema(t)})
	err := mcp.AddReceivingCustomMethod(srv, "acme/echo", func(_ context.Context, _ *mcp.ServerSession, p *echoParams) (*echoResult, error) {
		if p.Word == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no word"}
		}
		_, hasVersion := p.GetMeta()[mcp.MetaKeyProtocolVersion]
		return &echoResult{Word: p.Word, Extra: map[string]any{"z": 1, "a": 2}, Meta: hasVersion}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{legacy, "2026-07-28"} {
		t.Run(proto, func(t *testing.T) { checkRequest(t, connectMem(t, srv, Options{Protocol: proto})) })
	}
}

func checkRequest(t *testing.T, s *Session) {
	ctx := context.Background()

	raw, err := s.Request(ctx, "acme/echo", map[string]string{"word": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var got echoResult
	if err := json.Unmarshal(raw, &got); err != nil || got.Word != "hello" {
		t.Fatalf("result = %s (%v), want word hello", raw, err)
	}
	if want := s.Protocol() >= "2026-07-28"; got.Meta != want {
		t.Errorf("server saw _meta protocol version: %v, want %v (protocol %s)", got.Meta, want, s.Protocol())
	}
	if !strings.Contains(string(raw), `"extra":{"a":2,"z":1}`) {
		t.Errorf("raw result lost its members: %s", raw)
	}

	_, err = s.Request(ctx, "acme/echo", nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "acme/echo") {
		t.Errorf("error = %v, want the server's -32602 naming the method", err)
	}

	if _, err := s.Request(ctx, "tools/list", nil); err == nil {
		t.Error("a standard method went through the raw path")
	}
}
