package safe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

const payload = "ok\x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x1b[2J\u009b31m\u202eevil\u200b\u2028fake line\rX"

func TestLine(t *testing.T) {
	got := Line(payload)
	if want := "okevil fake lineX"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestTextOnlyLeavesSanitized(t *testing.T) {
	txt := Untrusted(payload)
	for _, s := range []string{
		fmt.Sprint(txt), fmt.Sprintf("%s|%v|%q|%.3s", txt, txt, txt, txt), txt.Line(), txt.Block(),
	} {
		for _, r := range s {
			if Unsafe(r) {
				t.Fatalf("%q carries %U", s, r)
			}
		}
	}
	if got := fmt.Sprintf("%q", txt); got != `"okevil fake lineX"` {
		t.Errorf("%%q = %s", got)
	}
	b, err := json.Marshal(struct{ T Text }{txt})
	if err != nil || strings.Contains(string(b), "\x1b") || strings.Contains(string(b), "\u202e") {
		t.Errorf("json = %s, %v", b, err)
	}
}

func TestErrorSanitizesAndUnwraps(t *testing.T) {
	err := Errorf("call: %w", fmt.Errorf("server said %s: %w", payload, io.EOF))
	if got, want := err.Error(), "call: server said okevil fake lineX: EOF"; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Error("errors.Is lost the cause")
	}
	if Wrap(nil) != nil || Wrap(err) != err {
		t.Error("Wrap(nil) or Wrap(*Error) changed")
	}
}

func TestJSONEscapesUnsafeKeepsValue(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"m": "a\u0085b\u009bc\u202ed\u200be\u2028f\u00e9\x7f"})
	out := JSON(in)
	for _, r := range string(out) {
		if Unsafe(r) {
			t.Fatalf("JSON(%q) = %q keeps %U", in, out, r)
		}
	}
	var a, b map[string]string
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("JSON output invalid: %v: %s", err, out)
	}
	if a["m"] != b["m"] {
		t.Errorf("value changed: %q -> %q", a["m"], b["m"])
	}
	if clean := []byte(`{"a":"é ✅"}` + "\n"); string(JSON(clean)) != string(clean) {
		t.Error("clean JSON changed")
	}
}

func TestFieldEscapesLineBreaks(t *testing.T) {
	for in, want := range map[string]string{
		"image/png":                          "image/png",
		"image/png\nelicitty: fake line":     `image/png\nelicitty: fake line`,
		"a\rb\tc\u2028d\u2029e":              `a\rb\tc\u2028d\u2029e`,
		payload:                              "okevil\\u2028fake line\\rX",
		"n\u0085\u202e\u200b\ufeff\x1b[31mx": "nx",
	} {
		got := Field(in)
		if got != want {
			t.Errorf("Field(%q) = %q, want %q", in, got, want)
		}
		for _, r := range got {
			if Unsafe(r) || r == '\n' || r == '\t' {
				t.Errorf("Field(%q) = %q carries %U", in, got, r)
			}
		}
		if Field(got) != got {
			t.Errorf("Field is not stable on %q", got)
		}
	}
}
