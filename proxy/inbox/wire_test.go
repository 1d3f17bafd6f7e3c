package inbox

import (
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
)

// TestWaitOnTheWire: a proxy's wait (Consented set) crosses the wire with its time;
// a "wait" for a form, which no consent could have started, is refused.
func TestWaitOnTheWire(t *testing.T) {
	at := time.Date(2026, 12, 5, 1, 2, 3, 0, time.UTC)
	req := &elicit.Request{Server: "everything", Host: "Claude Code", Origin: elicit.OriginURLRequired, Mode: elicit.ModeURL,
		Message: "Authorization is required", URL: "https://modelcontextprotocol.io", ElicitationID: "p1", Consented: at}
	got, err := toWire(req, time.Time{}).request()
	if err != nil || !got.Consented.Equal(at) || got.URL != req.URL || got.ElicitationID != "p1" {
		t.Errorf("request() = %+v, %v", got, err)
	}
	form := *formReq
	form.Consented = at
	if _, err := toWire(&form, time.Time{}).request(); err == nil {
		t.Error("a wait for a form was taken")
	}
}
