package consent

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPendingCompleteIgnoresUnknownAndDuplicates(t *testing.T) {
	var p Pending
	if p.Complete("demo", "lnk-7") {
		t.Error("Complete of an unknown id reported known")
	}
	p.Register("demo", "lnk-7")
	if p.Complete("other", "lnk-7") {
		t.Error("Complete matched an id of another server")
	}
	if !p.Complete("demo", "lnk-7") {
		t.Error("Complete of a waiting id reported unknown")
	}
	if p.Complete("demo", "lnk-7") {
		t.Error("duplicate Complete reported known")
	}
	p.Register("demo", "lnk-8")
	if !p.Finish("demo", "lnk-8", Declined) || p.Complete("demo", "lnk-8") {
		t.Error("a declined id must not complete")
	}
	want := []Entry{{"demo", "lnk-7", Completed}, {"demo", "lnk-8", Declined}}
	if diff := cmp.Diff(want, p.Entries()); diff != "" {
		t.Errorf("Entries (-want +got):\n%s", diff)
	}
	p.Forget("demo", "lnk-7", "lnk-8")
	if got := p.Entries(); len(got) != 0 {
		t.Errorf("after Forget: %v", got)
	}
}

func TestPendingWaitForAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p Pending
		p.Register("demo", "a")
		p.Register("demo", "b")
		done := make(chan error, 1)
		go func() { done <- p.Wait(context.Background(), "demo", "a", "b") }()

		synctest.Wait()
		p.Complete("demo", "a")
		p.Complete("demo", "zzz") // stray: ignored
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Wait returned %v with b still waiting", err)
		default:
		}
		p.Complete("demo", "b")
		if err := <-done; err != nil {
			t.Fatalf("Wait = %v, want nil", err)
		}
	})
}

func TestPendingWaitEnds(t *testing.T) {
	tests := []struct {
		name  string
		act   func(p *Pending)
		check func(error) bool
	}{
		{"declined", func(p *Pending) { p.Finish("demo", "a", Declined) }, func(err error) bool {
			var nw *NotWaitingError
			return errors.As(err, &nw) && nw.State == Declined && nw.ID == "a"
		}},
		{"expired", func(p *Pending) { p.Finish("demo", "a", Expired) }, func(err error) bool {
			var nw *NotWaitingError
			return errors.As(err, &nw) && nw.State == Expired
		}},
		{"forgotten", func(p *Pending) { p.Forget("demo", "a") }, func(err error) bool {
			var nw *NotWaitingError
			return errors.As(err, &nw) && nw.State == 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var p Pending
				p.Register("demo", "a")
				done := make(chan error, 1)
				go func() { done <- p.Wait(context.Background(), "demo", "a") }()
				synctest.Wait()
				tt.act(&p)
				if err := <-done; !tt.check(err) {
					t.Errorf("Wait = %v", err)
				}
			})
		})
	}
}

func TestPendingWaitTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p Pending
		p.Register("demo", "a")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		err := p.Wait(ctx, "demo", "a")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Minute {
			t.Errorf("Wait = %v after %v; want DeadlineExceeded after 1m", err, time.Since(start))
		}
		if s, _ := p.State("demo", "a"); s != Waiting {
			t.Errorf("state after timeout = %v; Wait must not change it", s)
		}
	})
}

func TestPendingUnknownIDFailsFast(t *testing.T) {
	var p Pending
	if err := p.Wait(context.Background(), "demo", "never"); err == nil {
		t.Error("Wait on an unregistered id returned nil")
	}
	if err := p.Wait(context.Background(), "demo"); err != nil {
		t.Errorf("Wait with no ids = %v", err)
	}
}
