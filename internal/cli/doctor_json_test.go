package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/safe"
)

// decodeOne decodes s as exactly one JSON document into v, failing the test when
// there is anything else (text around it, a second value).
func decodeOne(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, s)
	}
	if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON document (%v):\n%s", err, s)
	}
}

// TestDoctorTargetJSON: `doctor TARGET --json` prints one JSON document on stdout (not
// the text lines), with the server's name and version as sent but nothing a terminal
// must not get raw; a server that cannot be reached is a JSON document too, exit 4.
func TestDoctorTargetJSON(t *testing.T) {
	const name = "evil\x1b]0;PWNED\x07\u202ename"
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "noop"}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := runCLI(t, "doctor", hs.URL, "--json", "--config", cfg, "--no-imports")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, c := range r.stdout {
		if c != '\n' && safe.Unsafe(c) {
			t.Errorf("stdout carries %U raw:\n%q", c, r.stdout)
		}
	}
	// The fields a script reads, by their JSON names.
	type check struct {
		Name     string `json:"name"`
		Declared bool   `json:"declared"`
		OK       bool   `json:"ok"`
		Count    int    `json:"count"`
	}
	type report struct {
		OK         bool   `json:"ok"`
		Connected  bool   `json:"connected"`
		Error      string `json:"error"`
		ServerInfo *struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Protocol       string  `json:"protocol"`
		ProtocolReason string  `json:"protocolReason"`
		Checks         []check `json:"checks"`
	}
	var got report
	decodeOne(t, r.stdout, &got)
	if !got.OK || !got.Connected || got.ServerInfo == nil || got.ServerInfo.Name != name || got.Protocol == "" || got.ProtocolReason == "" {
		t.Errorf("report %+v, want connected, ok, serverInfo.name %q and a protocol", got, name)
	}
	if len(got.Checks) != 3 || !got.Checks[0].OK || got.Checks[0].Count != 1 || got.Checks[1].Declared {
		t.Errorf("checks %+v, want tools/list ok (1), prompts and resources not declared", got.Checks)
	}

	addr := hs.Listener.Addr().String()
	hs.Close()
	r = runCLI(t, "doctor", "http://"+addr+"/mcp", "--json", "--config", cfg, "--no-imports", "--timeout", "5s")
	if r.code != ExitConn {
		t.Errorf("unreachable: exit %d, want %d", r.code, ExitConn)
	}
	got = report{}
	decodeOne(t, r.stdout, &got)
	if got.OK || got.Connected || got.Error == "" {
		t.Errorf("unreachable: report %+v, want not connected with an error", got)
	}
}

// TestDoctorMatrixFits80Columns: doctor's table of checks, every check passed, fits
// an 80-column terminal.
func TestDoctorMatrixFits80Columns(t *testing.T) {
	var cols []doctorColumnResult
	for _, tr := range []string{"stdio", "http"} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			c := doctorColumnResult{Transport: tr, Protocol: era, label: tr + " " + era}
			for _, chk := range doctorChecks {
				c.Checks = append(c.Checks, doctorCheckResult{Name: chk.name, OK: true})
			}
			cols = append(cols, c)
		}
	}
	var out strings.Builder
	a := newApp(strings.NewReader(""), &out, io.Discard)
	if err := a.printDoctorMatrix(cols); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("a line of %d columns:\n%s", n, out.String())
			break
		}
	}
	if !strings.Contains(out.String(), "2026-07-28") || !strings.Contains(out.String(), doctorChecks[len(doctorChecks)-1].name) {
		t.Errorf("the table lacks an era or a check:\n%s", out.String())
	}
}
