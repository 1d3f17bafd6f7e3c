package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/protocol"
)

// Tasks (2025-11-25, experimental; docs/protocol.md "Tasks"). go-sdk v1.8.0 knows none
// of it: the tap adds the task field to tools/call, declares and reads the tasks
// capabilities in the initialize exchange, and hands the server's tasks/* requests to
// taskServe; the tasks/* requests we send go out as extension methods (Session.Request).

// TaskStatus is the state of a task (schema.ts TaskStatus).
type TaskStatus string

// The task statuses.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether no other status can follow s.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is the state of one task as its receiver reports it (schema.ts Task). Its
// strings come from the peer: sanitize them before showing them.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	// TTL is the lifetime from creation in milliseconds; nil (JSON null) is unlimited.
	TTL *int64 `json:"ttl"`
	// PollInterval is the suggested time between tasks/get polls in milliseconds.
	PollInterval int64 `json:"pollInterval,omitempty"`
}

// TaskCaps is what a peer declared in capabilities.tasks.
type TaskCaps struct {
	List      bool `json:"list"`      // tasks/list
	Cancel    bool `json:"cancel"`    // tasks/cancel
	ToolsCall bool `json:"toolsCall"` // task-augmented tools/call
}

// The taskSupport values of a tool's execution (schema.ts ToolExecution).
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// methodTaskCall is the name under which a task-augmented tools/call leaves go-sdk (it
// refuses to send a standard method as an extension); the tap renames it tools/call.
const methodTaskCall = "elicitty/task-augmented-tools-call"

// Bounds of the requestor's polling.
const (
	defaultPollInterval = time.Second
	minPollInterval     = 100 * time.Millisecond
	maxPollInterval     = 30 * time.Second
	// DefaultTaskTTL is the lifetime asked for a task we create: long enough for a
	// person to answer the elicitations it raises.
	DefaultTaskTTL = 10 * time.Minute
)

// parseTaskCaps reads capabilities.tasks.
func parseTaskCaps(raw json.RawMessage) (TaskCaps, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return TaskCaps{}, false
	}
	var c struct {
		List     json.RawMessage `json:"list"`
		Cancel   json.RawMessage `json:"cancel"`
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return TaskCaps{}, false
	}
	set := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	return TaskCaps{List: set(c.List), Cancel: set(c.Cancel), ToolsCall: set(c.Requests.Tools.Call)}, true
}

// ServerTaskCaps returns what the server declared in capabilities.tasks (go-sdk drops it;
// the tap keeps it) and whether it declared tasks at all. In 2026-07-28 that is the tasks
// extension: tools/call may become a task and tasks/cancel exists; tasks/list does not.
func (s *Session) ServerTaskCaps() (TaskCaps, bool) {
	if s.modernEra() {
		if s.serverHasTasksExtension() {
			return TaskCaps{Cancel: true, ToolsCall: true}, true
		}
		return TaskCaps{}, false
	}
	s.tap.mu.Lock()
	raw := s.tap.serverTasks
	s.tap.mu.Unlock()
	return parseTaskCaps(raw)
}

// TaskSupport returns a tool's execution.taskSupport as the last tools listing sent it
// ("" when absent, which means forbidden).
func (s *Session) TaskSupport(tool string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskSupport[tool]
}

// taskEra reports whether the session speaks a protocol with 2025-11-25 tasks.
func (s *Session) taskEra() bool {
	v := s.Protocol()
	return v >= protocol.Version20251125 && v < protocol.Version20260728
}

// WantsTask decides whether a tools/call goes as a task: force asks for it (--task);
// a tool whose taskSupport is required always does. An error explains a forced call
// the server does not allow.
func (s *Session) WantsTask(ctx context.Context, name string, force bool) (bool, error) {
	caps, _ := s.ServerTaskCaps()
	if s.modernEra() {
		if force {
			return false, fmt.Errorf("tools/call %q as a task: in %s the server decides which calls run as tasks (tasks extension declared: %v)", name, s.Protocol(), caps.ToolsCall)
		}
		return false, nil
	}
	if !s.taskEra() || !caps.ToolsCall {
		if force {
			return false, fmt.Errorf("tools/call %q as a task: the server does not declare tasks.requests.tools.call (protocol %s)", name, s.Protocol())
		}
		return false, nil
	}
	if !s.toolsListed.Load() {
		_, _ = s.Tools(ctx)
	}
	switch s.TaskSupport(name) {
	case TaskSupportRequired:
		return true, nil
	case TaskSupportOptional:
		return force, nil
	}
	if force {
		return false, fmt.Errorf("tools/call %q as a task: the tool does not support task execution (execution.taskSupport is forbidden or absent)", name)
	}
	return false, nil
}

// TaskInfo is a task this session knows of: one it created (a tools/call) or one the
// server listed. It is a copy.
type TaskInfo struct {
	Task
	// Tool is the tool the task runs, when we created it.
	Tool string `json:"tool,omitempty"`
	// Mine reports a task this session created.
	Mine bool `json:"mine,omitempty"`
}

// noteTask records the latest state of a task and reports it as an EventTask; a tool
// names the call of ours that created it.
func (s *Session) noteTask(t Task, tool string) {
	if tool != "" {
		defer s.tap.dropHandoff(t.TaskID)
	}
	s.mu.Lock()
	if s.requested == nil {
		s.requested = map[string]*TaskInfo{}
	}
	old, ok := s.requested[t.TaskID]
	if !ok {
		if len(s.requested) >= maxKept {
			for id, ti := range s.requested {
				if ti.Status.Terminal() {
					delete(s.requested, id)
				}
			}
		}
		if len(s.requested) >= maxKept && tool == "" {
			// A server listing ever more tasks does not grow our memory: only the
			// tasks our calls created are kept past the bound.
			s.mu.Unlock()
			return
		}
		old = &TaskInfo{Tool: tool, Mine: tool != ""}
		s.requested[t.TaskID] = old
	}
	changed := old.Status != t.Status || old.StatusMessage != t.StatusMessage
	old.Task = t
	if tool != "" {
		old.Tool, old.Mine = tool, true
	}
	s.mu.Unlock()
	if changed {
		s.event(EventTask, safe.Untrusted(taskLine(t)), t.TaskID)
	}
}

// taskLine is a task's status and message on one line (unsanitized).
func taskLine(t Task) string {
	if t.StatusMessage == "" {
		return string(t.Status)
	}
	return string(t.Status) + ": " + t.StatusMessage
}

// Tasks returns the tasks this session created or saw listed, newest first.
func (s *Session) Tasks() []TaskInfo {
	s.mu.Lock()
	out := make([]TaskInfo, 0, len(s.requested))
	for _, t := range s.requested {
		out = append(out, *t)
	}
	s.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].TaskID < out[j].TaskID
	})
	return out
}

// keepHandoff records, under t.mu, the task a response to our tools/call of tool
// created (result.task.taskId in 2025-11-25, result.taskId in the tasks extension),
// until the caller notes it: between the two, the call is in flight nowhere.
func (t *tap) keepHandoff(tool string, result json.RawMessage) {
	if tool == "" || !bytes.Contains(result, []byte(`"taskId"`)) {
		return
	}
	var r struct {
		TaskID string `json:"taskId"`
		Task   struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	id := r.Task.TaskID
	if id == "" {
		id = r.TaskID
	}
	if id == "" {
		return
	}
	if t.handoff == nil || len(t.handoff) >= maxKept {
		t.handoff = map[string]handoff{}
	}
	t.handoff[id] = handoff{tool: tool, at: time.Now()}
}

// handoff is a task our tools/call of tool created, whose response arrived at at.
type handoff struct {
	tool string
	at   time.Time
}

// handoffLife bounds how long a task stays handed off: the caller notes it within
// moments, unless its call failed in between, and a stale entry must not claim the
// server's later requests.
const handoffLife = 10 * time.Second

// dropHandoff forgets the task id once its caller has noted it.
func (t *tap) dropHandoff(id string) {
	t.mu.Lock()
	delete(t.handoff, id)
	t.mu.Unlock()
}

// handoffs returns the tasks created by our calls and not yet noted, id to tool.
func (t *tap) handoffs() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[string]string
	for id, h := range t.handoff {
		if time.Since(h.at) > handoffLife {
			delete(t.handoff, id)
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[id] = h.tool
	}
	return out
}

// relatedTool returns the tool of the task a server request names in its related-task
// _meta, when this session created that task.
func (s *Session) relatedTool(meta map[string]any) (taskID, tool string) {
	rt, _ := meta[relatedTaskKey].(map[string]any)
	id, _ := rt["taskId"].(string)
	if id == "" {
		return "", ""
	}
	if tool, ok := s.tap.handoffs()[id]; ok {
		return id, tool
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti, ok := s.requested[id]; ok {
		return id, ti.Tool
	}
	return id, ""
}

// askingCall returns the call a server request belongs to, for the request's Call and
// Tool: the task of ours its related-task _meta names; else the one call in flight;
// else, with no call in flight, the one task of ours still running (servers may ask
// inside a task without naming it, as the TypeScript SDK's elicitInputStream does).
// relatedTask is the task the _meta names, even one we did not create.
func (s *Session) askingCall(meta map[string]any) (call, tool, relatedTask string) {
	relatedTask, tool = s.relatedTool(meta)
	if tool != "" {
		return "tools/call " + tool, tool, relatedTask
	}
	calls := s.tap.callsInFlight()
	if len(calls) == 1 && relatedTask == "" {
		return calls[0].method + " " + calls[0].name, calls[0].name, ""
	}
	if len(calls) > 0 || relatedTask != "" {
		return "", "", relatedTask
	}
	handoffs := s.tap.handoffs()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, name := range handoffs {
		if _, noted := s.requested[id]; noted {
			continue
		}
		if tool != "" {
			return "", "", ""
		}
		tool = name
	}
	for _, ti := range s.requested {
		if !ti.Mine || ti.Tool == "" || ti.Status.Terminal() {
			continue
		}
		if tool != "" {
			return "", "", "" // two tasks of ours run: which one asks is unknown
		}
		tool = ti.Tool
	}
	if tool == "" {
		return "", "", ""
	}
	return "tools/call " + tool, tool, ""
}

// decodeTask reads a Task and checks what the rest of the code relies on.
func decodeTask(raw json.RawMessage) (Task, error) {
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return Task{}, fmt.Errorf("unreadable task: %w", err)
	}
	if t.TaskID == "" {
		return Task{}, errors.New("task without a taskId")
	}
	switch t.Status {
	case TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled:
	default:
		return Task{}, fmt.Errorf("task %q has unknown status %q", safe.Line(t.TaskID), safe.Line(string(t.Status)))
	}
	return t, nil
}

// CallToolTask calls a tool as a task (tools/call with a task field): it polls tasks/get
// at the server's pollInterval, reports each status as an EventTask, calls tasks/result
// once the task needs input (its elicitations then arrive like any other) or ends, and
// returns that result. ttl zero asks for DefaultTaskTTL. When ctx ends first, the task
// is cancelled with tasks/cancel if the server declares it. A server that answers with
// a plain result instead of a task gets that result back.
func (s *Session) CallToolTask(ctx context.Context, name string, args map[string]any, ttl time.Duration) (*mcp.CallToolResult, []Round, error) {
	if args == nil {
		args = map[string]any{}
	}
	s.redactFileArgs(args)
	if ttl <= 0 {
		ttl = DefaultTaskTTL
	}
	ct, untrack := s.track()
	defer untrack()
	token := s.progressToken()
	params := map[string]any{
		"name": name, "arguments": args,
		"task":  map[string]any{"ttl": ttl.Milliseconds()},
		"_meta": map[string]any{"progressToken": token},
	}
	raw, err := s.requestAs(ctx, methodTaskCall, "tools/call", token, params)
	if err != nil {
		return nil, nil, s.callFailure(ct, err)
	}
	f := topFields(raw)
	tr, ok := f["task"]
	if !ok {
		// Answered at once: a plain CallToolResult.
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, nil, fmt.Errorf("tools/call: unreadable result: %w", err)
		}
		return &res, nil, nil
	}
	t, err := decodeTask(tr)
	if err != nil {
		return nil, nil, fmt.Errorf("tools/call: %w", err)
	}
	s.noteTask(t, name)
	res, err := s.pollTask(ctx, name, &task25Steps{s: s, t: t})
	if err != nil || ct.failure() != nil {
		return nil, nil, s.callFailure(ct, err)
	}
	return res, nil, nil
}

// callFailure prefers the failure of an elicitation answered during the call (an answers
// file that could not answer: exit 3) to the call's own error, as drive does.
func (s *Session) callFailure(ct *callTrack, err error) error {
	if f := ct.failure(); f != nil {
		if err != nil {
			return safe.Errorf("tools/call: %w (server said: %v)", f, err)
		}
		return fmt.Errorf("tools/call: %w", f)
	}
	return err
}

// taskSteps is what one protocol era does with a task of ours; pollTask is the one
// polling loop of every era. task25Steps (2025-11-25, below) fetches tasks/result;
// task26Steps (2026-07-28, tasks26.go) answers inputRequests with tasks/update and
// reads the result tasks/get inlines.
type taskSteps interface {
	// state is the task as last seen.
	state() Task
	// step acts on the state; done ends the polling with res or err.
	step(ctx context.Context) (res *mcp.CallToolResult, done bool, err error)
	// get polls the task's next state (tasks/get).
	get(ctx context.Context) error
	// end is called when the polling stops before the task is done (ctx ended, a poll
	// failed): it cancels the task when ctx ended, as the era allows, and returns err.
	end(ctx context.Context, err error) error
}

// DefaultTaskWait bounds the wait for a task of ours when Options.TaskWait is zero.
const DefaultTaskWait = 10 * time.Minute

// taskWait is Options.TaskWait, DefaultTaskWait when zero, and 0 (no bound) when negative.
func (s *Session) taskWait() time.Duration {
	switch w := s.opts.TaskWait; {
	case w == 0:
		return DefaultTaskWait
	case w < 0:
		return 0
	default:
		return w
	}
}

// pollTask polls a task of tool until its era's step is done, waiting the task's
// pollInterval (bounded to [minPollInterval, maxPollInterval]) between polls. The wait
// in all is bounded by taskWait, as time outside prompts (a person answering the task's
// questions does not use it up): past it, the task is cancelled as the era allows
// (tasks/cancel, when the server declares it in 2025-11-25) and the call ends with an
// error that says so and wraps ErrTimeout.
func (s *Session) pollTask(ctx context.Context, tool string, st taskSteps) (*mcp.CallToolResult, error) {
	limit := s.taskWait()
	wctx, cancel := s.boundedContext(ctx, limit, "")
	defer cancel()
	res, err := s.pollLoop(wctx, st)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(wctx), ErrTimeout) {
		t := st.state()
		return nil, fmt.Errorf("tools/call %q: task %s still %s after waiting %s; stopped waiting for it (--task-wait sets the bound): %w",
			tool, safe.Line(safe.Cut(t.TaskID, 100)), safe.Line(string(t.Status)), limit, ErrTimeout)
	}
	return res, err
}

// pollLoop is pollTask's loop, under the bounded ctx.
func (s *Session) pollLoop(ctx context.Context, st taskSteps) (*mcp.CallToolResult, error) {
	for {
		res, done, err := st.step(ctx)
		if done {
			return res, err
		}
		t := time.NewTimer(pollWait(st.state().PollInterval))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, st.end(ctx, context.Cause(ctx))
		case <-t.C:
		}
		if err := st.get(ctx); err != nil {
			return nil, st.end(ctx, err)
		}
	}
}

// pollWait is the wait before the next poll of a task that suggests ms milliseconds.
func pollWait(ms int64) time.Duration {
	wait := time.Duration(ms) * time.Millisecond
	if ms <= 0 {
		wait = defaultPollInterval
	}
	return min(max(wait, minPollInterval), maxPollInterval)
}

// task25Steps is a 2025-11-25 task of ours: polled until it needs input or ends,
// then its result fetched with tasks/result (which blocks while the server asks its
// questions).
type task25Steps struct {
	s *Session
	t Task
}

func (e *task25Steps) state() Task { return e.t }

func (e *task25Steps) step(ctx context.Context) (*mcp.CallToolResult, bool, error) {
	s, t := e.s, e.t
	if !t.Status.Terminal() && t.Status != TaskInputRequired {
		return nil, false, nil
	}
	res, err := s.TaskResult(ctx, t.TaskID)
	if err == nil {
		if cur, gerr := s.TaskGet(ctx, t.TaskID); gerr == nil {
			s.noteTask(cur, "")
		} else if !t.Status.Terminal() {
			s.noteTask(Task{TaskID: t.TaskID, Status: TaskCompleted, CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL}, "")
		}
		var out mcp.CallToolResult
		if err := json.Unmarshal(res, &out); err != nil {
			return nil, true, fmt.Errorf("tasks/result: unreadable tool result: %w", err)
		}
		return &out, true, nil
	}
	if t.Status.Terminal() || !errors.Is(err, ErrTimeout) || ctx.Err() != nil {
		return nil, true, e.end(ctx, err)
	}
	// tasks/result blocks until the task ends: past the request timeout with no
	// question asked, go back to polling.
	return nil, false, nil
}

func (e *task25Steps) get(ctx context.Context) error {
	cur, err := e.s.TaskGet(ctx, e.t.TaskID)
	if err != nil {
		return err
	}
	e.s.noteTask(cur, "")
	e.t = cur
	return nil
}

func (e *task25Steps) end(ctx context.Context, err error) error { return e.s.endTask(ctx, e.t, err) }

// endTask cancels a task we stop waiting for (when the server declares tasks/cancel and
// ctx ended) and returns err.
func (s *Session) endTask(ctx context.Context, t Task, err error) error {
	if ctx.Err() == nil || t.Status.Terminal() {
		return err
	}
	if caps, _ := s.ServerTaskCaps(); caps.Cancel {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if ct, cerr := s.TaskCancel(cctx, t.TaskID); cerr == nil {
			s.noteTask(ct, "")
		}
	}
	return err
}

// TaskGet asks for the state of a task (tasks/get).
func (s *Session) TaskGet(ctx context.Context, id string) (Task, error) {
	raw, err := s.Request(ctx, "tasks/get", map[string]any{"taskId": id})
	if err != nil {
		return Task{}, err
	}
	t, err := decodeTask(raw)
	if err != nil {
		return Task{}, fmt.Errorf("tasks/get: %w", err)
	}
	return t, nil
}

// TaskResult fetches the result of a task (tasks/result), as the server sent it. It
// blocks until the task ends; the server's questions for the task arrive meanwhile.
func (s *Session) TaskResult(ctx context.Context, id string) (json.RawMessage, error) {
	return s.Request(ctx, "tasks/result", map[string]any{"taskId": id})
}

// TaskCancel cancels a task (tasks/cancel) and returns its new state. In 2026-07-28 the
// server only acknowledges: the state returned is the last one known, and the task may
// still end otherwise.
func (s *Session) TaskCancel(ctx context.Context, id string) (Task, error) {
	raw, err := s.Request(ctx, "tasks/cancel", map[string]any{"taskId": id})
	if err != nil {
		return Task{}, err
	}
	if s.modernEra() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ti, ok := s.requested[id]; ok {
			ti.StatusMessage = "cancellation requested"
			return ti.Task, nil
		}
		return Task{TaskID: id, Status: TaskWorking, StatusMessage: "cancellation requested"}, nil
	}
	t, err := decodeTask(raw)
	if err != nil {
		return Task{}, fmt.Errorf("tasks/cancel: %w", err)
	}
	s.noteTask(t, "")
	return t, nil
}

// TaskList lists the server's tasks (tasks/list, every page up to maxListPages and
// maxListItems).
func (s *Session) TaskList(ctx context.Context) ([]Task, error) {
	if s.modernEra() {
		return nil, fmt.Errorf("tasks/list: %s has no tasks/list (the tasks extension lists nothing)", s.Protocol())
	}
	if caps, _ := s.ServerTaskCaps(); !caps.List {
		return nil, fmt.Errorf("tasks/list: the server does not declare tasks.list")
	}
	out, err := listAll(ctx, func(ctx context.Context, cursor string) ([]Task, string, error) {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := s.Request(ctx, "tasks/list", params)
		if err != nil {
			return nil, "", err
		}
		var page struct {
			Tasks      []json.RawMessage `json:"tasks"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, "", fmt.Errorf("tasks/list: unreadable result: %w", err)
		}
		var tasks []Task
		for _, r := range page.Tasks {
			t, err := decodeTask(r)
			if err != nil {
				s.tap.log.Notef(s.server.Name, "tasks/list: skipped an entry: %v", err)
				continue
			}
			s.noteTask(t, "")
			tasks = append(tasks, t)
		}
		return tasks, page.NextCursor, nil
	})
	var ce *listCapError
	if errors.As(err, &ce) {
		return out, fmt.Errorf("tasks/list: %w", err)
	}
	return out, err
}

// taskOut edits a request we send for tasks: a task-augmented tools/call leaves go-sdk
// under methodTaskCall and is renamed; initialize gets our capabilities.tasks.
func (t *tap) taskOut(m *jsonrpc.Request) {
	switch m.Method {
	case methodTaskCall:
		m.Method = "tools/call"
	case "initialize":
		t.mu.Lock()
		caps := t.clientTasks
		t.mu.Unlock()
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if caps != nil && p.ProtocolVersion >= protocol.Version20251125 && p.ProtocolVersion < protocol.Version20260728 {
			m.Params = withCapability(m.Params, "tasks", caps)
		}
	}
}

// withCapability returns initialize params with capabilities[name] set to v.
func withCapability(params json.RawMessage, name string, v json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil || obj == nil {
		return params
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(obj["capabilities"], &caps) != nil || caps == nil {
		caps = map[string]json.RawMessage{}
	}
	caps[name] = v
	c, err := json.Marshal(caps)
	if err != nil {
		return params
	}
	obj["capabilities"] = c
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

// noteServerTasks keeps capabilities.tasks of the server's initialize result.
func (t *tap) noteServerTasks(result json.RawMessage) {
	var r struct {
		Capabilities struct {
			Tasks json.RawMessage `json:"tasks"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	t.mu.Lock()
	t.serverTasks = r.Capabilities.Tasks
	t.mu.Unlock()
}
