package demo

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestApprovePageBeforeCompletion: the approve button's page is written whole before
// the approval completes the flow, since completing it lets the client end the server
// before a page written later would reach the browser.
func TestApprovePageBeforeCompletion(t *testing.T) {
	s, _ := newDemo(t)
	rec := httptest.NewRecorder()
	var atApproval string
	c := s.consents.create("Link it.", func(*consent) { atApproval = rec.Body.String() })
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/consent/"+c.id+"/approve", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	s.consentHandler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !c.approved() {
		t.Fatalf("status %d, approved %v; want 200 and approved", rec.Code, c.approved())
	}
	if !strings.Contains(atApproval, "</html>") || atApproval != rec.Body.String() {
		t.Errorf("when the approval completed the flow the page was %d of %d bytes", len(atApproval), rec.Body.Len())
	}
	if rec.Header().Get("Content-Length") == "" {
		t.Error("the page has no Content-Length")
	}
}
