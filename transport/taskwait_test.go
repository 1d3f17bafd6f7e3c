package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTaskWaitBounded: a task that stays "working" is not polled forever, in either
// era: past Options.TaskWait the call ends with a message that says what happened and
// how to wait longer, wrapping ErrTimeout, and the task is cancelled.
func TestTaskWaitBounded(t *testing.T) {
	const wait = 300 * time.Millisecond
	check := func(t *testing.T, err error, took time.Duration, cancels []rawMsg) {
		t.Helper()
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "still working after waiting 300ms") || !strings.Contains(err.Error(), "--task-wait") {
			t.Errorf("err = %v, want the task still working after the wait, and the flag", err)
		}
		if took > 5*time.Second {
			t.Errorf("the call took %s with a %s task wait", took, wait)
		}
		if len(cancels) != 1 {
			t.Errorf("%d tasks/cancel sent, want 1", len(cancels))
		}
	}
	t.Run("2025-11-25", func(t *testing.T) {
		rs, _, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {
			switch m.Method {
			case "tools/list":
				rs.reply(m.ID, researchTools)
			case "tools/call":
				rs.reply(m.ID, `{"task":`+taskJSON("working", "started")+`}`)
			case "tasks/get":
				rs.reply(m.ID, taskJSON("working", "forever"))
			case "tasks/cancel":
				rs.reply(m.ID, taskJSON("cancelled", "by request"))
			}
		})
		s := connectRaw(t, tr, Options{Protocol: "2025-11-25", TaskWait: wait})
		start := time.Now()
		_, _, err := s.CallTool(context.Background(), "research", nil)
		check(t, err, time.Since(start), rs.received("tasks/cancel"))
	})
	t.Run("2026-07-28", func(t *testing.T) {
		rs, s, _, _ := modernTaskServer(t, func(rs *rawServer, m rawMsg) {
			switch m.Method {
			case "tools/call":
				rs.reply(m.ID, task26Created)
			case "tasks/get":
				rs.reply(m.ID, modernTask("working", ""))
			case "tasks/cancel":
				rs.reply(m.ID, `{"resultType":"complete"}`)
			}
		})
		s.opts.TaskWait = wait
		start := time.Now()
		_, _, err := s.CallTool(context.Background(), "deploy", nil)
		check(t, err, time.Since(start), rs.received("tasks/cancel"))
	})
}

func TestTaskWaitDefault(t *testing.T) {
	for _, tt := range []struct{ set, want time.Duration }{{0, DefaultTaskWait}, {-1, 0}, {time.Minute, time.Minute}} {
		s := &Session{opts: Options{TaskWait: tt.set}}
		if got := s.taskWait(); got != tt.want {
			t.Errorf("TaskWait %s: bound %s, want %s", tt.set, got, tt.want)
		}
	}
}
