package oauth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzCallback(f *testing.F) {
	f.Add("state=s1&code=c1")
	f.Add("state=s1&error=access_denied&error_description=no")
	f.Add("state=s2&code=c1")
	f.Add("code=c1")
	f.Add("state=s1&state=s2&code=%00")
	f.Add("%zz")
	f.Fuzz(func(t *testing.T, query string) {
		l := &loopback{res: make(chan callbackResult, 1)}
		l.expect("s1")
		rec := httptest.NewRecorder()
		l.serve(rec, &http.Request{Method: http.MethodGet, URL: &url.URL{Path: callbackPath, RawQuery: query}, Header: http.Header{}})
		q, _ := url.ParseQuery(query)
		select {
		case r := <-l.res:
			if q.Get("state") != "s1" {
				t.Fatalf("accepted a callback with state %q", q.Get("state"))
			}
			if r.err == nil && (r.res == nil || r.res.Code != q.Get("code")) {
				t.Fatalf("result %+v does not carry the code", r.res)
			}
		default:
			if q.Get("state") == "s1" && (q.Get("code") != "" || q.Get("error") != "") {
				t.Fatalf("a valid callback was not accepted (HTTP %d)", rec.Code)
			}
		}
	})
}

func TestLegacyIssuerOnlyRelaxesTheServersOwnRootDocument(t *testing.T) {
	var srvURL string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"issuer":"`+srvURL+`/oauth","token_endpoint":"`+srvURL+`/oauth/token"}`)
	}))
	defer ts.Close()
	srvURL = ts.URL
	tests := []struct {
		name, origin, path string
		wantIssuer         string
	}{
		{"own root document", ts.URL, rootASMetadataPath, ts.URL},
		{"path-inserted document", ts.URL, rootASMetadataPath + "/oauth", ts.URL + "/oauth"},
		{"another origin's document", "http://127.0.0.1:1", rootASMetadataPath, ts.URL + "/oauth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &http.Client{Transport: &legacyIssuer{base: http.DefaultTransport, origin: tt.origin}}
			resp, err := c.Get(ts.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := strings.Contains(string(b), `"issuer":"`+tt.wantIssuer+`"`)
			if diff := cmp.Diff(true, got); diff != "" {
				t.Errorf("issuer in %s, want %s (-want +got):\n%s", b, tt.wantIssuer, diff)
			}
		})
	}
}
