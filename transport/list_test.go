package transport

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestListingsBounded: a server that sends a new cursor with every page, or more items
// than anyone can use, is listed up to maxListPages pages or maxListItems items; the
// listing then ends with an error that says so, and what was listed is returned.
func TestListingsBounded(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		perPage   int
		list      func(s *Session) (int, error)
		wantItems int
		wantPages int64
	}{
		{"tools, endless cursors", "tools/list", 1, func(s *Session) (int, error) {
			ts, err := s.Tools(context.Background())
			return len(ts), err
		}, maxListPages, maxListPages},
		{"prompts, too many items", "prompts/list", 3000, func(s *Session) (int, error) {
			ps, err := s.Prompts(context.Background())
			return len(ps), err
		}, maxListItems, 4},
		{"tasks, endless cursors", "tasks/list", 1, func(s *Session) (int, error) {
			ts, err := s.TaskList(context.Background())
			return len(ts), err
		}, maxListPages, maxListPages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages atomic.Int64
			page := func(n int64) string {
				var b strings.Builder
				for i := range tt.perPage {
					if i > 0 {
						b.WriteByte(',')
					}
					switch tt.method {
					case "tools/list":
						fmt.Fprintf(&b, `{"name":"t-%d-%d","inputSchema":{"type":"object"}}`, n, i)
					case "prompts/list":
						fmt.Fprintf(&b, `{"name":"p-%d-%d"}`, n, i)
					case "tasks/list":
						fmt.Fprintf(&b, `{"taskId":"x-%d-%d","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}`, n, i)
					}
				}
				key := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "tasks/list": "tasks"}[tt.method]
				return fmt.Sprintf(`{%q:[%s],"nextCursor":"c-%d"}`, key, b.String(), n)
			}
			_, _, tr := taskServer(t, serverTaskCaps+`,"prompts":{}`, func(rs *rawServer, m rawMsg) {
				if m.Method == tt.method {
					rs.reply(m.ID, page(pages.Add(1)))
				}
			})
			s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
			n, err := tt.list(s)
			if err == nil || !strings.Contains(err.Error(), tt.method+": stopped after") || !strings.Contains(err.Error(), "at most") {
				t.Fatalf("err = %v, want %s to stop with the bound named", err, tt.method)
			}
			if n != tt.wantItems {
				t.Errorf("%d items returned, want %d", n, tt.wantItems)
			}
			if got := pages.Load(); got != tt.wantPages {
				t.Errorf("%d pages asked for, want %d", got, tt.wantPages)
			}
		})
	}
}
