package elicit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestScriptRejectsUnknownContentKeys(t *testing.T) {
	const schema = `{"type":"object","properties":{"color":{"type":"string","enum":["r","g"]},"seats":{"type":"integer","default":2},"name":{"type":"string"}}}`
	const schemaReq = `{"type":"object","properties":{"color":{"type":"string","enum":["r","g"]},"seats":{"type":"integer","default":2},"name":{"type":"string","minLength":3}},"required":["color"]}`
	script, err := ParseScript([]byte("- match: {}\n  action: accept\n  content: {colour: r, Seats: 5, zzzzzz: 1, name: x}\n"), "answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = script.Answer(context.Background(), &Request{Server: "demo", Message: "m", Schema: []byte(schemaReq)})
	var ve *ViolationsError
	if !errors.As(err, &ve) {
		t.Fatalf("Answer error = %v, want a *ViolationsError", err)
	}
	got := err.Error()
	for _, want := range []string{
		`/Seats: answers.yaml entry 1: the schema has no field "Seats"; did you mean "seats"?`,
		`/colour: answers.yaml entry 1: the schema has no field "colour"; did you mean "color"?`,
		`/zzzzzz: answers.yaml entry 1: the schema has no field "zzzzzz" (fields: color, seats, name)`,
		// the entry's other violations, reported at once
		`/color: is required`,
		`/name: `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("error lacks %q:\n%s", want, got)
		}
	}

	// additionalProperties true (or a schema) allows keys the schema does not list.
	open := strings.Replace(schema, `{"type":"object",`, `{"type":"object","additionalProperties":true,`, 1)
	resp, err := script.Answer(context.Background(), &Request{Server: "demo", Message: "m", Schema: []byte(open)})
	if err != nil || resp.Content["colour"] != "r" {
		t.Errorf("with additionalProperties: %v, %v; want the content as written", resp, err)
	}
}

func TestNearestName(t *testing.T) {
	names := []string{"email", "seats", "color", "features"}
	for key, want := range map[string]string{
		"EMAIL": "email", "colour": "color", "feature": "features", "seat": "seats", "x": "", "subscribe": "",
	} {
		if got := nearestName(key, names); got != want {
			t.Errorf("nearestName(%q) = %q, want %q", key, got, want)
		}
	}
}
