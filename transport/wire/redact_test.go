package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	l := New(10)
	var file strings.Builder
	l.SetFile(&file)
	l.Append(Entry{Dir: Out, Raw: json.RawMessage(`{"before":"s3cret"}`)}) // before Redact: kept
	l.Redact("s3cret")
	l.Redact("a\"b")
	l.Redact("n1234")
	l.Append(Entry{Dir: Out, Raw: json.RawMessage(`{"v":"s3cret","w":"xx s3cret yy","q":"a\"b"}`)})
	l.Append(Entry{Dir: Stderr, Text: "token s3cret"})
	l.Append(Entry{Dir: In, Raw: json.RawMessage(`{"v":"\n1234"}`)}) // the mask would cut the escape \n
	got := l.Snapshot()
	if want := `{"v":"********","w":"xx ******** yy","q":"********"}`; string(got[1].Raw) != want {
		t.Errorf("Raw = %s, want %s", got[1].Raw, want)
	}
	if got[2].Text != "token ********" {
		t.Errorf("Text = %q", got[2].Text)
	}
	if got[3].Raw != nil || !strings.Contains(got[3].Text, "withheld") {
		t.Errorf("entry with a broken mask = %s %q, want the body withheld", got[3].Raw, got[3].Text)
	}
	if n := strings.Count(file.String(), "s3cret"); n != 1 { // only the entry before Redact
		t.Errorf("file holds the secret %d times, want 1:\n%s", n, file.String())
	}
}
