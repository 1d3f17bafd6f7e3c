package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
)

// configCommand is `elicitty config`: the server catalog with where each entry came from.
func (a *app) configCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "List every configured server with the file and layer it came from",
		Long: `Lists the server catalog after layering: each server's name, its layer (built-in,
imported from another client's config, own file, or the file named by $ELICITTY_CONFIG),
how it is reached and the file it came from. Then the files that were read and the
imported entries and files that could not be used, with their file:line:col.

Values of env variables and headers are never shown, only their names. With
--no-imports, other clients' files are not read.`,
		Example: "  elicitty config\n  elicitty config --json\n  elicitty config --no-imports",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(catalogJSON(cfg))
			}
			return printCatalog(a.stdout, cfg)
		},
	}
}

// warnImports prints a warning for each imported file that could not be read or
// parsed: its servers are missing from the catalog, the rest of which still loads.
func (a *app) warnImports(cfg config.Config) {
	for _, p := range cfg.Problems {
		if p.Server == "" {
			fmt.Fprintf(a.stderr, "elicitty: WARNING: ignoring an imported config file: %s\n", safe.Line(p.Err.Error()))
		}
	}
}

// configServer is one server of `elicitty config --json`: secrets redacted.
type configServer struct {
	Name     string            `json:"name"`
	Layer    string            `json:"layer"`
	Source   string            `json:"source,omitempty"`
	Type     string            `json:"type"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Protocol string            `json:"protocol,omitempty"`
	Timeout  string            `json:"timeout,omitempty"`
}

// configProblem is an entry or file that could not be used.
type configProblem struct {
	Source string `json:"source"`
	Server string `json:"server,omitempty"`
	Error  string `json:"error"`
}

type configCatalog struct {
	Servers  []configServer  `json:"servers"`
	Sources  []string        `json:"sources"`
	Problems []configProblem `json:"problems"`
	// Untrusted are the servers of the working directory's project files while the
	// folder is not trusted (`elicitty trust`): as written, not started.
	Untrusted []configServer `json:"untrusted"`
	// Project is that folder, when it has project files.
	Project *configProject `json:"project,omitempty"`
}

// configProject is the working directory's project files and whether they are trusted.
type configProject struct {
	Dir     string   `json:"dir"`
	Files   []string `json:"files"`
	Trusted bool     `json:"trusted"`
}

func catalogJSON(cfg config.Config) configCatalog {
	out := configCatalog{Servers: []configServer{}, Sources: []string{}, Problems: []configProblem{}, Untrusted: []configServer{}}
	entry := func(s config.Server) configServer {
		r := s.Redacted()
		cs := configServer{
			Name: r.Name, Layer: r.Layer.String(), Source: r.Source, Type: string(r.EffectiveKind()),
			Command: r.Command, Args: r.Args, Cwd: r.Cwd, URL: r.URL, Env: r.Env, Headers: r.Headers,
			Protocol: r.Protocol,
		}
		if r.Timeout > 0 {
			cs.Timeout = r.Timeout.String()
		}
		return cs
	}
	for _, s := range cfg.Servers {
		out.Servers = append(out.Servers, entry(s))
	}
	for _, s := range cfg.Untrusted {
		out.Untrusted = append(out.Untrusted, entry(s))
	}
	if p := cfg.Project; len(p.Files) > 0 {
		cp := &configProject{Dir: p.Dir, Trusted: p.Trusted, Files: []string{}}
		for _, f := range p.Files {
			cp.Files = append(cp.Files, f.Name)
		}
		out.Project = cp
	}
	out.Sources = append(out.Sources, cfg.Sources...)
	for _, p := range cfg.Problems {
		out.Problems = append(out.Problems, configProblem{Source: p.Source, Server: p.Server, Error: p.Err.Error()})
	}
	return out
}

// printCatalog writes the catalog as a table, then the files read and the problems.
// Every string is sanitized: config files are not ours either.
func printCatalog(w io.Writer, cfg config.Config) error {
	if len(cfg.Servers) == 0 {
		fmt.Fprintln(w, "no servers are configured; the built-in demo server is always there as the target demo (try: elicitty tools demo)")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tLAYER\tTYPE\tTARGET\tFROM")
		for _, s := range cfg.Servers {
			r := s.Redacted()
			target := r.URL
			if r.EffectiveKind() == config.KindStdio {
				target = strings.Join(append([]string{r.Command}, r.Args...), " ")
			}
			var extra []string
			if len(r.Env) > 0 {
				extra = append(extra, "env: "+strings.Join(sortedKeys(r.Env), ", "))
			}
			if len(r.Headers) > 0 {
				extra = append(extra, "headers: "+strings.Join(sortedKeys(r.Headers), ", "))
			}
			if len(extra) > 0 {
				target += " (" + strings.Join(extra, "; ") + ")"
			}
			from := r.Source
			if from == "" {
				from = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safe.Line(r.Name), r.Layer, r.EffectiveKind(), safe.Line(target), safe.Line(from))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(cfg.Untrusted) > 0 {
		fmt.Fprintf(w, "\nnot started until you trust %s (elicitty trust, or --trust):\n", safe.Line(cfg.Project.Dir))
		for _, s := range cfg.Untrusted {
			fmt.Fprintf(w, "  %s\n", safe.Line(untrustedLine(s)))
		}
	}
	if len(cfg.Sources) > 0 {
		fmt.Fprintln(w, "\nfiles read:")
		for _, src := range cfg.Sources {
			fmt.Fprintln(w, "  "+safe.Line(src))
		}
	}
	if len(cfg.Problems) > 0 {
		fmt.Fprintln(w, "\nnot usable:")
		for _, p := range cfg.Problems {
			name := "(whole file)"
			if p.Server != "" {
				name = safe.Line(p.Server)
			}
			fmt.Fprintf(w, "  %s: %s\n", name, safe.Line(p.Err.Error()))
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, safe.Line(k))
	}
	slices.Sort(keys)
	return keys
}
