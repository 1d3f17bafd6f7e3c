package elicit

import (
	"encoding/json"
	"strings"
	"unicode"
)

// looksSecret reports whether a text field is declared writeOnly, or its name, title or
// description suggests it collects a secret: a password, token, credential, cookie, API
// or private key, or payment card data. Form mode must not collect secrets (URL mode
// exists for that), so such fields are masked (on screen, in the wire log, in recorded
// answers) and carry a warning. Only text fields are considered, so "max_tokens" as an
// integer is not a secret.
func looksSecret(fld *Field) bool {
	if fld.Kind != KindText {
		return false
	}
	var decl struct {
		WriteOnly bool `json:"writeOnly"`
	}
	if json.Unmarshal(fld.Raw, &decl) == nil && decl.WriteOnly {
		return true
	}
	for _, s := range []string{fld.Name, fld.Title, fld.Description} {
		if secretWords(words(s)) {
			return true
		}
	}
	return false
}

// words splits text into lower-case words at non-letters and camelCase boundaries.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

func secretWords(ws []string) bool {
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch w {
		case "password", "passwd", "passphrase", "passcode", "pwd", "secret", "token", "apikey", "cvv", "cvc", "cvv2", "ssn", "otp", "totp", "mfa", "2fa", "iban",
			"auth", "authorization", "bearer", "cookie", "cookies", "credential", "credentials", "creds":
			return true
		case "session":
			if next == "id" || next == "key" || next == "cookie" {
				return true
			}
		case "api", "access", "private", "signing", "client":
			if next == "key" || next == "secret" || next == "token" {
				return true
			}
		case "card", "credit":
			if next == "number" || next == "no" || next == "num" || next == "card" || next == "cvv" {
				return true
			}
		case "security":
			if next == "code" {
				return true
			}
		}
		if strings.HasSuffix(w, "password") || strings.HasSuffix(w, "token") || strings.HasSuffix(w, "secret") || strings.HasPrefix(w, "apikey") {
			return true
		}
	}
	return false
}
