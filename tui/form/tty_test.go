package form

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
)

// ttySchema has a field of every kind, for runs on a real terminal.
const ttySchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2},
	"email":{"type":"string","title":"Email","format":"email"},
	"replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":9,"default":2},
	"ratio":{"type":"number","title":"Ratio"},
	"env":{"type":"string","title":"Env","oneOf":[{"const":"dev","title":"Development"},{"const":"prod","title":"Production"}]},
	"region":{"type":"string","title":"Region","enum":["eu","us"]},
	"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2},
	"ok":{"type":"boolean","title":"OK","default":false},
	"notify":{"type":"boolean","title":"Notify"},
	"api_token":{"type":"string","title":"API token"}
},"required":["name","env"]}`

// TestTTYHelper is a helper for end-to-end runs, not a unit test. With
// ELICITTY_UI_TTY=FILE set and the test binary started on a real terminal (for example
// in tmux), it answers one request with every kind through an inline Prompter on
// stdin/stderr and writes the response JSON (or "error: ...") to FILE.
// ELICITTY_UI_ACCESSIBLE=1 uses the accessible mode; ELICITTY_UI_TIMEOUT=DURATION
// withdraws the request after that long.
func TestTTYHelper(t *testing.T) {
	path := os.Getenv("ELICITTY_UI_TTY")
	if path == "" {
		t.Skip("set ELICITTY_UI_TTY=FILE and run the test binary on a terminal")
	}
	p := NewPrompter(os.Stdin, os.Stderr, &PrompterOptions{Accessible: os.Getenv("ELICITTY_UI_ACCESSIBLE") == "1"})
	req := &elicit.Request{Server: "demo", Protocol: "2025-11-25", Mode: elicit.ModeForm,
		Message: "Configure the deployment", Schema: []byte(ttySchema)}
	ctx := t.Context()
	if d, err := time.ParseDuration(os.Getenv("ELICITTY_UI_TIMEOUT")); err == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	resp, err := elicit.NewEngine(p, nil).Answer(ctx, req)
	if err != nil {
		_ = os.WriteFile(path, []byte("error: "+err.Error()), 0o600)
		t.Fatal(err)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
