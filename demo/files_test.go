package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestUploadFile(t *testing.T) {
	data := []byte("hello, file")
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	uri := "data:text/plain;name=notes%20v1.txt;base64,aGVsbG8sIGZpbGU="
	each(t, func(t *testing.T, era string, l link) {
		s, w := newDemo(t)
		var schema map[string]any
		cs := connect(t, s, era, l, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema = properties(req.Params)
			return answerer("accept", map[string]any{"file": uri})(ctx, req)
		}})
		res := call(t, cs, "upload_file", nil)
		want := "received notes v1.txt (text/plain, 11 bytes), sha256 " + digest
		if got := text(res); got != want || res.IsError {
			t.Errorf("result = %q (isError %v), want %q", got, res.IsError, want)
		}
		file, _ := schema["file"].(map[string]any)
		if _, ok := file["x-mcp-file"]; !ok || file["format"] != "uri" {
			t.Errorf("file property = %v, want a uri string with x-mcp-file", file)
		}
		checkEra(t, w, era, 1, 1)
	})
	// The tool surface: the file as an argument, nothing asked.
	s, _ := newDemo(t)
	cs := connect(t, s, legacy, inMemory, &mcp.ClientOptions{ElicitationHandler: answerer("decline", nil)})
	if res := call(t, cs, "upload_file", map[string]any{"file": uri}); text(res) != "received notes v1.txt (text/plain, 11 bytes), sha256 "+digest {
		t.Errorf("file argument: %q", text(res))
	}
	for _, bad := range []string{"https://example.com/x", "data:text/plain,plain", "data:text/plain;base64,%%%"} {
		cs := connect(t, s, legacy, inMemory, &mcp.ClientOptions{ElicitationHandler: answerer("accept", map[string]any{"file": bad})})
		if res := call(t, cs, "upload_file", nil); !res.IsError || !strings.HasPrefix(text(res), "file: ") {
			t.Errorf("%q: result %q (isError %v), want a tool error", bad, text(res), res.IsError)
		}
	}
}
