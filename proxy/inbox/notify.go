package inbox

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/elicitty/elicitty/internal/safe"
)

// Notifier raises a desktop notification with a title and a body; it must not block.
type Notifier func(title, body string)

// notifyTimeout bounds one notification command.
const notifyTimeout = 5 * time.Second

// CommandNotifier returns a Notifier that runs argv with the title and the body
// appended, both sanitized to one line, in the background and bounded in time; its
// output and failure are ignored (a notification is best effort). Nil for an empty
// argv.
func CommandNotifier(argv []string) Notifier {
	if len(argv) == 0 {
		return nil
	}
	return func(title, body string) {
		args := append(append([]string{}, argv[1:]...), safe.Line(title), safe.Line(body))
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			_ = exec.CommandContext(ctx, argv[0], args...).Run()
		}()
	}
}

// DefaultNotifier is the notifier of a proxy: the command in $ELICITTY_NOTIFY (split
// on spaces; "off" for none), else notify-send when it is in PATH, else nil. getenv
// reads the environment.
func DefaultNotifier(getenv func(string) string) Notifier {
	if v := strings.TrimSpace(getenv("ELICITTY_NOTIFY")); v != "" {
		if v == "off" {
			return nil
		}
		return CommandNotifier(strings.Fields(v))
	}
	if p, err := exec.LookPath("notify-send"); err == nil {
		return CommandNotifier([]string{p, "--app-name=elicitty", "--"}) // "--": a message may start with "-"
	}
	return nil
}
