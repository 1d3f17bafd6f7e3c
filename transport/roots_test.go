//lint:file-ignore SA1019 the test servers use roots and logging as 2025 servers do.

package transport

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsServer is a go-sdk server whose "roots" tool lists the client's roots, and which
// counts notifications/roots/list_changed on changed.
func rootsServer(changed chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caps := req.Session.InitializeParams().Capabilities
		if caps == nil || caps.RootsV2 == nil && !caps.Roots.ListChanged {
			return textResult("no roots capability"), nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return textResult("error: " + err.Error()), nil
		}
		var out []string
		for _, r := range res.Roots {
			out = append(out, r.Name+"="+r.URI)
		}
		return textResult(strings.Join(out, " ")), nil
	})
	return s
}

func callText(t *testing.T, s *Session, tool string) string {
	t.Helper()
	res, _, err := s.CallTool(context.Background(), tool, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resultText(t, res)
}

func TestRootsListedAndChanged(t *testing.T) {
	dir := t.TempDir()
	changed := make(chan struct{}, 4)
	s := connectMem(t, rootsServer(changed), Options{Protocol: legacy, Roots: []string{dir, dir, "file:///srv/data"}})
	// go-sdk answers roots/list in URI order, duplicates dropped.
	want := "data=file:///srv/data " + filepath.Base(dir) + "=file://" + filepath.ToSlash(dir)
	if got := callText(t, s, "roots"); got != want {
		t.Errorf("roots/list = %q\nwant %q", got, want)
	}
	if err := s.SetRoots([]string{"file:///srv/data"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/roots/list_changed after SetRoots")
	}
	if got := callText(t, s, "roots"); got != "data=file:///srv/data" {
		t.Errorf("after SetRoots, roots/list = %q", got)
	}
	if got := s.Roots(); len(got) != 1 || got[0] != (Root{URI: "file:///srv/data", Name: "data"}) {
		t.Errorf("Roots() = %+v", got)
	}
}

func TestNoRootsDeclaresNone(t *testing.T) {
	s := connectMem(t, rootsServer(make(chan struct{}, 1)), Options{Protocol: legacy})
	if got := callText(t, s, "roots"); got != "no roots capability" {
		t.Errorf("without Options.Roots the server saw %q", got)
	}
	if s.RootsDeclared() || s.Roots() != nil {
		t.Errorf("RootsDeclared() = %v, Roots() = %v", s.RootsDeclared(), s.Roots())
	}
	if err := s.SetRoots([]string{"/tmp"}); err == nil {
		t.Error("SetRoots on a session without roots did not fail")
	}
}

func TestRootURI(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b":                "file:///a/b",
		"file:///x%20y":       "file:///x%20y",
		"file://localhost/x":  "file:///x",
		"https://example.com": "",
		"file://host/x":       "",
		"":                    "",
	} {
		got, err := RootURI(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("RootURI(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

const rootsInput = `{"resultType":"input_required","requestState":"s1","inputRequests":{"r":{"method":"roots/list","params":{}}}}`

func TestMRTRAnswersRootsInput(t *testing.T) {
	for _, declared := range []bool{true, false} {
		rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
			if handshake(rs, m, true) || m.Method != "tools/call" {
				return
			}
			if !strings.Contains(string(m.Params), "inputResponses") {
				rs.reply(m.ID, rootsInput)
				return
			}
			rs.reply(m.ID, `{"content":[{"type":"text","text":"done"}]}`)
		})
		opts := Options{Protocol: modern}
		if declared {
			opts.Roots = []string{"file:///home/ada/space"}
		}
		s := connectRaw(t, tr, opts)
		_, _, err := s.CallTool(context.Background(), "t", nil)
		if !declared {
			if err == nil || !strings.Contains(err.Error(), "did not declare") {
				t.Errorf("undeclared roots input: err = %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := rs.received("tools/call")
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			Meta           map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(got[len(got)-1].Params, &p); err != nil {
			t.Fatal(err)
		}
		var res mcp.ListRootsResult
		if err := json.Unmarshal(p.InputResponses["r"], &res); err != nil {
			t.Fatalf("roots input response %s: %v", p.InputResponses["r"], err)
		}
		if diff := cmp.Diff([]*mcp.Root{{URI: "file:///home/ada/space", Name: "space"}}, res.Roots); diff != "" {
			t.Errorf("roots input response (-want +got):\n%s", diff)
		}
		if caps := string(p.Meta["io.modelcontextprotocol/clientCapabilities"]); !strings.Contains(caps, `"roots":{"listChanged":true}`) {
			t.Errorf("clientCapabilities %s lacks roots", caps)
		}
	}
}
