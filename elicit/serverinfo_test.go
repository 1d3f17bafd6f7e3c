package elicit

import (
	"context"
	"strings"
	"testing"
)

func TestServerInfoNameMatchesAndIsSuggested(t *testing.T) {
	req := &Request{Server: "127.0.0.1:3001", ServerInfo: "everything", Message: "Go?", Schema: []byte(`{"type":"object"}`)}
	if got := req.ServerLabel(); got != "127.0.0.1:3001 (everything)" {
		t.Errorf("ServerLabel = %q", got)
	}
	if e := UnansweredEntry(req); !strings.Contains(e, "server: everything\n") {
		t.Errorf("the suggested entry must match on the server's own name:\n%s", e)
	}
	for _, pattern := range []string{"everything", "127.0.0.1:*", "every*"} {
		s, err := ParseScript([]byte("- match: {server: \""+pattern+"\"}\n  action: decline\n"), "a.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := s.Answer(context.Background(), req); err != nil || resp.Action != Decline {
			t.Errorf("match.server %q: %v, %v; want a match", pattern, resp, err)
		}
	}
	s, _ := ParseScript([]byte("- match: {server: node}\n  action: decline\n"), "a.yaml")
	if _, err := s.Answer(context.Background(), req); err == nil {
		t.Error("match.server node matched a server named neither node")
	}
}
