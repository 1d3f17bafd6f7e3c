package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
)

// taskServer is a raw server whose initialize result declares caps (a JSON fragment
// of capabilities) next to tools; every other request goes to handle, and the
// responses to its own requests go to the returned channel.
func taskServer(t *testing.T, caps string, handle func(rs *rawServer, m rawMsg)) (*rawServer, <-chan rawMsg, mcp.Transport) {
	t.Helper()
	responses := make(chan rawMsg, 16)
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "initialize":
			rs.reply(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}`+caps+`},"serverInfo":{"name":"raw","version":"1"}}`)
		case "notifications/initialized":
		case "":
			responses <- m
		default:
			handle(rs, m)
		}
	})
	return rs, responses, tr
}

// ask sends the server request method with params under id and waits for our answer.
func ask(t *testing.T, rs *rawServer, responses <-chan rawMsg, id, method, params string) rawMsg {
	t.Helper()
	rs.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"` + method + `","params":` + params + `}`)
	for {
		select {
		case m := <-responses:
			if string(m.ID) == `"`+id+`"` {
				return m
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s %s", method, id)
			return rawMsg{}
		}
	}
}

// events collects a session's events.
type events struct {
	mu  sync.Mutex
	got []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
}

func (e *events) tasks() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.got {
		if ev.Kind == EventTask {
			out = append(out, ev.ID+" "+ev.Text.Line())
		}
	}
	return out
}

const serverTaskCaps = `,"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`

const researchTools = `{"tools":[{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},{"name":"echo","inputSchema":{"type":"object"}}]}`

func taskJSON(status, msg string) string {
	return fmt.Sprintf(`{"taskId":"t-1","status":%q,"statusMessage":%q,"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}`, status, msg)
}

// TestTaskToolCall runs a tool whose taskSupport is required: the call goes out with a
// task field, is polled with tasks/get, and once the task needs input, tasks/result
// brings the server's elicitation (tied to the task by related-task _meta) to the
// answerer, and then the tool's result.
func TestTaskToolCall(t *testing.T) {
	var mu sync.Mutex
	gets := 0
	answered := make(chan rawMsg, 1)
	var responses <-chan rawMsg
	rs, responses, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "tools/list":
			rs.reply(m.ID, researchTools)
		case "tools/call":
			rs.reply(m.ID, `{"task":`+taskJSON("working", "started")+`}`)
		case "tasks/get":
			mu.Lock()
			gets++
			n := gets
			mu.Unlock()
			switch n {
			case 1:
				rs.reply(m.ID, taskJSON("working", "stage 2"))
			case 2:
				rs.reply(m.ID, taskJSON("input_required", "which topic?"))
			default:
				rs.reply(m.ID, taskJSON("completed", "done"))
			}
		case "tasks/result":
			answered <- ask(t, rs, responses, "q1", "elicitation/create", `{"message":"Which topic?","requestedSchema":{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}`)
			rs.reply(m.ID, `{"content":[{"type":"text","text":"report"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}`)
		}
	})
	ev := &events{}
	a := newAnswerer(accept(map[string]any{"topic": "snakes"}))
	s := connectRaw(t, tr, Options{Protocol: "2025-11-25", Answerer: a, OnEvent: ev.add})

	res, _, err := s.CallTool(context.Background(), "research", map[string]any{"q": "python"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "report" {
		t.Errorf("result %q, want the task's result", got)
	}
	init := rs.received("initialize")
	if len(init) != 1 || !strings.Contains(string(init[0].Params), `"tasks":{"cancel":{},"list":{},"requests":{"elicitation":{"create":{}}}}`) {
		t.Errorf("initialize does not declare what we serve as tasks: %+v", init)
	}
	calls := rs.received("tools/call")
	if len(calls) != 1 || !strings.Contains(string(calls[0].Params), `"task":{"ttl":600000}`) {
		t.Fatalf("tools/call was not task-augmented: %+v", calls)
	}
	reqs := a.requests()
	if len(reqs) != 1 || reqs[0].Tool != "research" || reqs[0].Message != "Which topic?" {
		t.Fatalf("the task's elicitation reached the answerer as %+v", reqs)
	}
	answer := <-answered
	if !strings.Contains(answer.raw, `"io.modelcontextprotocol/related-task":{"taskId":"t-1"}`) || !strings.Contains(answer.raw, `"topic":"snakes"`) {
		t.Errorf("the answer lacks the related task or the content: %s", answer.raw)
	}
	want := []string{"t-1 working: started", "t-1 working: stage 2", "t-1 input_required: which topic?", "t-1 completed: done"}
	if got := ev.tasks(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("task events %q, want %q", got, want)
	}
	tasks := s.Tasks()
	if len(tasks) != 1 || tasks[0].Tool != "research" || !tasks[0].Mine || tasks[0].Status != TaskCompleted {
		t.Errorf("Tasks() = %+v", tasks)
	}
	if _, err := s.WantsTask(context.Background(), "echo", true); err == nil {
		t.Error("WantsTask(echo, force) = nil error, want a refusal: echo does not support tasks")
	}
	if got, _ := s.WantsTask(context.Background(), "echo", false); got {
		t.Error("echo would run as a task")
	}
}

// TestTaskCancelledWhenCallEnds: a call that stops waiting (the user cancelled it)
// cancels its task with tasks/cancel, as the server declares it.
func TestTaskCancelledWhenCallEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan string, 1)
	_, _, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "tools/list":
			rs.reply(m.ID, researchTools)
		case "tools/call":
			rs.reply(m.ID, `{"task":`+taskJSON("working", "started")+`}`)
		case "tasks/get":
			rs.reply(m.ID, taskJSON("working", "slow"))
			cancel() // the user gives up while the task runs
		case "tasks/cancel":
			cancelled <- string(m.Params)
			rs.reply(m.ID, taskJSON("cancelled", "by request"))
		}
	})
	s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
	_, _, err := s.CallTool(ctx, "research", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	select {
	case p := <-cancelled:
		if !strings.Contains(p, `"taskId":"t-1"`) {
			t.Errorf("tasks/cancel params %s", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the task was not cancelled")
	}
	if got := s.Tasks(); len(got) != 1 || got[0].Status != TaskCancelled {
		t.Errorf("Tasks() = %+v, want t-1 cancelled", got)
	}
}

// TestTaskListAndForcedTask: tasks/list walks every page; --task on a tool whose
// taskSupport is optional sends the task field; one the server does not allow is refused.
func TestTaskListAndForcedTask(t *testing.T) {
	_, _, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "tools/list":
			rs.reply(m.ID, `{"tools":[{"name":"maybe","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
		case "tools/call":
			rs.reply(m.ID, `{"task":`+taskJSON("completed", "")+`}`)
		case "tasks/result":
			rs.reply(m.ID, `{"content":[{"type":"text","text":"fine"}]}`)
		case "tasks/get":
			rs.reply(m.ID, taskJSON("completed", ""))
		case "tasks/list":
			if strings.Contains(string(m.Params), `"cursor":"p2"`) {
				rs.reply(m.ID, `{"tasks":[`+strings.Replace(taskJSON("working", "two"), "t-1", "t-2", 1)+`]}`)
				return
			}
			rs.reply(m.ID, `{"tasks":[`+taskJSON("completed", "one")+`,{"taskId":"bad","status":"exploded"}],"nextCursor":"p2"}`)
		}
	})
	s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
	ctx := context.Background()
	if as, _ := s.WantsTask(ctx, "maybe", false); as {
		t.Error("an optional tool runs as a task unasked")
	}
	if as, err := s.WantsTask(ctx, "maybe", true); !as || err != nil {
		t.Fatalf("WantsTask(maybe, force) = %v, %v", as, err)
	}
	res, _, err := s.CallToolTask(ctx, "maybe", nil, time.Minute)
	if err != nil || resultText(t, res) != "fine" {
		t.Fatalf("CallToolTask = %v, %v", res, err)
	}
	tasks, err := s.TaskList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range tasks {
		ids = append(ids, tk.TaskID+"="+string(tk.Status))
	}
	if got := strings.Join(ids, ","); got != "t-1=completed,t-2=working" {
		t.Errorf("TaskList = %s (an entry with an unknown status is skipped)", got)
	}
}

// TestServedElicitationTask: a task-augmented elicitation/create is answered at once
// with a CreateTaskResult while the person has not answered yet; the server polls it
// with tasks/get, lists it, and gets the answer from tasks/result with the related-task
// _meta; a status notification tells it the task ended.
func TestServedElicitationTask(t *testing.T) {
	release := make(chan struct{})
	rs, responses, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {})
	a := newAnswerer(func(ctx context.Context, _ *elicit.Request) (elicit.Response, error) {
		select {
		case <-release:
			return elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}, nil
		case <-ctx.Done():
			return elicit.Response{}, ctx.Err()
		}
	})
	s := connectRaw(t, tr, Options{Protocol: "2025-11-25", Answerer: a})

	created := ask(t, rs, responses, "e1", "elicitation/create", `{"task":{"ttl":60000},"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)
	var cr struct {
		Result struct {
			Task Task `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(created.raw), &cr); err != nil || cr.Result.Task.TaskID == "" || cr.Result.Task.Status != TaskWorking {
		t.Fatalf("elicitation/create with a task got %s, want a CreateTaskResult (working)", created.raw)
	}
	id := cr.Result.Task.TaskID
	if len(id) < 32 || cr.Result.Task.TTL == nil || *cr.Result.Task.TTL != 60000 || cr.Result.Task.CreatedAt == "" {
		t.Errorf("task %+v: want an unguessable id, the ttl asked for and timestamps", cr.Result.Task)
	}
	if got := ask(t, rs, responses, "g1", "tasks/get", `{"taskId":"`+id+`"}`); !strings.Contains(got.raw, `"status":"working"`) {
		t.Errorf("tasks/get while the person answers: %s", got.raw)
	}
	if got := ask(t, rs, responses, "l1", "tasks/list", `{}`); !strings.Contains(got.raw, id) {
		t.Errorf("tasks/list: %s", got.raw)
	}
	if got := ask(t, rs, responses, "g2", "tasks/get", `{"taskId":"nope"}`); !strings.Contains(got.raw, `"code":-32602`) {
		t.Errorf("tasks/get of an unknown task: %s, want -32602", got.raw)
	}
	if got := ask(t, rs, responses, "l2", "tasks/list", `{"cursor":"zz"}`); !strings.Contains(got.raw, `"code":-32602`) {
		t.Errorf("tasks/list with a bad cursor: %s, want -32602", got.raw)
	}
	close(release)
	got := ask(t, rs, responses, "r1", "tasks/result", `{"taskId":"`+id+`"}`)
	if !strings.Contains(got.raw, `"action":"accept"`) || !strings.Contains(got.raw, `"name":"Ada"`) ||
		!strings.Contains(got.raw, `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
		t.Errorf("tasks/result: %s", got.raw)
	}
	if got := ask(t, rs, responses, "c1", "tasks/cancel", `{"taskId":"`+id+`"}`); !strings.Contains(got.raw, `"code":-32602`) {
		t.Errorf("tasks/cancel of an ended task: %s, want -32602", got.raw)
	}
	var note []rawMsg
	for _, m := range rs.received("notifications/tasks/status") {
		if strings.Contains(string(m.Params), `"status":"completed"`) {
			note = append(note, m)
		}
	}
	if len(note) != 1 {
		t.Errorf("notifications/tasks/status (completed) sent %d times", len(note))
	}
	if st := s.ServedTasks(); len(st) != 1 || st[0].Status != TaskCompleted {
		t.Errorf("ServedTasks() = %+v", st)
	}
}

// TestServedTaskCancel: the server cancels a task while the person has not answered:
// the question is withdrawn (the answerer's context ends) and tasks/result fails.
func TestServedTaskCancel(t *testing.T) {
	withdrawn := make(chan error, 1)
	rs, responses, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {})
	a := newAnswerer(func(ctx context.Context, _ *elicit.Request) (elicit.Response, error) {
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return elicit.Response{}, ctx.Err()
	})
	connectRaw(t, tr, Options{Protocol: "2025-11-25", Answerer: a})
	created := ask(t, rs, responses, "e1", "elicitation/create", `{"task":{},"message":"Sure?","requestedSchema":{"type":"object","properties":{}}}`)
	var cr struct {
		Result struct {
			Task Task `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(created.raw), &cr) != nil || cr.Result.Task.TaskID == "" {
		t.Fatalf("no task: %s", created.raw)
	}
	id := cr.Result.Task.TaskID
	if got := ask(t, rs, responses, "c1", "tasks/cancel", `{"taskId":"`+id+`"}`); !strings.Contains(got.raw, `"status":"cancelled"`) {
		t.Fatalf("tasks/cancel: %s", got.raw)
	}
	select {
	case err := <-withdrawn:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the answerer ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the question was not withdrawn")
	}
	if got := ask(t, rs, responses, "r1", "tasks/result", `{"taskId":"`+id+`"}`); !strings.Contains(got.raw, `"error"`) {
		t.Errorf("tasks/result of a cancelled task: %s, want an error", got.raw)
	}
}

// TestNoTasksIn20250618: a session pinned to 2025-06-18 declares no tasks and serves no
// tasks/* requests.
func TestNoTasksIn20250618(t *testing.T) {
	rs, responses, tr := startTasklessServer(t)
	connectRaw(t, tr, Options{Protocol: "2025-06-18"})
	init := rs.received("initialize")
	if len(init) != 1 || strings.Contains(string(init[0].Params), `"tasks"`) {
		t.Errorf("initialize at 2025-06-18 declares tasks: %+v", init)
	}
	if got := ask(t, rs, responses, "g1", "tasks/get", `{"taskId":"x"}`); !strings.Contains(got.raw, `"code":-32601`) {
		t.Errorf("tasks/get at 2025-06-18: %s, want method not found", got.raw)
	}
}

func startTasklessServer(t *testing.T) (*rawServer, <-chan rawMsg, mcp.Transport) {
	responses := make(chan rawMsg, 16)
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "initialize":
			rs.reply(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		case "":
			responses <- m
		}
	})
	return rs, responses, tr
}

func TestRequestedTTL(t *testing.T) {
	for _, tc := range []struct {
		params string
		ttl    time.Duration
		ok     bool
	}{
		{`{"message":"m"}`, 0, false},
		{`{"task":null}`, 0, false},
		{`{"task":{}}`, maxServedTTL, true},
		{`{"task":{"ttl":1500}}`, 1500 * time.Millisecond, true},
		{`{"task":{"ttl":99999999999}}`, maxServedTTL, true},
		{`{"task":{"ttl":-5}}`, maxServedTTL, true},
	} {
		ttl, ok := requestedTTL(json.RawMessage(tc.params))
		if ttl != tc.ttl || ok != tc.ok {
			t.Errorf("requestedTTL(%s) = %v, %v; want %v, %v", tc.params, ttl, ok, tc.ttl, tc.ok)
		}
	}
}

func TestDecodeTask(t *testing.T) {
	for _, tc := range []struct {
		raw, err string
	}{
		{`{"taskId":"a","status":"working"}`, ""},
		{`{"taskId":"","status":"working"}`, "without a taskId"},
		{`{"taskId":"a","status":"done"}`, "unknown status"},
		{`[]`, "unreadable"},
	} {
		_, err := decodeTask(json.RawMessage(tc.raw))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("decodeTask(%s) = %v, want %q", tc.raw, err, tc.err)
		}
	}
}

// TestTaskListBounded: a server that lists thousands of tasks does not grow what the
// session keeps past its bound.
func TestTaskListBounded(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"taskId":"x-%d","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}`, i)
	}
	page := `{"tasks":[` + b.String() + `]}`
	_, _, tr := taskServer(t, serverTaskCaps, func(rs *rawServer, m rawMsg) {
		if m.Method == "tasks/list" {
			rs.reply(m.ID, page)
		}
	})
	s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
	got, err := s.TaskList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2000 {
		t.Errorf("TaskList returned %d tasks, want the 2000 listed", len(got))
	}
	if n := len(s.Tasks()); n > maxKept {
		t.Errorf("the session keeps %d listed tasks, more than %d", n, maxKept)
	}
}

// TestTaskHandoff: a server may ask inside the task a call of ours just created
// without naming it (the TypeScript SDK's elicitInputStream) and its request may
// arrive after the tools/call response but before the caller has noted the task. In
// that window the call is in flight nowhere; the tap's handoff still ties the request
// to the tool, until the caller notes the task.
func TestTaskHandoff(t *testing.T) {
	for _, tc := range []struct{ name, params, result string }{
		{"2025-11-25", `{"name":"research","arguments":{},"task":{"ttl":600000}}`, `{"task":` + taskJSON("working", "") + `}`},
		{"2026-07-28", `{"name":"research","arguments":{}}`, `{"resultType":"task","taskId":"t-1","status":"working"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, tr := taskServer(t, serverTaskCaps, func(*rawServer, rawMsg) {})
			s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
			s.tap.mu.Lock()
			s.tap.inflight["s:c-1"] = newOutReq("tools/call", json.RawMessage(tc.params))
			s.tap.mu.Unlock()
			if call, tool, _ := s.askingCall(nil); tool != "research" || call != "tools/call research" {
				t.Fatalf("with the call in flight: askingCall = %q, %q", call, tool)
			}
			raw := []byte(`{"jsonrpc":"2.0","id":"c-1","result":` + tc.result + `}`)
			env, err := jsonrpcio.ParseEnvelope(raw)
			if err != nil {
				t.Fatal(err)
			}
			s.tap.inRaw(raw, &env)
			if n := len(s.tap.callsInFlight()); n != 0 {
				t.Fatalf("%d calls still in flight after the response", n)
			}
			if call, tool, _ := s.askingCall(nil); tool != "research" || call != "tools/call research" {
				t.Errorf("between the response and the caller: askingCall = %q, %q, want the call", call, tool)
			}
			meta := map[string]any{relatedTaskKey: map[string]any{"taskId": "t-1"}}
			if _, tool, task := s.askingCall(meta); tool != "research" || task != "t-1" {
				t.Errorf("naming the task in that window: askingCall = %q, %q", tool, task)
			}
			s.tap.mu.Lock()
			h := s.tap.handoff["t-1"]
			h.at = h.at.Add(-handoffLife - time.Second)
			s.tap.handoff["t-1"] = h
			s.tap.mu.Unlock()
			if _, tool, _ := s.askingCall(nil); tool != "" {
				t.Errorf("a handoff past its life (the call failed before noting it) still claims requests for %q", tool)
			}
			s.tap.mu.Lock()
			s.tap.keepHandoff("research", json.RawMessage(tc.result))
			s.tap.mu.Unlock()
			s.noteTask(Task{TaskID: "t-1", Status: TaskWorking}, "research")
			if len(s.tap.handoffs()) != 0 {
				t.Errorf("the handoff outlives the noted task: %v", s.tap.handoffs())
			}
			if _, tool, _ := s.askingCall(nil); tool != "research" {
				t.Errorf("once noted: askingCall tool = %q", tool)
			}
		})
	}
	t.Run("plain result", func(t *testing.T) {
		_, _, tr := taskServer(t, serverTaskCaps, func(*rawServer, rawMsg) {})
		s := connectRaw(t, tr, Options{Protocol: "2025-11-25"})
		s.tap.mu.Lock()
		s.tap.inflight["s:c-2"] = newOutReq("tools/call", json.RawMessage(`{"name":"echo","arguments":{"task":1}}`))
		s.tap.mu.Unlock()
		raw := []byte(`{"jsonrpc":"2.0","id":"c-2","result":{"content":[],"taskId":"x","task":{"taskId":"y"}}}`)
		env, _ := jsonrpcio.ParseEnvelope(raw)
		s.tap.inRaw(raw, &env)
		if n := len(s.tap.callsInFlight()); n != 0 {
			t.Fatalf("%d calls still in flight after the response", n)
		}
		if h := s.tap.handoffs(); len(h) != 0 {
			t.Errorf("a call that did not ask for a task left a handoff: %v", h)
		}
	})
}
