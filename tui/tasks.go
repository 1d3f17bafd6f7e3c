package tui

import (
	"context"
	"fmt"
	"sort"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// taskSession is what the Tasks tab needs of a session (transport.Session has it; a
// session without it shows no tasks).
type taskSession interface {
	Tasks() []transport.TaskInfo
	ServedTasks() []transport.Task
	ServerTaskCaps() (transport.TaskCaps, bool)
	TaskList(ctx context.Context) ([]transport.Task, error)
	TaskCancel(ctx context.Context, id string) (transport.Task, error)
}

var _ taskSession = (*transport.Session)(nil)

// taskRow is one line of the Tasks tab.
type taskRow struct {
	server string
	info   transport.TaskInfo
	// served marks a task we run for the server (a task-augmented elicitation), which
	// only the server can cancel.
	served bool
}

// tasksPane is the Tasks tab: the tasks of every server, those we asked for (tools run
// as tasks, tasks the server listed) and those we run for servers. Its zero value is
// empty; its rows change only through tasksMsg.
type tasksPane struct {
	st     *styles
	f      filterBox
	w, h   int
	rows   []taskRow
	cursor int
	// notes are the last tasks/list or tasks/cancel failures, by server.
	notes map[string]string
}

// tasksMsg carries one server's tasks, read off the UI goroutine.
type tasksMsg struct {
	server string
	rows   []taskRow
	note   string // a failed tasks/list or tasks/cancel, sanitized
	status string // what to say in the status bar, or ""
}

func (tp *tasksPane) SetSize(w, h int) { tp.w, tp.h = w, h }

// replace sets the rows of one server.
func (tp *tasksPane) replace(msg tasksMsg) {
	kept := tp.rows[:0]
	for _, r := range tp.rows {
		if r.server != msg.server {
			kept = append(kept, r)
		}
	}
	tp.rows = append(kept, msg.rows...)
	sort.SliceStable(tp.rows, func(i, j int) bool {
		a, b := tp.rows[i].info, tp.rows[j].info
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt > b.CreatedAt
		}
		return a.TaskID < b.TaskID
	})
	if tp.notes == nil {
		tp.notes = map[string]string{}
	}
	if msg.note != "" {
		tp.notes[msg.server] = msg.note
	} else {
		delete(tp.notes, msg.server)
	}
	tp.clamp()
}

func (tp *tasksPane) shown() []taskRow {
	if tp.f.value == "" {
		return tp.rows
	}
	var out []taskRow
	for _, r := range tp.rows {
		if matchAll(tp.f.value, r.server+" "+r.info.TaskID+" "+r.info.Tool+" "+string(r.info.Status)+" "+r.info.StatusMessage) {
			out = append(out, r)
		}
	}
	return out
}

func (tp *tasksPane) clamp() {
	n := len(tp.shown())
	tp.cursor = min(max(tp.cursor, 0), max(n-1, 0))
}

func (tp *tasksPane) move(d int) {
	tp.cursor += d
	tp.clamp()
}

func (tp *tasksPane) editKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, changed := tp.f.key(msg)
	if changed {
		tp.clamp()
	}
	return cmd
}

// selected returns the row under the cursor.
func (tp *tasksPane) selected() (taskRow, bool) {
	rows := tp.shown()
	if tp.cursor < 0 || tp.cursor >= len(rows) {
		return taskRow{}, false
	}
	return rows[tp.cursor], true
}

// View renders the pane at time now, exactly tp.h lines.
func (tp *tasksPane) View(now time.Time) string {
	rows := tp.shown()
	head := fmt.Sprintf("Tasks: %d", len(tp.rows))
	if len(rows) != len(tp.rows) {
		head += fmt.Sprintf(" (%d shown)", len(rows))
	}
	head += tp.f.label("")
	lines := []string{tp.st.Title.Render(trunc(head, tp.w))}
	for i, r := range rows {
		t := r.info
		what := t.Tool
		switch {
		case r.served:
			what = "for the server"
		case what == "":
			what = "listed"
		}
		age := ""
		if c, err := time.Parse(time.RFC3339, t.CreatedAt); err == nil {
			age = " · " + now.Sub(c).Truncate(time.Second).String() + " ago"
		}
		line := trunc(fmt.Sprintf("%s %s  %s  %s%s", oneLine(r.server), shortTaskID(t.TaskID), oneLine(string(t.Status)), oneLine(what), age), tp.w)
		if i == tp.cursor {
			line = tp.st.Selected.Render(line)
		}
		lines = append(lines, line)
		if t.StatusMessage != "" {
			lines = append(lines, tp.st.Dim.Render(trunc("   "+oneLine(t.StatusMessage), tp.w)))
		}
	}
	switch {
	case len(tp.rows) == 0:
		lines = append(lines, tp.st.Dim.Render("no tasks: tools that need a task run as one when called"))
	case len(rows) == 0:
		lines = append(lines, tp.st.Dim.Render("nothing matches"))
	}
	for _, server := range sortedKeys(tp.notes) {
		lines = append(lines, tp.st.Warn.Render(trunc(oneLine(server)+": "+tp.notes[server], tp.w)))
	}
	lines = append(lines, tp.st.Dim.Render(trunc("  enter refresh · x cancel (tasks/cancel) · esc close", tp.w)))
	return fitLines(lines, tp.h)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shortTaskID shortens a task id for a row.
func shortTaskID(id string) string {
	id = oneLine(id)
	if r := []rune(id); len(r) > 10 {
		return string(r[:10]) + "…"
	}
	return id
}

// readTasks reads a server's tasks (in memory; with list, tasks/list first when the
// server declares it).
func readTasks(ctx context.Context, server string, s session, list bool) tea.Cmd {
	ts, ok := s.(taskSession)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		msg := tasksMsg{server: server}
		if list {
			if caps, _ := ts.ServerTaskCaps(); caps.List {
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				if _, err := ts.TaskList(cctx); err != nil {
					msg.note = safe.Line(err.Error())
				}
				cancel()
			}
		}
		msg.rows = taskRows(server, ts)
		return msg
	}
}

// cancelTask cancels one task with tasks/cancel and reads the server's tasks again.
func cancelTask(ctx context.Context, r taskRow, s session) tea.Cmd {
	ts, ok := s.(taskSession)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		msg := tasksMsg{server: r.server}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := ts.TaskCancel(cctx, r.info.TaskID); err != nil {
			msg.note = safe.Line(err.Error())
			msg.status = "task not cancelled: " + msg.note
		} else {
			msg.status = "task " + shortTaskID(r.info.TaskID) + " cancelled"
		}
		msg.rows = taskRows(r.server, ts)
		return msg
	}
}

func taskRows(server string, ts taskSession) []taskRow {
	var rows []taskRow
	for _, t := range ts.Tasks() {
		rows = append(rows, taskRow{server: server, info: t})
	}
	for _, t := range ts.ServedTasks() {
		rows = append(rows, taskRow{server: server, info: transport.TaskInfo{Task: t}, served: true})
	}
	return rows
}

// onTasks takes a server's tasks.
func (m *Model) onTasks(msg tasksMsg) tea.Cmd {
	m.tasks.replace(msg)
	if msg.status != "" {
		m.status = msg.status
	}
	return nil
}

// openTasks shows the Tasks view and reads every server's tasks (tasks/list where
// declared).
func (m *Model) openTasks() tea.Cmd {
	m.push(&tasksScreen{})
	return m.refreshTasks()
}

func (m *Model) refreshTasks() tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range m.servers.rows {
		if r.sess != nil {
			cmds = append(cmds, readTasks(m.ctx, r.srv.Name, r.sess, true))
		}
	}
	return tea.Batch(cmds...)
}

// tasksKey handles a key while the Tasks view is open: up and down move, enter reads
// the tasks again, x cancels the selected task, / filters, esc and t close the view;
// any other key closes it and goes to the screen below (q quits, i opens the Inbox).
func (m *Model) tasksKey(ts *tasksScreen, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.tasks.f.editing {
		return m.tasks.editKey(msg), true
	}
	switch {
	case key.Matches(msg, m.keys.Cancel, m.keys.Tasks):
		m.drop(ts)
	case key.Matches(msg, m.keys.Up):
		m.tasks.move(-1)
	case key.Matches(msg, m.keys.Down):
		m.tasks.move(1)
	case key.Matches(msg, m.keys.Filter):
		m.tasks.f.edit()
	case key.Matches(msg, m.keys.Enter):
		m.status = "reading tasks"
		return m.refreshTasks(), true
	case key.Matches(msg, m.keys.CancelCall):
		return m.cancelSelectedTask(), true
	default:
		m.drop(ts)
		return nil, false
	}
	return nil, true
}

// cancelSelectedTask sends tasks/cancel for the selected task, when it is ours to cancel.
func (m *Model) cancelSelectedTask() tea.Cmd {
	r, ok := m.tasks.selected()
	switch {
	case !ok:
		m.status = "no task selected"
	case r.served:
		m.status = "the server asks that: answer it in the Inbox"
	case r.info.Status.Terminal():
		m.status = "that task has ended"
	default:
		s := m.servers.session(r.server)
		if s == nil {
			m.status = r.server + " is not connected"
			return nil
		}
		if ts, ok := s.(taskSession); ok {
			if caps, _ := ts.ServerTaskCaps(); !caps.Cancel {
				m.status = r.server + " does not declare tasks/cancel"
				return nil
			}
		}
		m.status = "cancelling task " + shortTaskID(r.info.TaskID)
		return cancelTask(m.ctx, r, s)
	}
	return nil
}

// onTaskEvent refreshes the Tasks tab when a task changes.
func (m *Model) onTaskEvent(ev eventMsg) tea.Cmd {
	m.status = ev.Server + ": task " + shortTaskID(ev.ID) + " " + ev.Text.Line()
	if s := m.servers.session(ev.Server); s != nil {
		return readTasks(m.ctx, ev.Server, s, false)
	}
	return nil
}
