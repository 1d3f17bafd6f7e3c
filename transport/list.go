package transport

import (
	"context"
	"errors"
	"fmt"

	"github.com/elicitty/elicitty/internal/safe"
)

// Bounds of one listing (tools, prompts, resources, resource templates, tasks): a
// server that sends cursors without end, or more items than anyone can use, is
// listed this far and no further, and the listing ends with a listCapError.
const (
	maxListPages = 500
	maxListItems = 10000
)

// listCapError ends a listing that reached maxListPages or maxListItems; the items
// listed so far are returned with it.
type listCapError struct {
	pages, items int
	repeated     string // a cursor the server sent twice, when that ended it
}

// Error implements error.
func (e *listCapError) Error() string {
	if e.repeated != "" {
		return fmt.Sprintf("stopped after %d pages (%d items): the server sent cursor %q twice", e.pages, e.items, safe.Line(safe.Cut(e.repeated, 40)))
	}
	return fmt.Sprintf("stopped after %d pages (%d items): elicitty lists at most %d pages and %d items, and the server sent more",
		e.pages, e.items, maxListPages, maxListItems)
}

// listAll walks the pages of one listing: page returns a cursor's items and the next
// cursor. It stops at the last page, at an error of page (returned as it is), or at a
// bound (a *listCapError).
func listAll[T any](ctx context.Context, page func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return out, err
		}
		if room := maxListItems - len(out); len(items) > room {
			return append(out, items[:room]...), &listCapError{pages: pages, items: maxListItems}
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return out, &listCapError{pages: pages, items: len(out), repeated: next}
		}
		if pages == maxListPages {
			return out, &listCapError{pages: pages, items: len(out)}
		}
		seen[next] = true
		cursor = next
	}
}

// listErr is the error a listing of method returns: a bound reached, or what wrap
// makes of a request's error.
func (s *Session) listErr(ctx context.Context, method string, err error) error {
	var ce *listCapError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %w", method, err)
	}
	return s.wrap(ctx, method, err)
}
