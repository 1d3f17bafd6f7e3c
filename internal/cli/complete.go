package cli

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
)

// completionTimeout bounds the connection a completion makes to list a server's tools
// or prompts: a shell waits for it on every Tab.
const completionTimeout = 5 * time.Second

// argCompletion names what a command's positional arguments are, for shell completion.
type argCompletion int

const (
	completeTargets      argCompletion = iota // every argument is a TARGET
	completeTarget                            // TARGET, then nothing known
	completeTargetTool                        // TARGET TOOL
	completeTargetPrompt                      // TARGET NAME (a prompt)
)

// addCompletions gives the commands that take a TARGET completion of server names,
// and call and prompt completion of the server's tool and prompt names.
func (a *app) addCompletions(root *cobra.Command) {
	kinds := map[string]argCompletion{
		"elicitty": completeTargets,
		"tools":    completeTarget, "prompts": completeTarget, "resources": completeTarget,
		"read": completeTarget, "complete": completeTarget, "login": completeTarget, "logout": completeTarget, "tasks": completeTarget,
		"call":   completeTargetTool,
		"prompt": completeTargetPrompt,
	}
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if k, ok := kinds[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = a.completeArgs(k)
		}
	}
}

// completeArgs returns the completion function of one kind of command.
func (a *app) completeArgs(kind argCompletion) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		// Completion parses flags with a "--" appended: a dash before the last
		// argument is the user's, and what follows it is a stdio command line.
		if d := cmd.ArgsLenAtDash(); d >= 0 && d < len(args) {
			return nil, cobra.ShellCompDirectiveDefault
		}
		switch {
		case len(args) == 0 || kind == completeTargets:
			return a.completeServerNames(toComplete), cobra.ShellCompDirectiveNoFileComp
		case len(args) == 1 && (kind == completeTargetTool || kind == completeTargetPrompt):
			return a.completeServerItems(cmd.Context(), args[0], kind, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeServerNames returns the configured server names that start with prefix.
func (a *app) completeServerNames(prefix string) []cobra.Completion {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, name := range cfg.Names() {
		if strings.HasPrefix(name, prefix) && completable(name) {
			out = append(out, name)
		}
	}
	return out
}

// completeServerItems connects to target and returns its tool or prompt names that
// start with prefix. Nothing is asked of the user: elicitations are declined and an
// HTTP server is only used with a stored sign-in.
func (a *app) completeServerItems(ctx context.Context, target string, kind argCompletion, prefix string) []cobra.Completion {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil
	}
	srv, err := config.ParseTarget(target, cfg)
	if err != nil {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	// The one resolver, as every command: the server's own settings (protocol, roots,
	// timeouts, headers) apply; nothing is asked and a question is declined.
	p, err := a.plan(srv, frontEnd{answerer: elicit.AnswererFunc(declineAll), showsFindings: true}, nil)
	if err != nil {
		return nil
	}
	srv, opts := p.server, p.options
	opts.NoReask = true
	if srv.EffectiveKind() != config.KindStdio {
		store, err := a.tokenStore()
		if err != nil {
			return nil
		}
		opts.OAuth = &oauth.Options{Server: srv.Name, Resource: srv.URL, Store: store, Browser: oauth.NoWaitBrowser{}}
	}
	s, err := transport.Connect(ctx, srv, opts)
	if err != nil {
		return nil
	}
	defer s.Close()
	var names []string
	switch kind {
	case completeTargetTool:
		tools, err := s.Tools(ctx)
		if err != nil {
			return nil
		}
		for _, t := range tools {
			names = append(names, t.Name)
		}
	case completeTargetPrompt:
		prompts, err := s.Prompts(ctx)
		if err != nil {
			return nil
		}
		for _, p := range prompts {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	var out []cobra.Completion
	for _, n := range slices.Compact(names) {
		if strings.HasPrefix(n, prefix) && completable(n) {
			out = append(out, n)
		}
	}
	return out
}

// completable reports whether a name may be offered to the shell: names come from
// servers and config files, and a completion is typed into the user's command line,
// so anything with control, format (bidi, zero-width) or space characters is left
// out rather than altered.
func completable(name string) bool {
	if name == "" || len(name) > 256 || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
