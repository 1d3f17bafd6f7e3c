package demo

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestCloseWaitsForApproval: Close returns only after a consent page being served has
// finished its work, the approval and its log line, which come after the page: a
// client (or a test) that ends the server as soon as the page arrives never has the
// handler run on past the end.
func TestCloseWaitsForApproval(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	s, err := New(&Options{Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	c := s.consents.create("Link it.", func(*consent) { close(entered); <-release })
	req, _ := http.NewRequest(http.MethodPost, s.ConsentURL(c.id)+"/approve", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the page came: the approval is under way
	resp.Body.Close()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
		close(release)
		t.Fatal("Close returned while the approval was still under way")
	case <-time.After(200 * time.Millisecond): // Close still waits, as it must: let the approval end
		close(release)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(logged, "demo: consent "+c.id+" approved") {
		t.Fatalf("Close returned before the approval was logged: %q", logged)
	}
}
