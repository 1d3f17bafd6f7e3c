package desc_test

import (
	"fmt"
	"os"

	"github.com/elicitty/elicitty/elicit/desc"
)

func ExampleLint() {
	doc := []byte(`mcpdesc: "0.9.0"
info: {name: bot, version: 1.0.0}
protocolVersions: ["2025-06-18", "2025-11-25"]
tools:
  - name: deploy
    inputSchema: {type: object}
    elicitations:
      - {name: login, mode: url, message: Sign in.}
`)
	rep, err := desc.Lint(doc, "bot.mcpdesc.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = rep.WriteText(os.Stdout)
	fmt.Println("exit", desc.ExitCode([]*desc.Report{rep}, false))
	// Output:
	// INVALID
	// Source: bot.mcpdesc.yaml
	// Specification: 0.9.0-rc.3
	// Findings: 1 error(s), 0 warning(s)
	// ERROR elicitation-mode-not-supported-by-version $.tools[0].elicitations[0].mode:8:29: tools[0].elicitations[0].mode "url" is not defined for MCP 2025-06-18, which supports form mode only
	// exit 1
}

func ExampleFind() {
	doc := []byte(`{"mcpdesc": "0.9.0", "info": {"name": "bot", "version": "1"},
 "protocolVersions": ["2025-11-25"],
 "tools": [{"name": "deploy", "inputSchema": {"type": "object"}, "elicitations": [
   {"name": "pick", "mode": "form", "message": "Which env?",
    "requestedSchema": {"type": "object", "properties": {"env": {"type": "string", "enum": ["dev", "prd"]}, "ok": {"type": "boolean"}}}},
   {"name": "login", "mode": "url", "message": "Sign in."}]}]}`)
	rep, _ := desc.Lint(doc, "bot.mcpdesc.json", nil)
	form, _ := desc.Find(rep.Document, "tools/deploy", "pick")
	fmt.Println(form.Mode, string(form.RequestedSchema))
	url, _ := desc.Find(rep.Document, "tools/deploy", "login")
	fmt.Printf("%s %q\n", url.Mode, url.URL)
	// Output:
	// form {"type":"object","properties":{"env":{"type":"string","enum":["dev","prd"]},"ok":{"type":"boolean"}}}
	// url ""
}
