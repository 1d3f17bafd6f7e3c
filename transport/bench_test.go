package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/demo"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit/cputime"
	"github.com/elicitty/elicitty/transport/wire"
)

// benchForms is the number of forms one elicit_n call asks in the round-trip benchmarks.
const benchForms = 20

// runDemoStdio serves the demo server over stdio (serverModeEnv=demo).
func runDemoStdio() int {
	s, err := demo.New(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	if err := s.MCP().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// benchTargets are the demo server over stdio (a child process, so only the client's
// work is in this process) and over Streamable HTTP (in process).
func benchTargets(b *testing.B) map[string]config.Server {
	s, err := demo.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, nil)
	ts := httptest.NewServer(h)
	b.Cleanup(ts.Close)
	return map[string]config.Server{
		"stdio": {Name: "demo", Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{serverModeEnv: "demo"}},
		"http":  {Name: "demo", URL: ts.URL},
	}
}

// acceptAll is the answers file `- match: {}` / `action: accept`: every form accepted
// with its schema defaults, parsed, linted and validated as the CLI does.
func acceptAll(b *testing.B) elicit.Answerer {
	sc, err := elicit.ParseScript([]byte("- match: {}\n  action: accept\n"), "answers.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return elicit.NewEngine(sc, nil)
}

// BenchmarkElicitRoundTrip is one elicitation round trip (elicitation/create in, the
// answer out) through elicitty's Session, next to a bare go-sdk client doing the same
// (its ElicitationHandler accepting with empty content): the go-sdk figure is the floor
// elicitty's own work sits on. Each op is one elicit_n call of benchForms forms divided
// by benchForms; over HTTP the server's work is in the figure too.
func BenchmarkElicitRoundTrip(b *testing.B) {
	ctx := context.Background()
	for _, tr := range []string{"stdio", "http"} {
		b.Run("elicitty/"+tr, func(b *testing.B) {
			srv := benchTargets(b)[tr]
			s, err := Connect(ctx, srv, Options{Answerer: acceptAll(b), Protocol: legacy, Log: wire.New(1000)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			start := cputime.Now()
			for b.Loop() {
				res, _, err := s.CallTool(ctx, "elicit_n", map[string]any{"n": benchForms})
				if err != nil || res.IsError {
					b.Fatal(res, err)
				}
			}
			reportPerElicitation(b, start)
		})
		b.Run("gosdk/"+tr, func(b *testing.B) {
			srv := benchTargets(b)[tr]
			var t mcp.Transport
			if tr == "stdio" {
				t = newBareCommand(b, srv)
			} else {
				t = &mcp.StreamableClientTransport{Endpoint: srv.URL}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
				},
			})
			cs, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			start := cputime.Now()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "elicit_n", Arguments: map[string]any{"n": benchForms}})
				if err != nil || res.IsError {
					b.Fatal(res, err)
				}
			}
			reportPerElicitation(b, start)
		})
	}
}

// newBareCommand is go-sdk's own stdio transport for srv's command.
func newBareCommand(b *testing.B, srv config.Server) mcp.Transport {
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return &mcp.CommandTransport{Command: cmd}
}

// reportPerElicitation reports the wall and CPU time (this process: over stdio the
// client alone) per elicitation.
func reportPerElicitation(b *testing.B, start time.Duration) {
	n := float64(b.N * benchForms)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/elicitation")
	if d := cputime.Now() - start; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/n, "cpu-ns/elicitation")
	}
}

// BenchmarkListTools10k lists 10,000 tools (10 pages) in process: elicitty's Session
// (which keeps each tool's raw input schema for the argument forms) next to go-sdk's own
// paging iterator, the floor.
func BenchmarkListTools10k(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "0"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	for i := range 10_000 {
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool-%d", i), Description: "A tool.", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	}
	ctx := context.Background()
	b.Run("elicitty", func(b *testing.B) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		s, err := Connect(ctx, config.Server{Name: "mem"}, Options{transport: ct, Protocol: legacy, Log: wire.New(1000)})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		for b.Loop() {
			if tools, err := s.Tools(ctx); err != nil || len(tools) != 10_000 {
				b.Fatal(len(tools), err)
			}
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range cs.Tools(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != 10_000 {
				b.Fatal(n)
			}
		}
	})
}

// enumServer is a go-sdk server with the tool "pick", whose elicitation chooses among
// n options.
func enumServer(n int) *mcp.Server {
	opts := make([]string, n)
	for i := range opts {
		opts[i] = fmt.Sprintf("option-%d", i)
	}
	sch := map[string]any{"type": "object", "properties": map[string]any{
		"pick": map[string]any{"type": "string", "enum": opts},
	}, "required": []string{"pick"}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "enum", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "pick", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Pick one", RequestedSchema: sch})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
		})
	return srv
}

// enumEnv names the options of the stdio enum server (serverModeEnv "enum").
const enumEnv = "ELICITTY_BENCH_ENUM"

// runEnumStdio serves enumServer over stdio (serverModeEnv=enum, enumEnv options).
func runEnumStdio() int {
	n, err := strconv.Atoi(os.Getenv(enumEnv))
	if err != nil {
		return 1
	}
	if err := enumServer(n).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// BenchmarkElicitBigEnum is one elicitation whose one field chooses among 50,000 and
// 1,000,000 options, answered through the Engine with an answers-file pick: in process
// (the server's share included: go-sdk's server validates the schema it sends) and over
// stdio with the server in a child process, so that this process's CPU (cpu-ns/op) and
// profile are the client's alone. The work grows linearly with the options.
func BenchmarkElicitBigEnum(b *testing.B) {
	for _, n := range []int{50_000, 1_000_000} {
		for _, tr := range []string{"mem", "stdio"} {
			b.Run(fmt.Sprintf("%s/%d", tr, n), func(b *testing.B) {
				ctx := context.Background()
				sc, err := elicit.ParseScript([]byte("- match: {}\n  action: accept\n  content: {pick: option-7}\n"), "answers.yaml")
				if err != nil {
					b.Fatal(err)
				}
				opts := Options{Protocol: legacy, Log: wire.New(100), Answerer: elicit.NewEngine(sc, nil)}
				srv := config.Server{Name: "enum", Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{serverModeEnv: "enum", enumEnv: fmt.Sprint(n)}}
				if tr == "mem" {
					ct, st := mcp.NewInMemoryTransports()
					ss, err := enumServer(n).Connect(ctx, st, nil)
					if err != nil {
						b.Fatal(err)
					}
					defer ss.Close()
					srv, opts.transport = config.Server{Name: "mem"}, ct
				}
				s, err := Connect(ctx, srv, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				b.ReportAllocs()
				start := cputime.Now()
				for b.Loop() {
					res, _, err := s.CallTool(ctx, "pick", nil)
					if err != nil || res.IsError {
						b.Fatal(res, err)
					}
				}
				if d := cputime.Now() - start; d > 0 {
					b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
