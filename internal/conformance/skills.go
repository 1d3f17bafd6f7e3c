package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/skills"
	"github.com/elicitty/elicitty/transport"
)

// playSkills plays a host of the Skills extension (SEP-2640) when the server
// offers it: it lists the skills, as `elicitty skills TARGET` does, and reads none of
// their files. In the verification scenarios (sep-2640-client-verify-*) it then loads
// the first skill, as `elicitty skills TARGET NAME` does, and reads its supporting files
// only when SKILL.md passed verification. A failed verification is the expected
// outcome there, so only a lost connection is an error.
func playSkills(ctx context.Context, stderr io.Writer, scenario string, s *transport.Session) error {
	if !skills.Offered(s) {
		return nil
	}
	list, err := skills.List(ctx, s)
	if err != nil {
		return lost(stderr, "skills/list", err)
	}
	fmt.Fprintf(stderr, "conformance: %s: %d skills listed\n", scenario, len(list))
	if !strings.HasPrefix(scenario, "sep-2640-client-verify-") || len(list) == 0 {
		return nil
	}
	l, err := skills.Load(ctx, s, list[0], nil)
	if err != nil {
		return lost(stderr, "load skill", err)
	}
	for _, f := range l.Supporting() {
		if _, _, err := l.ReadFile(ctx, s, f.URI); err != nil {
			if err := lost(stderr, "read skill file", err); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stderr, "conformance: %s: skill %s loaded and verified\n", scenario, safe.Block(l.Skill.Name()))
	return nil
}

// lost prints err and returns it only when the connection is lost.
func lost(stderr io.Writer, what string, err error) error {
	fmt.Fprintf(stderr, "conformance: %s: %s\n", what, safe.Block(err.Error()))
	var conn *transport.ConnError
	if errors.As(err, &conn) {
		return err
	}
	return nil
}
