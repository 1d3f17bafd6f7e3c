package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
)

// tasksCommand lists a server's tasks (tasks/list) or cancels one (tasks/cancel).
func (a *app) tasksCommand() *cobra.Command {
	var cancelID string
	cmd := &cobra.Command{
		Use:   "tasks TARGET [--cancel TASK_ID]",
		Short: "List a server's tasks (tasks/list), or cancel one (tasks/cancel)",
		Long: `List the tasks a server keeps for this client (MCP 2025-11-25 tasks/list), with their
status and status message, or cancel one with --cancel (tasks/cancel). A stdio server
starts anew for each command, so this is for servers that keep tasks across sessions
(HTTP); "call" runs tools that need a task and waits for their result.`,
		Example: "  elicitty tasks -- npx -y @modelcontextprotocol/server-everything\n  elicitty tasks https://mcp.example.com/mcp --cancel 786512e2 --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, rest, err := a.splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("tasks takes only a TARGET, got extra arguments %q", rest)
			}
			return a.withSession(cmd.Context(), srv, func(ctx context.Context, s *transport.Session) error {
				caps, declared := s.ServerTaskCaps()
				if !declared {
					return fmt.Errorf("server %q declares no tasks capability (protocol %s)", s.Name(), s.Protocol())
				}
				if cancelID != "" {
					if !caps.Cancel {
						return fmt.Errorf("server %q does not declare tasks.cancel", s.Name())
					}
					t, err := s.TaskCancel(ctx, cancelID)
					if err != nil {
						return err
					}
					return a.printTasks([]transport.Task{t})
				}
				tasks, err := s.TaskList(ctx)
				if err != nil {
					return err
				}
				return a.printTasks(tasks)
			})
		},
	}
	cmd.Flags().StringVar(&cancelID, "cancel", "", "cancel the task with this id (tasks/cancel)")
	return cmd
}

// printTasks writes tasks as JSON or one line each: id, status and status message.
func (a *app) printTasks(tasks []transport.Task) error {
	if a.jsonOut {
		if tasks == nil {
			tasks = []transport.Task{}
		}
		return a.printJSON(tasks)
	}
	if len(tasks) == 0 {
		fmt.Fprintln(a.stderr, "elicitty: the server keeps no tasks for this client")
		return nil
	}
	return printTable(a.stdout, len(tasks), func(i int) (string, string) {
		t := tasks[i]
		return safe.Field(t.TaskID), taskSummary(t)
	})
}

// taskSummary is a task's status, message and age on one sanitized line.
func taskSummary(t transport.Task) string {
	line := safe.Line(string(t.Status))
	if t.StatusMessage != "" {
		line += ": " + safe.Line(t.StatusMessage)
	}
	if c, err := time.Parse(time.RFC3339, t.CreatedAt); err == nil {
		line += fmt.Sprintf(" (created %s ago)", time.Since(c).Round(time.Second))
	}
	return line
}

// callTask is what call --json adds about the task a tool ran as: its last state.
func callTask(s *transport.Session, res *mcp.CallToolResult) *transport.TaskInfo {
	rt, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any)
	id, _ := rt["taskId"].(string)
	if id == "" {
		return nil
	}
	for _, t := range s.Tasks() {
		if t.TaskID == id {
			return &t
		}
	}
	return nil
}

// taskEvent shows a task's new status: on the progress line on a terminal, else as a
// line of stderr.
func (a *app) taskEvent(server string, ev transport.Event) {
	text := fmt.Sprintf("%s: task %s %s", server, shortID(ev.ID), ev.Text.Line())
	if a.progress != nil {
		a.progress.show(text)
		return
	}
	fmt.Fprintf(a.stderr, "elicitty: %s\n", text)
}

// shortID shortens a task id for a status line (sanitized).
func shortID(id string) string {
	id = safe.Line(id)
	if r := []rune(id); len(r) > 12 {
		return string(r[:12]) + "…"
	}
	return id
}
