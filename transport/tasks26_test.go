package transport

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// modernTaskServer answers server/discover at 2026-07-28 declaring the tasks extension
// and passes every other request to handle.
func modernTaskServer(t *testing.T, handle func(rs *rawServer, m rawMsg)) (*rawServer, *Session, *events, *answerer) {
	t.Helper()
	rs, tr := startRaw(t, func(rs *rawServer, m rawMsg) {
		if m.Method == "server/discover" {
			rs.reply(m.ID, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw","version":"1"}}}`)
			return
		}
		handle(rs, m)
	})
	ev := &events{}
	a := newAnswerer(accept(map[string]any{"sure": true}))
	s := connectRaw(t, tr, Options{Protocol: "2026-07-28", Answerer: a, OnEvent: ev.add})
	return rs, s, ev, a
}

const task26Created = `{"resultType":"task","taskId":"t-9","status":"working","createdAt":"2026-07-28T10:00:00Z","lastUpdatedAt":"2026-07-28T10:00:00Z","ttlMs":60000,"pollIntervalMs":100}`

func modernTask(status, extra string) string {
	return `{"resultType":"complete","taskId":"t-9","status":"` + status + `","createdAt":"2026-07-28T10:00:00Z","lastUpdatedAt":"2026-07-28T10:00:01Z","ttlMs":60000,"pollIntervalMs":100` + extra + `}`
}

// TestTask26ToolCall: with the tasks extension declared, a server answers tools/call with
// a task; the call polls tasks/get, answers the task's input requests once each with
// tasks/update, and returns the result tasks/get inlines.
func TestTask26ToolCall(t *testing.T) {
	var mu sync.Mutex
	gets := 0
	const inputs = `,"inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{"sure":{"type":"boolean"}}}}}}`
	rs, s, ev, a := modernTaskServer(t, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "tools/call":
			rs.reply(m.ID, task26Created)
		case "tasks/get":
			mu.Lock()
			gets++
			n := gets
			mu.Unlock()
			switch n {
			case 1, 2: // the second poll comes before the server took the answer in
				rs.reply(m.ID, modernTask("input_required", inputs))
			default:
				rs.reply(m.ID, modernTask("completed", `,"result":{"content":[{"type":"text","text":"done"}]}`))
			}
		case "tasks/update":
			rs.reply(m.ID, `{"resultType":"complete"}`)
		}
	})
	res, _, err := s.CallTool(context.Background(), "deploy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "done" {
		t.Errorf("result %q", got)
	}
	calls := rs.received("tools/call")
	if len(calls) != 1 || !strings.Contains(string(calls[0].Params), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Errorf("tools/call does not declare the tasks extension: %+v", calls)
	}
	if n := len(a.requests()); n != 1 {
		t.Errorf("the input request was asked %d times, want once", n)
	}
	ups := rs.received("tasks/update")
	if len(ups) != 1 || !strings.Contains(string(ups[0].Params), `"taskId":"t-9"`) || !strings.Contains(string(ups[0].Params), `"inputResponses":{"confirm":{"action":"accept","content":{"sure":true}}}`) {
		t.Errorf("tasks/update = %+v", ups)
	}
	want := "t-9 working|t-9 input_required|t-9 completed"
	if got := strings.Join(ev.tasks(), "|"); got != want {
		t.Errorf("task events %q, want %q", got, want)
	}
	if caps, ok := s.ServerTaskCaps(); !ok || !caps.ToolsCall || caps.List {
		t.Errorf("ServerTaskCaps() = %+v, %v", caps, ok)
	}
	if _, err := s.TaskList(context.Background()); err == nil {
		t.Error("TaskList at 2026-07-28 = nil error; there is no tasks/list")
	}
}

// TestTask26FailedAndCancelled: a failed task's error is the call's; a call that stops
// waiting sends tasks/cancel.
func TestTask26FailedAndCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var failing = true
	rs, s, _, _ := modernTaskServer(t, func(rs *rawServer, m rawMsg) {
		switch m.Method {
		case "tools/call":
			rs.reply(m.ID, task26Created)
		case "tasks/get":
			mu.Lock()
			f := failing
			mu.Unlock()
			if f {
				rs.reply(m.ID, modernTask("failed", `,"error":{"code":-32603,"message":"disk full"}`))
				return
			}
			rs.reply(m.ID, modernTask("working", ""))
			cancel()
		case "tasks/cancel":
			rs.reply(m.ID, `{"resultType":"complete"}`)
		}
	})
	if _, _, err := s.CallTool(context.Background(), "deploy", nil); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failed task: err = %v, want the task's error", err)
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	_, _, err := s.CallTool(ctx, "deploy", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: err = %v", err)
	}
	if got := rs.received("tasks/cancel"); len(got) != 1 || !strings.Contains(string(got[0].Params), `"taskId":"t-9"`) {
		t.Errorf("tasks/cancel = %+v", got)
	}
}
