package elicit

import (
	"encoding/json"
	"testing"
)

func TestLooksSecret(t *testing.T) {
	tests := []struct {
		name string
		fld  Field
		want bool
	}{
		{"password by name", Field{Name: "password"}, true},
		{"api key in camel case", Field{Name: "apiKey"}, true},
		{"private key by title", Field{Name: "k", Title: "Private key"}, true},
		{"auth", Field{Name: "auth"}, true},
		{"auth header", Field{Name: "auth_header"}, true},
		{"bearer", Field{Name: "bearer"}, true},
		{"cookie", Field{Name: "session_cookie"}, true},
		{"credential", Field{Name: "db-credential"}, true},
		{"session id", Field{Name: "sessionId"}, true},
		{"writeOnly", Field{Name: "answer", Raw: json.RawMessage(`{"type":"string","writeOnly":true}`)}, true},
		{"writeOnly false", Field{Name: "answer", Raw: json.RawMessage(`{"type":"string","writeOnly":false}`)}, false},
		{"author is no auth", Field{Name: "author"}, false},
		{"plain", Field{Name: "city", Description: "where you live"}, false},
		{"not text", Field{Name: "max_tokens", Kind: KindInteger}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fld := tt.fld // the zero Kind is KindText
			if got := looksSecret(&fld); got != tt.want {
				t.Errorf("looksSecret(%+v) = %v, want %v", tt.fld, got, tt.want)
			}
		})
	}
}
