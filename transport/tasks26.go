package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/protocol"
)

// Tasks in 2026-07-28: the io.modelcontextprotocol/tasks extension (SEP-2663). We
// declare it in the per-request capabilities; a server may then answer tools/call with
// resultType "task" (a CreateTaskResult), which the tap keeps by the request's progress
// token. We poll tasks/get, whose result inlines the final result, the error, or the
// inputRequests we answer with tasks/update; tasks/cancel is an acknowledgement only.
// There is no tasks/result, no tasks/list and no client-hosted task.

// TasksExtension is the identifier of the tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// task26 is a 2026-07-28 task (SEP-2663 DetailedTask).
type task26 struct {
	TaskID         string          `json:"taskId"`
	Status         TaskStatus      `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
}

// task returns the Task every era shares.
func (t task26) task() Task {
	return Task{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMs, PollInterval: t.PollIntervalMs}
}

func decodeTask26(raw json.RawMessage) (task26, error) {
	var t task26
	if err := json.Unmarshal(raw, &t); err != nil {
		return task26{}, fmt.Errorf("unreadable task: %w", err)
	}
	if _, err := decodeTask(raw); err != nil {
		return task26{}, err
	}
	return t, nil
}

// modernEra reports whether the session speaks 2026-07-28 or later.
func (s *Session) modernEra() bool { return s.Protocol() >= protocol.Version20260728 }

// serverHasTasksExtension reports whether the server declared the tasks extension.
func (s *Session) serverHasTasksExtension() bool {
	c := s.Capabilities()
	if c == nil || c.Extensions == nil {
		return false
	}
	_, ok := c.Extensions[TasksExtension]
	return ok
}

// progressTokenOf returns params._meta.progressToken as text ("" when absent).
func progressTokenOf(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Token any `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta.Token == nil {
		return ""
	}
	return fmt.Sprint(p.Meta.Token)
}

// keepCreatedTask keeps a CreateTaskResult (resultType "task") of a tools/call by its
// progress token, for the call that sent it. t.mu is held.
func (t *tap) keepCreatedTask(token string, result json.RawMessage) {
	if token == "" {
		return
	}
	if t.created == nil {
		t.created = map[string]json.RawMessage{}
	}
	if len(t.created) >= maxKept {
		clear(t.created)
	}
	t.created[token] = append(json.RawMessage(nil), result...)
}

// takeCreatedTask returns and forgets the CreateTaskResult of the request with token.
func (t *tap) takeCreatedTask(token string) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw := t.created[token]
	delete(t.created, token)
	return raw
}

// awaitTask26 polls a 2026-07-28 task of tool name until it ends, answering its input
// requests with tasks/update, and returns its result.
func (s *Session) awaitTask26(ctx context.Context, name string, created json.RawMessage) (*mcp.CallToolResult, []Round, error) {
	t, err := decodeTask26(created)
	if err != nil {
		return nil, nil, fmt.Errorf("tools/call: %w", err)
	}
	s.noteTask(t.task(), name)
	e := &task26Steps{s: s, t: t, name: name, answered: map[string]bool{}}
	res, err := s.pollTask(ctx, name, e)
	return res, e.rounds, err
}

// task26Steps is a 2026-07-28 task of ours (taskSteps): tasks/get inlines its result,
// its error or the inputRequests answered with tasks/update.
type task26Steps struct {
	s        *Session
	t        task26
	name     string
	answered map[string]bool // inputRequests keys answered: a key is never reused
	rounds   []Round
}

func (e *task26Steps) state() Task { return e.t.task() }

func (e *task26Steps) step(ctx context.Context) (*mcp.CallToolResult, bool, error) {
	s, t := e.s, e.t
	what := "tools/call " + e.name
	switch t.Status {
	case TaskCompleted:
		if len(t.Result) == 0 {
			return nil, false, nil // tasks/get inlines it; a CreateTaskResult does not
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(t.Result, &res); err != nil {
			return nil, true, fmt.Errorf("%s: unreadable task result: %w", what, err)
		}
		return &res, true, nil
	case TaskFailed:
		if t.Error != nil {
			return nil, true, s.wrap(ctx, what, t.Error)
		}
		return nil, true, fmt.Errorf("%s: task failed: %s", what, t.StatusMessage)
	case TaskCancelled:
		return nil, true, fmt.Errorf("%s: task cancelled: %s", what, t.StatusMessage)
	case TaskInputRequired:
		if len(t.InputRequests) == 0 {
			return nil, false, nil
		}
		var reqs mcp.InputRequestMap
		if err := json.Unmarshal(t.InputRequests, &reqs); err != nil {
			return nil, true, fmt.Errorf("%s: unreadable inputRequests: %w", what, err)
		}
		for k := range reqs {
			if e.answered[k] {
				delete(reqs, k)
			}
		}
		if len(reqs) == 0 {
			return nil, false, nil
		}
		answers, round, _, err := s.answerInputs(ctx, what, "tools/call", e.name, reqs, nil)
		e.rounds = append(e.rounds, round)
		if err != nil {
			return nil, true, e.end(ctx, err)
		}
		if _, err := s.Request(ctx, "tasks/update", map[string]any{"taskId": t.TaskID, "inputResponses": answers}); err != nil {
			return nil, true, e.end(ctx, err)
		}
		for k := range answers {
			e.answered[k] = true
		}
	}
	return nil, false, nil
}

func (e *task26Steps) get(ctx context.Context) error {
	raw, err := e.s.Request(ctx, "tasks/get", map[string]any{"taskId": e.t.TaskID})
	if err != nil {
		return err
	}
	t, err := decodeTask26(raw)
	if err != nil {
		return fmt.Errorf("tasks/get: %w", err)
	}
	e.t = t
	e.s.noteTask(t.task(), "")
	return nil
}

func (e *task26Steps) end(ctx context.Context, err error) error { return e.s.endTask26(ctx, e.t, err) }

// endTask26 sends tasks/cancel (an acknowledgement only) for a task we stop waiting for.
func (s *Session) endTask26(ctx context.Context, t task26, err error) error {
	if ctx.Err() == nil || t.Status.Terminal() {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, cerr := s.Request(cctx, "tasks/cancel", map[string]any{"taskId": t.TaskID}); cerr == nil {
		s.tap.log.Notef(s.server.Name, "task %s: cancellation acknowledged", t.TaskID)
	}
	return err
}
