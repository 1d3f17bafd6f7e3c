package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/internal/testkit"
	"github.com/elicitty/elicitty/transport"
)

// taskFake is a fake session that also has tasks: one it runs as a requestor and one
// it runs for the server.
type taskFake struct {
	*fakeSession
	tmu       sync.Mutex
	mine      []transport.TaskInfo
	served    []transport.Task
	caps      transport.TaskCaps
	cancelled []string
	listed    int
}

func (s *taskFake) Tasks() []transport.TaskInfo {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	return append([]transport.TaskInfo(nil), s.mine...)
}
func (s *taskFake) ServedTasks() []transport.Task {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	return append([]transport.Task(nil), s.served...)
}
func (s *taskFake) ServerTaskCaps() (transport.TaskCaps, bool) { return s.caps, true }
func (s *taskFake) TaskList(context.Context) ([]transport.Task, error) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	s.listed++
	return nil, nil
}
func (s *taskFake) TaskCancel(_ context.Context, id string) (transport.Task, error) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	for i := range s.mine {
		if s.mine[i].TaskID == id {
			s.cancelled = append(s.cancelled, id)
			s.mine[i].Status, s.mine[i].StatusMessage = transport.TaskCancelled, "cancelled by request"
			return s.mine[i].Task, nil
		}
	}
	return transport.Task{}, errors.New("no such task")
}

func newTaskFake() *taskFake {
	ttl := int64(60000)
	return &taskFake{
		fakeSession: demoSession(),
		caps:        transport.TaskCaps{List: true, Cancel: true, ToolsCall: true},
		mine: []transport.TaskInfo{{Task: transport.Task{TaskID: "786512e2-9e0d-44bd-8f29", Status: transport.TaskWorking,
			StatusMessage: "Synthesizing \x1b[31mfindings\x1b[0m...", CreatedAt: "2026-07-28T11:59:30Z", LastUpdatedAt: "2026-07-28T11:59:50Z", TTL: &ttl, PollInterval: 1000},
			Tool: "simulate-research-query", Mine: true}},
		served: []transport.Task{{TaskID: "0a1b2c3d4e5f", Status: transport.TaskCompleted, CreatedAt: "2026-07-28T11:58:00Z", LastUpdatedAt: "2026-07-28T11:58:20Z", TTL: &ttl}},
	}
}

func taskHarness(t *testing.T, s *taskFake) *harness {
	t.Helper()
	h := newHarness(t, Options{Servers: []config.Server{{Name: "demo", Command: "x"}},
		dial: func(context.Context, config.Server, elicit.Answerer, func(transport.Event)) (session, error) {
			return s, nil
		}})
	h.run(h.m.Init())
	return h
}

// TestTasksView: t shows every task with its status and message (server text
// sanitized), x cancels the selected task with tasks/cancel, a task run for the server
// cannot be cancelled from here, esc closes the view.
func TestTasksView(t *testing.T) {
	s := newTaskFake()
	h := taskHarness(t, s)
	h.keys("t")
	got := h.screen()
	testkit.Golden(t, "tasks_view", got)
	for _, want := range []string{"Tasks: 2", "demo 786512e2-9…  working  simulate-research-query", "Synthesizing findings...", "completed  for the server", "x cancel (tasks/cancel)"} {
		if !strings.Contains(got, want) {
			t.Errorf("tasks view lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(h.m.View().Content, "\x1b[31m") {
		t.Error("a status message's escape sequence reached the screen")
	}
	if s.listed != 1 {
		t.Errorf("opening the view called tasks/list %d times, want 1", s.listed)
	}

	h.keys("x")
	if len(s.cancelled) != 1 || s.cancelled[0] != "786512e2-9e0d-44bd-8f29" {
		t.Fatalf("x cancelled %v", s.cancelled)
	}
	got = h.screen()
	if !strings.Contains(got, "cancelled") || !strings.Contains(got, "task 786512e2-9… cancelled") {
		t.Errorf("after x the task is not shown cancelled:\n%s", got)
	}
	h.keys("x")
	if len(s.cancelled) != 1 || !strings.Contains(h.screen(), "that task has ended") {
		t.Errorf("x on an ended task: cancelled %v\n%s", s.cancelled, h.screen())
	}
	h.keys("j", "x")
	if !strings.Contains(h.screen(), "answer it in the Inbox") {
		t.Errorf("x on a task run for the server:\n%s", h.screen())
	}
	h.keys("<esc>")
	if strings.Contains(h.screen(), "Tasks: 2") {
		t.Error("esc did not close the tasks view")
	}
}

// TestTaskEventShown: a task's new status reaches the status bar and the view.
func TestTaskEventShown(t *testing.T) {
	s := newTaskFake()
	h := taskHarness(t, s)
	s.tmu.Lock()
	s.mine[0].Status, s.mine[0].StatusMessage = transport.TaskInputRequired, "which topic?"
	s.tmu.Unlock()
	h.send(eventMsg{Server: "demo", Kind: transport.EventTask, ID: "786512e2-9e0d-44bd-8f29", Text: safe.Untrusted("input_required: which \x1b]0;x\atopic?")})
	if got := h.screen(); !strings.Contains(got, "demo: task 786512e2-9… input_required: which topic?") {
		t.Errorf("status bar lacks the task's status:\n%s", got)
	}
	h.keys("t")
	if got := h.screen(); !strings.Contains(got, "input_required") || !strings.Contains(got, "which topic?") {
		t.Errorf("the view lacks the new status:\n%s", got)
	}
}
