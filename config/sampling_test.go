package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadSamplingCommand(t *testing.T) {
	opts, _ := layout(t, map[string]string{
		"config/elicitty/config.yaml": "sampling:\n  command: [my-llm, --model, \"${MODEL}\"]\nservers:\n  demo: {command: x}\n",
	}, map[string]string{"MODEL": "small"})
	opts.NoImports = true
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Sampling{Command: []string{"my-llm", "--model", "small"}}, c.Sampling); diff != "" {
		t.Errorf("Sampling (-want +got):\n%s", diff)
	}
}

func TestLoadSamplingErrors(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"not an object", "sampling: [x]\n", "config.yaml:1:1: sampling: must be an object with command, got a list"},
		{"unknown key", "sampling:\n  cmd: [x]\n", "config.yaml:2:3: sampling.cmd: unknown key (want command)"},
		{"empty command", "sampling:\n  command: []\n", "sampling.command: must be a non-empty list of strings"},
		{"a number", "sampling:\n  command: [x, 3]\n", "sampling.command[1]: must be a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts, _ := layout(t, map[string]string{"config/elicitty/config.yaml": tt.body}, nil)
			opts.NoImports = true
			_, err := Load(opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}
