package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/safe"
)

// The receiving side of tasks: a server may send elicitation/create (and, with sampling
// declared, sampling/createMessage) with a task field (tasks.requests declares them); we answer at once with a
// CreateTaskResult, keep the task while a person answers, and serve tasks/get,
// tasks/result, tasks/list and tasks/cancel for it.
//
// go-sdk v1.8.0 answers every method it does not know with "method not found" before
// any middleware runs, so the tap hands the server's tasks/* requests to our middleware
// disguised as a ping whose _meta carries the real method and params (servedTaskKey);
// go-sdk then writes our answer on the right stream (stdio, the POST's SSE stream).
//
// # Task-augmented requests
//
// Session.startTask runs any request as a task: a receiving middleware that finds
// params.task calls it with the method and the work that produces the request's result,
// and returns what it returns. Session.taskRequests lists the methods that do, which is
// what capabilities.tasks.requests declares (nothing is declared that does not run).
// go-sdk's sampling params have no task field, so the tap moves a sampling request's
// params.task into its _meta (carrySamplingTask) for the middleware to find.

// servedTaskKey is the _meta key of the ping that carries a server's tasks/* request.
const servedTaskKey = "elicitty/served-task-request"

// Bounds of the tasks we keep for servers.
const (
	maxServedTTL   = time.Hour // a longer ttl asked for is cut to this
	maxServedTasks = 64        // at most this many kept; the oldest ended ones go first
	taskPageSize   = 50        // tasks/list page
)

// servedTaskMethod reports whether method is one of the tasks/* requests we serve.
func servedTaskMethod(method string) bool {
	switch method {
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
		return true
	}
	return false
}

// disguiseTaskRequest returns the ping that carries a tasks/* request to our middleware.
func disguiseTaskRequest(m *jsonrpc.Request) *jsonrpc.Request {
	params := m.Params
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	b, err := json.Marshal(map[string]any{"_meta": map[string]any{servedTaskKey: map[string]any{"method": m.Method, "params": params}}})
	if err != nil {
		return m
	}
	return &jsonrpc.Request{ID: m.ID, Method: "ping", Params: b}
}

// taskServe keeps the tasks this client runs for its server. It is safe for concurrent
// use; its zero value is not usable (newTaskServe).
type taskServe struct {
	ctx    context.Context // ends when the session closes
	stop   context.CancelFunc
	notify func(Task) // sends notifications/tasks/status; nil sends none
	now    func() time.Time

	mu    sync.Mutex
	tasks map[string]*servedTask
	order []string // task ids in creation order
}

// servedTask is one task and, once it ended, the outcome of its request.
type servedTask struct {
	task    Task
	method  string
	done    chan struct{} // closed at a terminal status
	result  json.RawMessage
	err     *jsonrpc.Error
	cancel  context.CancelFunc
	expires time.Time // zero: never
}

func newTaskServe(notify func(Task)) *taskServe {
	ctx, stop := context.WithCancel(context.Background())
	return &taskServe{ctx: ctx, stop: stop, notify: notify, now: time.Now, tasks: map[string]*servedTask{}}
}

// close cancels the work of every task (their forms close).
func (ts *taskServe) close() { ts.stop() }

// timestamp formats t as the ISO 8601 timestamps of Task.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// newTaskID returns an unguessable task id (the spec asks for one where the task is not
// bound to an authorization context).
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TaskWork is the work of a task-augmented request: it runs once the CreateTaskResult is
// on its way, on a context that tasks/cancel and the end of the session cancel, and
// returns the request's result, or a *jsonrpc.Error for the server (any other error
// becomes an internal error).
type TaskWork func(ctx context.Context) (mcp.Result, error)

// requestedTTL reads params.task.ttl (milliseconds); ok is false without a task field.
func requestedTTL(raw json.RawMessage) (ttl time.Duration, ok bool) {
	if !bytes.Contains(raw, []byte("task")) && !bytes.Contains(raw, []byte(`\u`)) {
		return 0, false // no "task" member, even escaped: nothing to read (params may be megabytes)
	}
	f := topFields(raw)
	tr, has := f["task"]
	if !has || string(tr) == "null" {
		return 0, false
	}
	var p struct {
		TTL *float64 `json:"ttl"`
	}
	if json.Unmarshal(tr, &p) != nil || p.TTL == nil || *p.TTL <= 0 {
		return maxServedTTL, true
	}
	return min(time.Duration(*p.TTL)*time.Millisecond, maxServedTTL), true
}

// start creates a task for a request of method and runs work for it.
func (ts *taskServe) start(method string, ttl time.Duration, work TaskWork) (Task, error) {
	now := ts.now()
	ms := ttl.Milliseconds()
	t := Task{TaskID: newTaskID(), Status: TaskWorking, StatusMessage: "waiting for the user",
		CreatedAt: timestamp(now), LastUpdatedAt: timestamp(now), TTL: &ms, PollInterval: 1000}
	wctx, cancel := context.WithCancel(ts.ctx)
	st := &servedTask{task: t, method: method, done: make(chan struct{}), cancel: cancel, expires: now.Add(ttl)}
	ts.mu.Lock()
	ts.purge(now)
	if len(ts.tasks) >= maxServedTasks {
		ts.mu.Unlock()
		cancel()
		return Task{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("too many tasks (%d) waiting for the user", maxServedTasks)}
	}
	ts.tasks[t.TaskID] = st
	ts.order = append(ts.order, t.TaskID)
	ts.mu.Unlock()
	go func() {
		res, err := work(wctx)
		ts.finish(t.TaskID, res, err)
	}()
	return t, nil
}

// finish records the outcome of a task's work, unless the task was cancelled.
func (ts *taskServe) finish(id string, res mcp.Result, err error) {
	var raw json.RawMessage
	var rpcErr *jsonrpc.Error
	if err == nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			err = merr
		} else {
			raw = b
		}
	}
	if err != nil {
		if re, ok := err.(*jsonrpc.Error); ok {
			rpcErr = re
		} else {
			rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	}
	ts.mu.Lock()
	st, ok := ts.tasks[id]
	if !ok || st.task.Status.Terminal() {
		ts.mu.Unlock()
		return
	}
	st.result, st.err = raw, rpcErr
	st.task.Status, st.task.StatusMessage = TaskCompleted, ""
	if rpcErr != nil {
		st.task.Status, st.task.StatusMessage = TaskFailed, rpcErr.Message
	}
	st.task.LastUpdatedAt = timestamp(ts.now())
	t := st.task
	ts.mu.Unlock()
	// The notification goes first: a server that fetches the result hears of the end
	// before it.
	ts.sendStatus(t)
	close(st.done)
}

func (ts *taskServe) sendStatus(t Task) {
	if ts.notify != nil {
		ts.notify(t)
	}
}

// purge forgets tasks past their ttl (their work is cancelled) and, over the bound, the
// oldest ended ones. ts.mu is held.
func (ts *taskServe) purge(now time.Time) {
	keep := ts.order[:0]
	over := len(ts.order) - maxServedTasks + 1
	for _, id := range ts.order {
		st := ts.tasks[id]
		drop := !st.expires.IsZero() && now.After(st.expires)
		if !drop && over > 0 && st.task.Status.Terminal() {
			drop = true
			over--
		}
		if drop {
			st.cancel()
			delete(ts.tasks, id)
			continue
		}
		keep = append(keep, id)
	}
	ts.order = keep
}

// lookup returns a task or the -32602 error the spec asks for.
func (ts *taskServe) lookup(id string) (*servedTask, error) {
	ts.purge(ts.now())
	st, ok := ts.tasks[id]
	if !ok {
		return nil, invalidParams("Failed to retrieve task: Task not found")
	}
	return st, nil
}

// served answers one tasks/* request of the server.
func (ts *taskServe) served(ctx context.Context, method string, params json.RawMessage) (mcp.Result, error) {
	var p struct {
		TaskID string `json:"taskId"`
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, invalidParams("unreadable " + method + " params")
	}
	switch method {
	case "tasks/get":
		ts.mu.Lock()
		defer ts.mu.Unlock()
		st, err := ts.lookup(p.TaskID)
		if err != nil {
			return nil, err
		}
		return taskReply(st.task)
	case "tasks/cancel":
		ts.mu.Lock()
		st, err := ts.lookup(p.TaskID)
		if err != nil {
			ts.mu.Unlock()
			return nil, err
		}
		if st.task.Status.Terminal() {
			s := st.task.Status
			ts.mu.Unlock()
			return nil, invalidParams(fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", s))
		}
		st.task.Status, st.task.StatusMessage = TaskCancelled, "cancelled by the server"
		st.task.LastUpdatedAt = timestamp(ts.now())
		st.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "task cancelled"}
		close(st.done)
		st.cancel()
		t := st.task
		ts.mu.Unlock()
		ts.sendStatus(t)
		return taskReply(t)
	case "tasks/result":
		ts.mu.Lock()
		st, err := ts.lookup(p.TaskID)
		ts.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-st.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		ts.mu.Lock()
		res, rerr, id := st.result, st.err, st.task.TaskID
		ts.mu.Unlock()
		if rerr != nil {
			return nil, rerr
		}
		return withRelatedTask(res, id)
	case "tasks/list":
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.purge(ts.now())
		start := 0
		if p.Cursor != "" {
			n, err := strconv.Atoi(p.Cursor)
			if err != nil || n < 0 || n > len(ts.order) {
				return nil, invalidParams("Invalid cursor")
			}
			start = n
		}
		end := min(start+taskPageSize, len(ts.order))
		page := struct {
			Tasks      []Task `json:"tasks"`
			NextCursor string `json:"nextCursor,omitempty"`
		}{Tasks: []Task{}}
		for _, id := range ts.order[start:end] {
			page.Tasks = append(page.Tasks, ts.tasks[id].task)
		}
		if end < len(ts.order) {
			page.NextCursor = strconv.Itoa(end)
		}
		return jsonReply(page)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
}

// list returns the tasks kept, oldest first (copies).
func (ts *taskServe) list() []Task {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]Task, 0, len(ts.order))
	for _, id := range ts.order {
		out = append(out, ts.tasks[id].task)
	}
	return out
}

// rawReply is a result already encoded.
type rawReply struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (r *rawReply) MarshalJSON() ([]byte, error) { return r.raw, nil }

func jsonReply(v any) (mcp.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &rawReply{raw: b}, nil
}

// taskReply is the answer to tasks/get and tasks/cancel: the task itself.
func taskReply(t Task) (mcp.Result, error) { return jsonReply(t) }

// createTaskReply is the CreateTaskResult of a task-augmented request.
func createTaskReply(t Task) (mcp.Result, error) { return jsonReply(map[string]any{"task": t}) }

// withRelatedTask adds the related-task _meta the spec requires on tasks/result.
func withRelatedTask(res json.RawMessage, id string) (mcp.Result, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(res, &obj); err != nil || obj == nil {
		obj = map[string]json.RawMessage{}
	}
	meta := map[string]any{}
	if old, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(old, &meta)
		if meta == nil {
			meta = map[string]any{}
		}
	}
	meta[relatedTaskKey] = map[string]string{"taskId": id}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = m
	return jsonReply(obj)
}

// taskRequests returns the requests we run as tasks when a server asks: what
// capabilities.tasks.requests declares. Add a method here only together with a
// middleware that calls startTask for it.
func (s *Session) taskRequests() []string {
	if s.opts.Sampling {
		return []string{"elicitation/create", methodSampling}
	}
	return []string{"elicitation/create"}
}

// samplingTaskKey carries a sampling/createMessage's params.task in its _meta:
// go-sdk's CreateMessageParams has no task field and would drop it.
const samplingTaskKey = "elicitty/sampling-task"

// carrySamplingTask returns the sampling request raw with params.task moved to
// params._meta[samplingTaskKey], or nil when it has no task (or cannot be read).
func carrySamplingTask(raw []byte, env *jsonrpcio.Envelope) []byte {
	if _, asTask := requestedTTL(env.Params); !asTask {
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(raw, &msg) != nil {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil || params == nil {
		return nil
	}
	meta := map[string]json.RawMessage{}
	if m, ok := params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[samplingTaskKey] = params["task"]
	delete(params, "task")
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return nil
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return b
}

// samplingTask reports whether a sampling request was task-augmented
// (carrySamplingTask), and the ttl asked.
func samplingTask(req mcp.Request) (ttl time.Duration, ok bool) {
	p := req.GetParams() // *mcp.CreateMessageWithToolsParams in go-sdk v1.8.0
	if p == nil {
		return 0, false
	}
	meta := p.GetMeta()
	if meta == nil {
		return 0, false
	}
	v, has := meta[samplingTaskKey]
	if !has {
		return 0, false
	}
	task, err := json.Marshal(map[string]any{"task": v})
	if err != nil {
		return 0, false
	}
	return requestedTTL(task)
}

// clientTaskCaps is our capabilities.tasks (2025-11-25), or nil in another era.
func (s *Session) clientTaskCaps() json.RawMessage {
	v := s.opts.Protocol
	if v == "" {
		v = s.offer
	}
	if v != "" && !(v >= "2025-11-25" && v < "2026-07-28") {
		return nil
	}
	reqs := map[string]map[string]any{}
	for _, m := range s.taskRequests() {
		kind, verb, ok := cutMethod(m)
		if !ok {
			continue
		}
		if reqs[kind] == nil {
			reqs[kind] = map[string]any{}
		}
		reqs[kind][verb] = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": reqs})
	return b
}

func cutMethod(m string) (kind, verb string, ok bool) {
	for i := range len(m) {
		if m[i] == '/' {
			return m[:i], m[i+1:], true
		}
	}
	return "", "", false
}

// startTask runs a task-augmented request received from the server as a task: it
// returns the CreateTaskResult to send at once, while work runs on (see TaskWork).
func (s *Session) startTask(method string, ttl time.Duration, work TaskWork) (mcp.Result, error) {
	t, err := s.served.start(method, ttl, work)
	if err != nil {
		return nil, err
	}
	s.tap.log.Notef(s.server.Name, "%s runs as task %s (ttl %s)", method, t.TaskID, ttl)
	s.event(EventTask, safe.Untrusted(method+" as a task: "+string(t.Status)), t.TaskID)
	return createTaskReply(t)
}

// ServedTasks returns the tasks this session runs for its server (task-augmented
// requests received), oldest first.
func (s *Session) ServedTasks() []Task { return s.served.list() }

// sendTaskStatus sends notifications/tasks/status (best effort: the spec makes it
// optional, and servers poll).
func (s *Session) sendTaskStatus(t Task) {
	s.event(EventTask, safe.Untrusted("task for the server: "+taskLine(t)), t.TaskID)
	b, err := json.Marshal(t)
	if err != nil {
		return
	}
	msg := &jsonrpc.Request{Method: "notifications/tasks/status", Params: b}
	s.tap.mu.Lock()
	notify := s.tap.notifyFn
	s.tap.mu.Unlock()
	if notify != nil {
		if err := notify(msg); err != nil {
			s.tap.log.Notef(s.server.Name, "notifications/tasks/status not sent: %v", err)
		}
		return
	}
	if s.http != nil && s.httpClient != nil {
		go s.postNotification(msg)
	}
}

// postNotification POSTs a notification on a Streamable HTTP session (go-sdk has no way
// to send a notification it does not know).
func (s *Session) postNotification(msg *jsonrpc.Request) {
	cs := s.client()
	if cs == nil {
		return
	}
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.served.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.server.URL, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id := cs.ID(); id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	req.Header.Set("Mcp-Protocol-Version", s.Protocol())
	resp, err := s.httpClient.Do(req)
	if err != nil {
		s.tap.log.Notef(s.server.Name, "notifications/tasks/status not sent: %v", err)
		return
	}
	_ = resp.Body.Close()
}

// servedTaskRequest returns the tasks/* request a disguised ping carries.
func servedTaskRequest(req mcp.Request) (method string, params json.RawMessage, ok bool) {
	p, isPing := req.GetParams().(*mcp.PingParams)
	if !isPing || p == nil || p.Meta == nil {
		return "", nil, false
	}
	v, has := p.Meta[servedTaskKey]
	if !has {
		return "", nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", nil, false
	}
	var carried struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(b, &carried) != nil || !servedTaskMethod(carried.Method) {
		return "", nil, false
	}
	return carried.Method, carried.Params, true
}
